/* KubeSchedulerConfiguration: upstream's defaults, the file format of the
 * v1, v1beta3, v1beta2 and v1beta1 APIs, and upstream's validation. The
 * plugin-set merge lives in config_plugins.c. */
#include "moonsched/config.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/quote.h"
#include "codec/field_set.h"
#include "codec/json_reader.h"
#include "codec/yaml.h"
#include "moonsched/decode.h"
#include "config/extender_config.h"

#define API_GROUP "kubescheduler.config.k8s.io/"

/* API versions, as bits so that a field can say where it exists. */
enum {
    V1 = 1u << 0,
    V1BETA3 = 1u << 1,
    V1BETA2 = 1u << 2,
    V1BETA1 = 1u << 3,
    VALL = V1 | V1BETA3 | V1BETA2 | V1BETA1,
};

static const struct {
    const char *name;
    unsigned bit;
} api_versions[] = {
    {API_GROUP "v1", V1},
    {API_GROUP "v1beta3", V1BETA3},
    {API_GROUP "v1beta2", V1BETA2},
    {API_GROUP "v1beta1", V1BETA1},
};

typedef struct field {
    const char *name;
    unsigned versions;
} field;

/* Known fields per object. Fields that moonsched reads nothing from
 * (profiling switches) are listed so that they do not
 * produce warnings. */
static const field top_fields[] = {
    {"apiVersion", VALL},
    {"kind", VALL},
    {"parallelism", VALL},
    {"leaderElection", VALL},
    {"clientConnection", VALL},
    {"enableProfiling", VALL},
    {"enableContentionProfiling", VALL},
    {"healthzBindAddress", V1BETA2 | V1BETA1},
    {"metricsBindAddress", V1BETA2 | V1BETA1},
    {"percentageOfNodesToScore", VALL},
    {"podInitialBackoffSeconds", VALL},
    {"podMaxBackoffSeconds", VALL},
    {"profiles", VALL},
    {"extenders", VALL},
    {"delayCacheUntilActive", V1},
    {NULL, 0},
};

static const field client_connection_fields[] = {
    {"kubeconfig", VALL}, {"acceptContentTypes", VALL}, {"contentType", VALL},
    {"qps", VALL},        {"burst", VALL},              {NULL, 0},
};

static const field leader_election_fields[] = {
    {"leaderElect", VALL},   {"leaseDuration", VALL}, {"renewDeadline", VALL},
    {"retryPeriod", VALL},   {"resourceLock", VALL},  {"resourceName", VALL},
    {"resourceNamespace", VALL}, {NULL, 0},
};

static const field profile_fields[] = {
    {"schedulerName", VALL},
    {"plugins", VALL},
    {"pluginConfig", VALL},
    {"percentageOfNodesToScore", V1},
    {NULL, 0},
};

/* The plugin sets of a profile, in the file's names, and where each exists. */
static const struct {
    const char *name;
    int index;                     /* ms_extension_point or MS_EP_MULTI_POINT */
    unsigned versions;
} plugin_set_fields[] = {
    {"multiPoint", MS_EP_MULTI_POINT, V1 | V1BETA3},
    {"preEnqueue", MS_EP_PRE_ENQUEUE, V1 | V1BETA3},
    {"queueSort", MS_EP_QUEUE_SORT, VALL},
    {"preFilter", MS_EP_PRE_FILTER, VALL},
    {"filter", MS_EP_FILTER, VALL},
    {"postFilter", MS_EP_POST_FILTER, VALL},
    {"preScore", MS_EP_PRE_SCORE, VALL},
    {"score", MS_EP_SCORE, VALL},
    {"reserve", MS_EP_RESERVE, VALL},
    {"permit", MS_EP_PERMIT, VALL},
    {"preBind", MS_EP_PRE_BIND, VALL},
    {"bind", MS_EP_BIND, VALL},
    {"postBind", MS_EP_POST_BIND, VALL},
};
#define NPLUGIN_SETS (sizeof plugin_set_fields / sizeof plugin_set_fields[0])

static const field plugin_set_object_fields[] = {{"enabled", VALL}, {"disabled", VALL}, {NULL, 0}};
static const field plugin_fields[] = {{"name", VALL}, {"weight", VALL}, {NULL, 0}};
static const field plugin_config_fields[] = {{"name", VALL}, {"args", VALL}, {NULL, 0}};

typedef struct parser {
    ms_json_reader r;
    unsigned version;
    const char *version_name;
    /* The fields the version does not have, and the keys given twice,
     * for the strict decoding error: "unknown field \"a\", unknown field
     * \"b.c\", duplicate field \"d\"". */
    ms_buf strict;
} parser;

/* ---- fields ---- */

static void check_fields(parser *ps, const cJSON *obj, const field *fields) {
    for (const cJSON *c = obj->child; c; c = c->next) {
        if (!c->string) continue;
        const field *f = fields;
        while (f->name && strcmp(f->name, c->string) != 0) f++;
        size_t old = ms_json_push(&ps->r, c->string);
        /* a field of another version is as unknown to this one's type */
        if (!f->name || !(f->versions & ps->version))
            ms_buf_printf(&ps->strict, "%sunknown field \"%s\"", ps->strict.len ? ", " : "", ps->r.path);
        ms_json_pop(&ps->r, old);
    }
}

static bool known_here(parser *ps, const field *fields, const char *name) {
    for (const field *f = fields; f->name; f++)
        if (strcmp(f->name, name) == 0) return (f->versions & ps->version) != 0;
    return false;
}

/* Go's time.ParseDuration ("1h2m3.5s", "300ms", "0"), in seconds. */
bool ms_parse_go_duration(const char *s, double *out) {
    static const struct {
        const char *unit;
        double seconds;
    } units[] = {
        {"ns", 1e-9}, {"us", 1e-6}, {"\xc2\xb5s", 1e-6}, {"\xce\xbcs", 1e-6},
        {"ms", 1e-3}, {"s", 1},     {"m", 60},            {"h", 3600},
    };
    double sign = 1, total = 0;
    if (*s == '-' || *s == '+') sign = *s++ == '-' ? -1 : 1;
    if (strcmp(s, "0") == 0) {
        *out = 0;
        return true;
    }
    if (!*s) return false;
    while (*s) {
        const char *start = s;
        double v = 0, scale = 1;
        bool digits = false;
        while (*s >= '0' && *s <= '9') v = v * 10 + (*s++ - '0'), digits = true;
        if (*s == '.') {
            s++;
            while (*s >= '0' && *s <= '9') scale /= 10, v += (*s++ - '0') * scale, digits = true;
        }
        if (!digits || s == start) return false;
        size_t best = 0;
        double mult = 0;
        for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
            size_t n = strlen(units[i].unit);
            if (n > best && strncmp(s, units[i].unit, n) == 0) best = n, mult = units[i].seconds;
        }
        if (!best) return false;
        s += best;
        total += v * mult;
    }
    *out = sign * total;
    return true;
}

static ms_rc as_duration(parser *ps, const cJSON *j, double *out) {
    if (!cJSON_IsString(j)) return ms_json_fail(&ps->r, NULL, "must be a duration such as \"15s\" or \"1m30s\"");
    if (!ms_parse_go_duration(j->valuestring, out))
        return ms_json_invalid(&ps->r, NULL, j->valuestring, "must be a duration such as \"15s\" or \"1m30s\"");
    return MS_OK;
}

/* Reads obj[key] when present with `fn`, with the key pushed on the path.
 * Sets *present. */
#define FIELD(ps, obj, key, present, call)                                                   \
    do {                                                                                     \
        const cJSON *j_ = ms_json_get((obj), (key));                                         \
        *(present) = j_ != NULL && known_here((ps), fields_, (key));                         \
        if (*(present)) {                                                                    \
            size_t old_ = ms_json_push(&(ps)->r, (key));                                     \
            ms_rc rc_ = call;                                                                \
            if (rc_ != MS_OK) return rc_;                                                    \
            ms_json_pop(&(ps)->r, old_);                                                     \
        }                                                                                    \
    } while (0)

static ms_rc expect_object(parser *ps, const cJSON *j) {
    return ms_json_expect(&ps->r, NULL, j, MS_JSON_OBJECT);
}

static ms_rc copy_string(parser *ps, const char *s, char *dst, size_t len) {
    size_t n = strlen(s);
    if (n >= len)
        return ms_json_invalid(&ps->r, NULL, s, "must be no more than %zu characters", len - 1);
    memcpy(dst, s, n + 1);
    return MS_OK;
}

/* ---- clientConnection, leaderElection ---- */

static ms_rc parse_client_connection(parser *ps, ms_config *c, const cJSON *obj) {
    const field *fields_ = client_connection_fields;
    ms_rc rc = expect_object(ps, obj);
    if (rc != MS_OK) return rc;
    check_fields(ps, obj, fields_);
    bool present;
    double qps = 0;
    int64_t burst = 0;
    const char *kubeconfig = NULL;
    FIELD(ps, obj, "qps", &present, ms_json_number(&ps->r, NULL, j_, MS_JSON_NUMBER, &qps));
    /* upstream's defaulting treats zero as unset */
    if (present && qps != 0) c->qps = qps;
    FIELD(ps, obj, "burst", &present, ms_json_int(&ps->r, NULL, j_, INT32_MIN, INT32_MAX, &burst));
    if (present && burst != 0) c->burst = (int32_t)burst;
    FIELD(ps, obj, "kubeconfig", &present, ms_json_string(&ps->r, NULL, j_, &kubeconfig));
    if (kubeconfig && *kubeconfig) {
        free(c->kubeconfig);
        if (!(c->kubeconfig = strdup(kubeconfig))) return ms_json_nomem(&ps->r);
    }
    const char *ignored;
    FIELD(ps, obj, "acceptContentTypes", &present, ms_json_string(&ps->r, NULL, j_, &ignored));
    FIELD(ps, obj, "contentType", &present, ms_json_string(&ps->r, NULL, j_, &ignored));
    return MS_OK;
}

static ms_rc parse_leader_election(parser *ps, ms_config *c, const cJSON *obj) {
    const field *fields_ = leader_election_fields;
    ms_leader_election *le = &c->leader_election;
    ms_rc rc = expect_object(ps, obj);
    if (rc != MS_OK) return rc;
    check_fields(ps, obj, fields_);
    bool present;
    double d = 0;
    const char *s = NULL;
    FIELD(ps, obj, "leaderElect", &present, ms_json_bool(&ps->r, NULL, j_, &le->leader_elect));
    /* upstream's defaulting fills zero durations and empty names */
    FIELD(ps, obj, "leaseDuration", &present, as_duration(ps, j_, &d));
    if (present && d != 0) le->lease_duration = d;
    d = 0;
    FIELD(ps, obj, "renewDeadline", &present, as_duration(ps, j_, &d));
    if (present && d != 0) le->renew_deadline = d;
    d = 0;
    FIELD(ps, obj, "retryPeriod", &present, as_duration(ps, j_, &d));
    if (present && d != 0) le->retry_period = d;
    FIELD(ps, obj, "resourceLock", &present,
          (rc = ms_json_string(&ps->r, NULL, j_, &s)) != MS_OK || !*s
              ? rc
              : copy_string(ps, s, le->resource_lock, sizeof le->resource_lock));
    FIELD(ps, obj, "resourceName", &present,
          (rc = ms_json_string(&ps->r, NULL, j_, &s)) != MS_OK || !*s
              ? rc
              : copy_string(ps, s, le->resource_name, sizeof le->resource_name));
    if (present && s && *s) le->resource_name_given = true;
    FIELD(ps, obj, "resourceNamespace", &present,
          (rc = ms_json_string(&ps->r, NULL, j_, &s)) != MS_OK || !*s
              ? rc
              : copy_string(ps, s, le->resource_namespace, sizeof le->resource_namespace));
    return MS_OK;
}

/* ---- profiles ---- */

typedef struct profile_in {
    const char *name;              /* NULL: not given */
    bool has_pct;
    int32_t pct;
    ms_plugins plugins;
    const cJSON *plugin_config;    /* the pluginConfig list, or NULL */
} profile_in;

static ms_rc parse_plugin(parser *ps, const cJSON *item, bool with_weight, ms_plugin_ref *out) {
    const field *fields_ = plugin_fields;
    ms_rc rc = expect_object(ps, item);
    if (rc != MS_OK) return rc;
    check_fields(ps, item, fields_);
    bool present;
    const char *name = NULL;
    int64_t weight = 0;
    FIELD(ps, item, "name", &present, ms_json_string(&ps->r, NULL, j_, &name));
    if (!name || !*name) return ms_json_fail(&ps->r, "name", "Required value");
    if (strlen(name) >= sizeof ((ms_plugin_config *)0)->name)
        return ms_json_invalid(&ps->r, "name", name, "must be no more than %zu characters",
                               sizeof ((ms_plugin_config *)0)->name - 1);
    FIELD(ps, item, "weight", &present, ms_json_int(&ps->r, NULL, j_, INT32_MIN, INT32_MAX, &weight));
    if (with_weight && weight < 0) return ms_json_fail(&ps->r, NULL, "weight must be positive");
    out->name = name;
    out->weight = (int32_t)weight;
    return MS_OK;
}

static ms_rc parse_plugin_list(parser *ps, const cJSON *list, bool enabled, ms_plugin_set *set) {
    if (!cJSON_IsArray(list)) return ms_json_type_error(&ps->r, NULL, list, MS_JSON_ARRAY);
    int n = cJSON_GetArraySize(list);
    if (n > MS_MAX_PLUGINS)
        return ms_json_fail(&ps->r, NULL, "Too many: %d: must have at most %d items", n, MS_MAX_PLUGINS);
    uint32_t i = 0;
    for (const cJSON *item = list->child; item; item = item->next, i++) {
        size_t old = ms_json_push_index(&ps->r, i);
        ms_plugin_ref r = {NULL, 0};
        ms_rc rc = parse_plugin(ps, item, enabled, &r);
        if (rc != MS_OK) return rc;
        if (enabled) {
            /* upstream's framework refuses a plugin listed twice at a point */
            for (uint32_t k = 0; k < set->nenabled; k++)
                if (strcmp(set->enabled[k].name, r.name) == 0) {
                    char q[MS_QUOTE_SIZE];
                    return ms_json_fail(&ps->r, NULL, "Duplicate value: %s", ms_quote(q, r.name));
                }
            set->enabled[set->nenabled++] = r;
        } else {
            set->disabled[set->ndisabled++] = r.name;
        }
        ms_json_pop(&ps->r, old);
    }
    return MS_OK;
}

static ms_rc parse_plugin_set(parser *ps, const cJSON *obj, ms_plugin_set *set) {
    const field *fields_ = plugin_set_object_fields;
    ms_rc rc = expect_object(ps, obj);
    if (rc != MS_OK) return rc;
    check_fields(ps, obj, fields_);
    bool present;
    FIELD(ps, obj, "enabled", &present, parse_plugin_list(ps, j_, true, set));
    FIELD(ps, obj, "disabled", &present, parse_plugin_list(ps, j_, false, set));
    return MS_OK;
}

static ms_rc parse_plugins(parser *ps, const cJSON *obj, ms_plugins *plugins) {
    ms_rc rc = expect_object(ps, obj);
    if (rc != MS_OK) return rc;
    field fields[NPLUGIN_SETS + 1];
    for (size_t i = 0; i < NPLUGIN_SETS; i++)
        fields[i] = (field){plugin_set_fields[i].name, plugin_set_fields[i].versions};
    fields[NPLUGIN_SETS] = (field){NULL, 0};
    check_fields(ps, obj, fields);
    for (size_t i = 0; i < NPLUGIN_SETS; i++) {
        if (!(plugin_set_fields[i].versions & ps->version)) continue;
        const cJSON *j = ms_json_get(obj, plugin_set_fields[i].name);
        if (!j) continue;
        size_t old = ms_json_push(&ps->r, plugin_set_fields[i].name);
        rc = parse_plugin_set(ps, j, &plugins->set[plugin_set_fields[i].index]);
        if (rc != MS_OK) return rc;
        ms_json_pop(&ps->r, old);
    }
    return MS_OK;
}

static ms_rc parse_plugin_config(parser *ps, const cJSON *list) {
    const field *fields_ = plugin_config_fields;
    if (!cJSON_IsArray(list)) return ms_json_type_error(&ps->r, NULL, list, MS_JSON_ARRAY);
    uint32_t i = 0;
    for (const cJSON *item = list->child; item; item = item->next, i++) {
        size_t old = ms_json_push_index(&ps->r, i);
        ms_rc rc = expect_object(ps, item);
        if (rc != MS_OK) return rc;
        check_fields(ps, item, fields_);
        bool present;
        const char *name = NULL;
        FIELD(ps, item, "name", &present, ms_json_string(&ps->r, NULL, j_, &name));
        if (!name || !*name) return ms_json_fail(&ps->r, "name", "Required value");
        uint32_t k = 0;
        for (const cJSON *prev = list->child; prev != item; prev = prev->next, k++) {
            const cJSON *pn = ms_json_get(prev, "name");
            if (cJSON_IsString(pn) && strcmp(pn->valuestring, name) == 0) {
                char q[MS_QUOTE_SIZE];
                return ms_json_fail(&ps->r, NULL, "Duplicate value: %s", ms_quote(q, name));
            }
        }
        ms_json_pop(&ps->r, old);
    }
    return MS_OK;
}

static ms_rc parse_profile(parser *ps, const cJSON *obj, profile_in *in) {
    const field *fields_ = profile_fields;
    ms_rc rc = expect_object(ps, obj);
    if (rc != MS_OK) return rc;
    check_fields(ps, obj, fields_);
    bool present;
    int64_t pct = 0;
    FIELD(ps, obj, "schedulerName", &present, ms_json_string(&ps->r, NULL, j_, &in->name));
    FIELD(ps, obj, "percentageOfNodesToScore", &present,
          ms_json_int(&ps->r, NULL, j_, INT32_MIN, INT32_MAX, &pct));
    in->has_pct = present;
    in->pct = (int32_t)pct;
    FIELD(ps, obj, "plugins", &present, parse_plugins(ps, j_, &in->plugins));
    FIELD(ps, obj, "pluginConfig", &present, parse_plugin_config(ps, j_));
    in->plugin_config = present ? ms_json_get(obj, "pluginConfig") : NULL;
    return MS_OK;
}

static const cJSON *plugin_args(const profile_in *in, const char *name) {
    if (!in->plugin_config) return NULL;
    const cJSON *found = NULL;
    for (const cJSON *item = in->plugin_config->child; item; item = item->next) {
        const cJSON *n = ms_json_get(item, "name");
        if (cJSON_IsString(n) && strcmp(n->valuestring, name) == 0) found = ms_json_get(item, "args");
    }
    return found;
}

static bool same_plugin_set(const ms_plugin_set *a, const ms_plugin_set *b) {
    if (a->nenabled != b->nenabled || a->ndisabled != b->ndisabled) return false;
    for (uint32_t i = 0; i < a->nenabled; i++)
        if (strcmp(a->enabled[i].name, b->enabled[i].name) != 0 ||
            a->enabled[i].weight != b->enabled[i].weight)
            return false;
    for (uint32_t i = 0; i < a->ndisabled; i++)
        if (strcmp(a->disabled[i], b->disabled[i]) != 0) return false;
    return true;
}

/* Upstream's validateCommonQueueSort: every profile must write the same
 * queueSort set, and the same args for the queue sort plugin. */
static ms_rc validate_queue_sort(parser *ps, const profile_in *in, uint32_t n) {
    const ms_plugin_set *canon = &in[0].plugins.set[MS_EP_QUEUE_SORT];
    if (canon->nenabled > 1)
        return ms_error_set(ps->r.err, MS_EINVAL,
                            "profiles[0].plugins.queueSort.enabled: Invalid value: %u: only one "
                            "queue sort plugin can be enabled",
                            canon->nenabled);
    const char *sort_name = canon->nenabled ? canon->enabled[0].name : NULL;
    const cJSON *sort_args = sort_name ? plugin_args(&in[0], sort_name) : NULL;
    for (uint32_t i = 1; i < n; i++) {
        if (!same_plugin_set(canon, &in[i].plugins.set[MS_EP_QUEUE_SORT]))
            return ms_error_set(ps->r.err, MS_EINVAL,
                                "profiles[%u].plugins.queueSort: must be the same for all profiles", i);
        if (!sort_name || !in[i].plugin_config) continue;
        for (const cJSON *item = in[i].plugin_config->child; item; item = item->next) {
            const cJSON *name = ms_json_get(item, "name");
            if (!cJSON_IsString(name) || strcmp(name->valuestring, sort_name) != 0) continue;
            const cJSON *args = ms_json_get(item, "args");
            if (!(args == sort_args || (args && sort_args && cJSON_Compare(args, sort_args, true))))
                return ms_error_set(ps->r.err, MS_EINVAL,
                                    "profiles[%u].pluginConfig.args: queueSort must be the same for "
                                    "all profiles",
                                    i);
        }
    }
    return MS_OK;
}

/* Lua policy plugins ("lua:NAME") of profile i: a valid name, and args
 * with at least the policy's file (config_policy.c decodes them). */
static ms_rc validate_policies(parser *ps, const profile_in *in, uint32_t i,
                               const ms_profile_config *p) {
    for (uint32_t j = 0; j < p->nplugins; j++) {
        const ms_plugin_config *pc = &p->plugins[j];
        if (!ms_config_is_policy(pc->name)) continue;
        if (!ms_config_policy_name_valid(pc->name)) {
            char q[MS_QUOTE_SIZE];
            return ms_error_set(ps->r.err, MS_EINVAL,
                                "profiles[%u].plugins: Invalid value: %s: a Lua policy plugin is "
                                "named lua:NAME, NAME being 1 to %d letters, digits, '-', '_' or '.'",
                                i, ms_quote(q, pc->name), MS_POLICY_NAME_MAX);
        }
        uint32_t k = 0, at = 0;
        bool found = false;
        for (const cJSON *item = in->plugin_config ? in->plugin_config->child : NULL; item;
             item = item->next, k++) {
            const cJSON *nm = ms_json_get(item, "name");
            if (cJSON_IsString(nm) && strcmp(nm->valuestring, pc->name) == 0) at = k, found = true;
        }
        if (!found)
            return ms_error_set(ps->r.err, MS_EINVAL,
                                "profiles[%u].pluginConfig: Required value: plugin \"%s\" needs an "
                                "entry whose args name the policy's file",
                                i, pc->name);
        char path[64];
        snprintf(path, sizeof path, "profiles[%u].pluginConfig[%u].args", i, at);
        ms_policy_args a;
        ms_rc rc = ms_config_policy_args(pc->args, path, &a, ps->r.err);
        if (rc != MS_OK) return rc;
    }
    return MS_OK;
}

/* Builds the effective profile from what the file says. */
static ms_rc make_profile(parser *ps, const profile_in *in, uint32_t i, uint32_t n,
                          ms_profile_config *p) {
    const char *name = in->name;
    /* upstream names a lone profile; with several, each must have a name */
    if (!name && n == 1) name = MS_DEFAULT_SCHEDULER_NAME;
    if (!name || !*name)
        return ms_error_set(ps->r.err, MS_EINVAL, "profiles[%u].schedulerName: Required value", i);
    ms_rc rc = ms_profile_config_build(p, name, &in->plugins, ps->r.err);
    if (rc != MS_OK) {
        ms_error_prefix(ps->r.err, "profiles[%u]", i);
        return rc;
    }
    if (in->has_pct) p->percentage_of_nodes_to_score = in->pct;
    if (!in->plugin_config) return validate_policies(ps, in, i, p);
    uint32_t k = 0;
    for (const cJSON *item = in->plugin_config->child; item; item = item->next, k++) {
        const cJSON *nm = ms_json_get(item, "name");
        const cJSON *args = ms_json_get(item, "args");
        ms_plugin_config *pc = NULL;
        for (uint32_t j = 0; j < p->nplugins; j++)
            if (strcmp(p->plugins[j].name, nm->valuestring) == 0) pc = &p->plugins[j];
        if (!pc) {
            /* upstream ignores it too; say so, since it is usually a typo */
            ms_json_warn(&ps->r, "profiles[%u].pluginConfig[%u]: plugin \"%s\" is not enabled in profile %s; "
                      "its args are ignored",
                  i, k, nm->valuestring, p->scheduler_name);
            continue;
        }
        if (!args) continue;
        if (!(pc->args = cJSON_Duplicate(args, true)))
            return ms_json_nomem(&ps->r);
    }
    return validate_policies(ps, in, i, p);
}

static ms_rc parse_profiles(parser *ps, ms_config *c, const cJSON *list) {
    if (!cJSON_IsArray(list)) return ms_json_type_error(&ps->r, NULL, list, MS_JSON_ARRAY);
    int count = cJSON_GetArraySize(list);
    /* upstream's defaulting: no profiles means the default profile */
    if (count == 0) return MS_OK;
    uint32_t n = (uint32_t)count;
    profile_in *in = calloc(n, sizeof *in);
    ms_profile_config *profiles = calloc(n, sizeof *profiles);
    ms_rc rc = MS_OK;
    if (!in || !profiles) {
        rc = ms_json_nomem(&ps->r);
        goto out;
    }
    uint32_t i = 0;
    for (const cJSON *item = list->child; item; item = item->next, i++) {
        size_t old = ms_json_push_index(&ps->r, i);
        if ((rc = parse_profile(ps, item, &in[i])) != MS_OK) goto out;
        ms_json_pop(&ps->r, old);
    }
    ms_json_pop(&ps->r, 0);
    for (i = 0; i < n; i++)
        if ((rc = make_profile(ps, &in[i], i, n, &profiles[i])) != MS_OK) goto out;
    if ((rc = validate_queue_sort(ps, in, n)) != MS_OK) goto out;
    for (i = 0; i < c->nprofiles; i++)
        for (uint32_t k = 0; k < c->profiles[i].nplugins; k++) cJSON_Delete(c->profiles[i].plugins[k].args);
    free(c->profiles);
    c->profiles = profiles;
    c->nprofiles = n;
    profiles = NULL;
out:
    if (profiles)
        for (i = 0; i < n; i++)
            for (uint32_t k = 0; k < profiles[i].nplugins; k++) cJSON_Delete(profiles[i].plugins[k].args);
    free(profiles);
    free(in);
    return rc;
}

/* ---- the whole document ---- */

/* An extender's unknown field joins the others in the strict decoding
 * error; any other warning goes where the parser's go. */
static void extender_warning(void *ctx, const char *msg) {
    parser *ps = ctx;
    size_t n = strlen(ps->r.source);   /* the message starts "<source>: " */
    const char *text = strncmp(msg, ps->r.source, n) == 0 && strncmp(msg + n, ": ", 2) == 0 ? msg + n + 2 : msg;
    if (strncmp(text, "unknown field ", 14) == 0)
        ms_buf_printf(&ps->strict, "%s%s", ps->strict.len ? ", " : "", text);
    else if (ps->r.warn)
        ps->r.warn(ps->r.warn_ctx, msg);
}

static void duplicate_field(void *ctx, const char *path) {
    parser *ps = ctx;
    ms_buf_printf(&ps->strict, "%sduplicate field \"%s\"", ps->strict.len ? ", " : "", path);
}

/* The extenders list read only to check it (ps NULL: warnings dropped). */
static ms_rc check_extenders(const cJSON *list, parser *ps, ms_error *err) {
    ms_extender_config *ext = NULL;
    uint32_t n = 0;
    ms_rc rc = ms_extender_configs_parse(list, &ext, &n, ps ? extender_warning : NULL, ps, ps ? ps->r.source : NULL, err);
    ms_extender_configs_free(ext, n);
    return rc;
}

static ms_rc parse_config(parser *ps, ms_config *c, const cJSON *root) {
    if (!cJSON_IsObject(root))
        return ms_json_fail(&ps->r, NULL, "expected a KubeSchedulerConfiguration object");
    const cJSON *api = ms_json_get(root, "apiVersion"), *kind = ms_json_get(root, "kind");
    if (!api) return ms_json_fail(&ps->r, "apiVersion", "Required value");
    ms_rc rc = ms_json_expect(&ps->r, "apiVersion", api, MS_JSON_STRING);
    if (rc != MS_OK) return rc;
    for (size_t i = 0; i < sizeof api_versions / sizeof api_versions[0]; i++)
        if (strcmp(api->valuestring, api_versions[i].name) == 0) {
            ps->version = api_versions[i].bit;
            ps->version_name = api_versions[i].name;
        }
    if (!ps->version)
        return ms_json_invalid(&ps->r, "apiVersion", api->valuestring,
                               "must be " API_GROUP "v1, " API_GROUP "v1beta3, " API_GROUP "v1beta2 or " API_GROUP
                               "v1beta1");
    if (!kind) return ms_json_fail(&ps->r, "kind", "Required value");
    if ((rc = ms_json_expect(&ps->r, "kind", kind, MS_JSON_STRING)) != MS_OK) return rc;
    if (strcmp(kind->valuestring, "KubeSchedulerConfiguration") != 0)
        return ms_json_invalid(&ps->r, "kind", kind->valuestring, "must be KubeSchedulerConfiguration");
    check_fields(ps, root, top_fields);

    const field *fields_ = top_fields;
    bool present;
    int64_t v = 0;
    FIELD(ps, root, "parallelism", &present, ms_json_int(&ps->r, NULL, j_, INT32_MIN, INT32_MAX, &v));
    if (present) c->parallelism = (int32_t)v;
    FIELD(ps, root, "percentageOfNodesToScore", &present,
          ms_json_int(&ps->r, NULL, j_, INT32_MIN, INT32_MAX, &v));
    if (present) c->percentage_of_nodes_to_score = (int32_t)v;
    FIELD(ps, root, "podInitialBackoffSeconds", &present,
          ms_json_int(&ps->r, NULL, j_, INT64_MIN, INT64_MAX, &v));
    if (present) c->pod_initial_backoff = (double)v;
    FIELD(ps, root, "podMaxBackoffSeconds", &present,
          ms_json_int(&ps->r, NULL, j_, INT64_MIN, INT64_MAX, &v));
    if (present) c->pod_max_backoff = (double)v;
    bool b;
    FIELD(ps, root, "enableProfiling", &present, ms_json_bool(&ps->r, NULL, j_, &b));
    FIELD(ps, root, "enableContentionProfiling", &present, ms_json_bool(&ps->r, NULL, j_, &b));
    FIELD(ps, root, "delayCacheUntilActive", &present, ms_json_bool(&ps->r, NULL, j_, &b));
    const char *addr = NULL;
    FIELD(ps, root, "metricsBindAddress", &present, ms_json_string(&ps->r, NULL, j_, &addr));
    if (present) snprintf(c->metrics_bind_address, sizeof c->metrics_bind_address, "%s", addr);
    FIELD(ps, root, "healthzBindAddress", &present, ms_json_string(&ps->r, NULL, j_, &addr));
    if (present) snprintf(c->healthz_bind_address, sizeof c->healthz_bind_address, "%s", addr);
    FIELD(ps, root, "clientConnection", &present, parse_client_connection(ps, c, j_));
    FIELD(ps, root, "leaderElection", &present, parse_leader_election(ps, c, j_));
    FIELD(ps, root, "extenders", &present,
          !cJSON_IsArray(j_) ? ms_json_type_error(&ps->r, NULL, j_, MS_JSON_ARRAY)
          : (c->extenders = cJSON_Duplicate(j_, true)) ? MS_OK
                                                      : ms_json_nomem(&ps->r));
    FIELD(ps, root, "profiles", &present, parse_profiles(ps, c, j_));
    /* read here for its unknown fields; ms_config_validate checks it again */
    if (c->extenders && (rc = check_extenders(c->extenders, ps, ps->r.err)) != MS_OK) return rc;
    /* Upstream's scheme decodes strictly (serializer.EnableStrict): once
     * the document decoded, fields its type does not have and keys given
     * twice (at any depth: plugin args, maps) fail it, all listed in its
     * words. */
    ms_field_walk dups = {.duplicate = duplicate_field, .ctx = ps};
    ms_field_walk_object(&dups, root, NULL, "");
    if (ps->strict.failed) return ms_json_nomem(&ps->r);
    if (ps->strict.len)
        return ms_error_set(ps->r.err, MS_EINVAL, "strict decoding error: %s", ps->strict.data);
    ms_config_default_lease_name(c);
    return ms_config_validate(c, ps->r.err);
}

/* ---- public API ---- */

ms_rc ms_config_default(ms_config *c) {
    memset(c, 0, sizeof *c);
    c->profiles = calloc(1, sizeof *c->profiles);
    if (!c->profiles) return MS_ENOMEM;
    c->nprofiles = 1;
    ms_profile_config_default(&c->profiles[0], MS_DEFAULT_SCHEDULER_NAME);
    c->percentage_of_nodes_to_score = 0;
    c->pod_initial_backoff = 1;
    c->pod_max_backoff = 10;
    c->pod_max_unschedulable = 300;
    c->assumed_ttl = 0;
    c->qps = 50;
    c->burst = 100;
    c->parallelism = 16;
    ms_leader_election *le = &c->leader_election;
    le->leader_elect = true;
    le->lease_duration = 15;
    le->renew_deadline = 10;
    le->retry_period = 2;
    snprintf(le->resource_lock, sizeof le->resource_lock, "leases");
    snprintf(le->resource_name, sizeof le->resource_name, "kube-scheduler");
    snprintf(le->resource_namespace, sizeof le->resource_namespace, "kube-system");
    return MS_OK;
}

ms_rc ms_config_load_json(ms_config *c, const cJSON *root, const char *source,
                          void (*warn)(void *ctx, const char *msg), void *warn_ctx, ms_error *err) {
    if (!source) source = "config";
    ms_rc rc = ms_config_default(c);
    if (rc != MS_OK) return ms_error_set(err, rc, "%s: out of memory", source);
    parser ps = {.version = 0};
    ms_json_reader_init(&ps.r, &ms_json_config_wording, err);
    ps.r.warn = warn;
    ps.r.warn_ctx = warn_ctx;
    ps.r.source = source;
    rc = parse_config(&ps, c, root);
    ms_buf_free(&ps.strict);
    if (rc != MS_OK) {
        ms_config_free(c);
        ms_error_prefix(err, "%s", source);
    }
    return rc;
}

#define MAX_CONFIG_FILE (16u << 20)

/* One document: JSON when the text starts with '{' (as kube-scheduler's
 * decoder decides), YAML otherwise. */
static ms_rc parse_document(const char *name, const char *buf, size_t len, cJSON **out,
                            ms_error *err) {
    size_t start = 0;
    while (start < len && strchr(" \t\r\n", buf[start])) start++;
    ms_rc rc;
    if (start < len && buf[start] == '{') {
        rc = ms_json_parse(buf, len, out, err);
    } else {
        cJSON **docs = NULL;
        size_t ndocs = 0;
        rc = ms_yaml_parse(buf, len, &docs, &ndocs, err);
        if (rc != MS_OK && ms_yaml_duplicate_key(err)) ms_error_prefix(err, "strict decoding error");
        if (rc == MS_OK) {
            /* empty documents (a leading "---", comments only) do not count */
            size_t found = 0;
            for (size_t i = 0; i < ndocs; i++) {
                if (cJSON_IsNull(docs[i])) continue;
                if (found++ == 0) {
                    *out = docs[i];
                    docs[i] = NULL;
                }
            }
            for (size_t i = 0; i < ndocs; i++) cJSON_Delete(docs[i]);
            free(docs);
            if (found != 1) {
                if (found) cJSON_Delete(*out);
                *out = NULL;
                rc = ms_error_set(err, MS_EINVAL,
                                  "expected one KubeSchedulerConfiguration document, found %zu", found);
            }
        }
    }
    if (rc != MS_OK) ms_error_prefix(err, "%s", name);
    return rc;
}

ms_rc ms_config_load_file(ms_config *c, const char *path,
                          void (*warn)(void *ctx, const char *msg), void *warn_ctx, ms_error *err) {
    memset(c, 0, sizeof *c);
    const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
    char *buf;
    size_t len;
    ms_rc rc = ms_read_file(path, MAX_CONFIG_FILE, &buf, &len, err);
    if (rc != MS_OK) return rc;
    cJSON *root = NULL;
    rc = parse_document(name, buf, len, &root, err);
    free(buf);
    if (rc != MS_OK) return rc;
    rc = ms_config_load_json(c, root, name, warn, warn_ctx, err);
    cJSON_Delete(root);
    return rc;
}

void ms_config_default_lease_name(ms_config *c) {
    ms_leader_election *le = &c->leader_election;
    if (le->resource_name_given || c->nprofiles == 0) return;
    const char *name = c->profiles[0].scheduler_name;
    for (uint32_t i = 0; i < c->nprofiles; i++)
        if (strcmp(c->profiles[i].scheduler_name, MS_DEFAULT_SCHEDULER_NAME) == 0) name = "kube-scheduler";
    snprintf(le->resource_name, sizeof le->resource_name, "%s", name);
}

static bool pct_valid(int32_t pct) { return pct >= 0 && pct <= 100; }

/* upstream's ValidateLeaderElectionConfiguration */
static ms_rc validate_leader_election(const ms_leader_election *le, ms_error *err) {
    if (!le->leader_elect) return MS_OK;
    static const char *const dnames[] = {"leaseDuration", "renewDeadline", "retryPeriod"};
    const double d[] = {le->lease_duration, le->renew_deadline, le->retry_period};
    for (int i = 0; i < 3; i++)
        if (!(d[i] > 0))
            return ms_error_set(err, MS_EINVAL,
                                "leaderElection.%s: Invalid value: %gs: must be greater than zero",
                                dnames[i], d[i]);
    if (le->lease_duration < le->renew_deadline)
        return ms_error_set(err, MS_EINVAL,
                            "leaderElection.leaseDuration: Invalid value: %gs: LeaseDuration must be "
                            "greater than RenewDeadline",
                            le->renew_deadline);
    if (!le->resource_lock[0])
        return ms_error_set(err, MS_EINVAL,
                            "leaderElection.resourceLock: Invalid value: \"\": resourceLock is required");
    if (!le->resource_namespace[0])
        return ms_error_set(err, MS_EINVAL,
                            "leaderElection.resourceNamespace: Invalid value: \"\": resourceNamespace is "
                            "required");
    if (!le->resource_name[0])
        return ms_error_set(err, MS_EINVAL,
                            "leaderElection.resourceName: Invalid value: \"\": resourceName is required");
    /* the *leases migration locks hold a Lease too: run uses only that
     * half (with a warning) */
    if (strcmp(le->resource_lock, "leases") != 0 && strcmp(le->resource_lock, "endpointsleases") != 0 &&
        strcmp(le->resource_lock, "configmapsleases") != 0) {
        char q[MS_QUOTE_SIZE];
        return ms_error_set(err, MS_EINVAL,
                            "leaderElection.resourceLock: Invalid value: %s: resourceLock value must "
                            "be \"leases\" (or \"endpointsleases\", \"configmapsleases\")",
                            ms_quote(q, le->resource_lock));
    }
    return MS_OK;
}

ms_rc ms_config_validate(const ms_config *c, ms_error *err) {
    if (c->burst < 0)
        return ms_error_set(err, MS_EINVAL, "clientConnection.burst: Invalid value: %d: must be non-negative",
                            c->burst);
    ms_rc rc = validate_leader_election(&c->leader_election, err);
    if (rc != MS_OK) return rc;
    if (c->parallelism <= 0)
        return ms_error_set(err, MS_EINVAL,
                            "parallelism: Invalid value: %d: should be an integer value greater than zero",
                            c->parallelism);
    if (c->nprofiles == 0 || !c->profiles) return ms_error_set(err, MS_EINVAL, "profiles: Required value");
    for (uint32_t i = 0; i < c->nprofiles; i++) {
        const ms_profile_config *p = &c->profiles[i];
        if (!p->scheduler_name[0])
            return ms_error_set(err, MS_EINVAL, "profiles[%u].schedulerName: Required value", i);
        if (p->percentage_of_nodes_to_score != -1 && !pct_valid(p->percentage_of_nodes_to_score))
            return ms_error_set(err, MS_EINVAL,
                                "profiles[%u].percentageOfNodesToScore: Invalid value: %d: not in valid "
                                "range [0-100]",
                                i, p->percentage_of_nodes_to_score);
        for (uint32_t k = 0; k < i; k++)
            if (strcmp(c->profiles[k].scheduler_name, p->scheduler_name) == 0) {
                char q[MS_QUOTE_SIZE];
                return ms_error_set(err, MS_EINVAL, "profiles[%u].schedulerName: Duplicate value: %s", i,
                                    ms_quote(q, p->scheduler_name));
            }
    }
    if (!pct_valid(c->percentage_of_nodes_to_score))
        return ms_error_set(err, MS_EINVAL,
                            "percentageOfNodesToScore: Invalid value: %d: not in valid range [0-100]",
                            c->percentage_of_nodes_to_score);
    if (!(c->pod_initial_backoff > 0))
        return ms_error_set(err, MS_EINVAL, "podInitialBackoffSeconds: Invalid value: %.0f: must be greater than 0",
                            c->pod_initial_backoff);
    if (c->pod_max_backoff < c->pod_initial_backoff)
        return ms_error_set(err, MS_EINVAL,
                            "podMaxBackoffSeconds: Invalid value: %.0f: must be greater than or equal to "
                            "PodInitialBackoffSeconds",
                            c->pod_max_backoff);
    return c->extenders ? check_extenders(c->extenders, NULL, err) : MS_OK;
}

void ms_config_free(ms_config *c) {
    if (!c) return;
    for (uint32_t i = 0; c->profiles && i < c->nprofiles; i++)
        for (uint32_t k = 0; k < c->profiles[i].nplugins; k++) cJSON_Delete(c->profiles[i].plugins[k].args);
    free(c->profiles);
    free(c->kubeconfig);
    cJSON_Delete(c->extenders);
    memset(c, 0, sizeof *c);
}

const ms_profile_config *ms_config_profile(const ms_config *c, const char *scheduler_name) {
    if (!scheduler_name || !*scheduler_name) scheduler_name = MS_DEFAULT_SCHEDULER_NAME;
    for (uint32_t i = 0; i < c->nprofiles; i++)
        if (strcmp(c->profiles[i].scheduler_name, scheduler_name) == 0) return &c->profiles[i];
    return NULL;
}
