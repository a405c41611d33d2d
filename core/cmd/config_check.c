/* `moonsched config check`: load, validate as the scheduler would (its
 * plugins and extenders are built), and describe the effective
 * configuration as a v1 KubeSchedulerConfiguration document. */
#include "cmd/config_check.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "moonsched/config.h"
#include "client/http_endpoint.h"
#include "config/extender_config.h"
#include "moonsched/framework.h"
#include "moonsched/policy_set.h"
#include "moonsched/scheduler.h"

/* ---- durations ---- */

/* value/unit with the fraction's trailing zeros dropped ("1.5", "30"). */
static int put_fraction(char *buf, size_t n, uint64_t v, uint64_t unit) {
    uint64_t whole = v / unit, frac = v % unit;
    if (!frac) return snprintf(buf, n, "%llu", (unsigned long long)whole);
    int digits = 0;
    for (uint64_t u = unit; u > 1; u /= 10) digits++;
    while (frac % 10 == 0) frac /= 10, digits--;
    return snprintf(buf, n, "%llu.%0*llu", (unsigned long long)whole, digits, (unsigned long long)frac);
}

void ms_format_go_duration(double seconds, char *buf, size_t n) {
    if (!isfinite(seconds) || fabs(seconds) > 9.2e9) {
        snprintf(buf, n, "%gs", seconds);
        return;
    }
    int64_t ns = llround(seconds * 1e9);
    if (ns == 0) {
        snprintf(buf, n, "0s");
        return;
    }
    size_t len = 0;
    if (ns < 0) {
        len += (size_t)snprintf(buf, n, "-");
        ns = -ns;
    }
    uint64_t v = (uint64_t)ns;
    if (len >= n) return;
    char *p = buf + len;
    size_t left = n - len;
    if (v < 1000) {
        snprintf(p, left, "%lluns", (unsigned long long)v);
        return;
    }
    if (v < 1000000000ull) {
        bool micro = v < 1000000;
        int w = put_fraction(p, left, v, micro ? 1000 : 1000000);
        if (w > 0 && (size_t)w < left) snprintf(p + w, left - (size_t)w, "%s", micro ? "\xc2\xb5s" : "ms");
        return;
    }
    uint64_t h = v / 3600000000000ull, rest = v % 3600000000000ull;
    uint64_t m = rest / 60000000000ull, s = rest % 60000000000ull;
    int w = 0;
    if (h) w = snprintf(p, left, "%lluh%llum", (unsigned long long)h, (unsigned long long)m);
    else if (m) w = snprintf(p, left, "%llum", (unsigned long long)m);
    if (w < 0 || (size_t)w >= left) return;
    int w2 = put_fraction(p + w, left - (size_t)w, s, 1000000000ull);
    if (w2 > 0 && (size_t)(w + w2) < left) snprintf(p + w + w2, left - (size_t)(w + w2), "s");
}

/* ---- the effective document ---- */

static bool add_duration(cJSON *obj, const char *key, double seconds) {
    char buf[64];
    ms_format_go_duration(seconds, buf, sizeof buf);
    return cJSON_AddStringToObject(obj, key, buf) != NULL;
}

static char *base64(const unsigned char *p, size_t n) {
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *out = malloc((n + 2) / 3 * 4 + 1), *o = out;
    if (!out) return NULL;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        *o++ = tab[v >> 18 & 63];
        *o++ = tab[v >> 12 & 63];
        *o++ = i + 1 < n ? tab[v >> 6 & 63] : '=';
        *o++ = i + 2 < n ? tab[v & 63] : '=';
    }
    *o = '\0';
    return out;
}

static bool add_bytes(cJSON *obj, const char *key, const unsigned char *p, size_t n) {
    if (!p) return true;
    char *b = base64(p, n);
    bool ok = b && cJSON_AddStringToObject(obj, key, b);
    free(b);
    return ok;
}

static bool add_string_if(cJSON *obj, const char *key, const char *s) {
    return !s || !*s || cJSON_AddStringToObject(obj, key, s);
}

static cJSON *describe_extender(const ms_extender_config *x) {
    cJSON *e = cJSON_CreateObject();
    bool ok = e && cJSON_AddStringToObject(e, "urlPrefix", x->url_prefix) &&
              add_string_if(e, "filterVerb", x->filter_verb) &&
              add_string_if(e, "preemptVerb", x->preempt_verb) &&
              add_string_if(e, "prioritizeVerb", x->prioritize_verb) &&
              cJSON_AddNumberToObject(e, "weight", (double)x->weight) &&
              add_string_if(e, "bindVerb", x->bind_verb) &&
              cJSON_AddBoolToObject(e, "enableHTTPS", x->enable_https);
    if (ok && x->has_tls) {
        const ms_extender_tls *t = &x->tls;
        cJSON *tls = cJSON_AddObjectToObject(e, "tlsConfig");
        ok = tls && cJSON_AddBoolToObject(tls, "insecure", t->insecure) &&
             add_string_if(tls, "serverName", t->server_name) && add_string_if(tls, "certFile", t->cert_file) &&
             add_string_if(tls, "keyFile", t->key_file) && add_string_if(tls, "caFile", t->ca_file) &&
             add_bytes(tls, "certData", t->cert_data, t->cert_data_len) &&
             add_bytes(tls, "caData", t->ca_data, t->ca_data_len);
        if (ok && t->key_data) {
            char note[64];
            snprintf(note, sizeof note, "<redacted: %zu bytes>", t->key_data_len);
            ok = cJSON_AddStringToObject(tls, "keyData", note) != NULL;
        }
    }
    ok = ok && add_duration(e, "httpTimeout", ms_extender_timeout(x)) &&
         cJSON_AddBoolToObject(e, "nodeCacheCapable", x->node_cache_capable);
    if (ok && x->nmanaged) {
        cJSON *list = cJSON_AddArrayToObject(e, "managedResources");
        for (uint32_t i = 0; ok && i < x->nmanaged; i++) {
            cJSON *m = cJSON_CreateObject();
            ok = m && cJSON_AddItemToArray(list, m) && cJSON_AddStringToObject(m, "name", x->managed[i].name) &&
                 cJSON_AddBoolToObject(m, "ignoredByScheduler", x->managed[i].ignored_by_scheduler);
        }
    }
    ok = ok && cJSON_AddBoolToObject(e, "ignorable", x->ignorable);
    if (!ok) {
        cJSON_Delete(e);
        return NULL;
    }
    return e;
}

/* One profile: per point the framework's plugins in execution order. */
static cJSON *describe_profile(const ms_profile_config *pc, const ms_framework *fw, const cJSON *ignored) {
    cJSON *p = cJSON_CreateObject();
    bool ok = p && cJSON_AddStringToObject(p, "schedulerName", pc->scheduler_name);
    if (ok && pc->percentage_of_nodes_to_score >= 0)
        ok = cJSON_AddNumberToObject(p, "percentageOfNodesToScore", pc->percentage_of_nodes_to_score) != NULL;
    cJSON *plugins = ok ? cJSON_AddObjectToObject(p, "plugins") : NULL;
    ok = plugins != NULL;
    for (int ep = 0; ok && ep < MS_EP_COUNT; ep++) {
        cJSON *set = cJSON_AddObjectToObject(plugins, ms_extension_point_name((ms_extension_point)ep));
        cJSON *enabled = set ? cJSON_AddArrayToObject(set, "enabled") : NULL;
        cJSON *disabled = set ? cJSON_AddArrayToObject(set, "disabled") : NULL;
        cJSON *star = cJSON_CreateObject();
        ok = enabled && disabled && star && cJSON_AddItemToArray(disabled, star) &&
             cJSON_AddStringToObject(star, "name", "*");
        if (!ok) cJSON_Delete(star);
        for (uint32_t k = 0; ok && k < fw->norder[ep]; k++) {
            const ms_framework_plugin *fp = &fw->plugins[fw->order[ep][k]];
            cJSON *e = cJSON_CreateObject();
            ok = e && cJSON_AddItemToArray(enabled, e) && cJSON_AddStringToObject(e, "name", fp->ops->name);
            if (ok && ep == MS_EP_SCORE) ok = cJSON_AddNumberToObject(e, "weight", fp->weight) != NULL;
        }
    }
    cJSON *pcs = ok ? cJSON_AddArrayToObject(p, "pluginConfig") : NULL;
    ok = pcs != NULL;
    for (uint32_t k = 0; ok && k < pc->nplugins; k++) {
        const ms_plugin_config *c = &pc->plugins[k];
        bool fit = ignored && strcmp(c->name, "NodeResourcesFit") == 0;
        if (!c->args && !fit) continue;
        cJSON *args = c->args ? cJSON_Duplicate(c->args, true) : cJSON_CreateObject();
        if (args && fit && cJSON_IsObject(args)) {
            cJSON_DeleteItemFromObjectCaseSensitive(args, "ignoredResources");
            cJSON *list = cJSON_Duplicate(ignored, true);
            if (!list || !cJSON_AddItemToObject(args, "ignoredResources", list)) {
                cJSON_Delete(list);
                ok = false;
            }
        }
        cJSON *e = cJSON_CreateObject();
        ok = ok && args && e && cJSON_AddStringToObject(e, "name", c->name);
        if (ok && cJSON_AddItemToObject(e, "args", args)) args = NULL;
        else ok = false;
        if (ok && cJSON_AddItemToArray(pcs, e)) e = NULL;
        else ok = false;
        cJSON_Delete(args);
        cJSON_Delete(e);
    }
    if (!ok) {
        cJSON_Delete(p);
        return NULL;
    }
    return p;
}

static cJSON *describe(const ms_config *c, const ms_scheduler *s, const ms_extender_config *ext,
                       uint32_t next) {
    cJSON *d = cJSON_CreateObject();
    if (!d) return NULL;
    bool ok = cJSON_AddStringToObject(d, "apiVersion", "kubescheduler.config.k8s.io/v1") &&
              cJSON_AddStringToObject(d, "kind", "KubeSchedulerConfiguration") &&
              cJSON_AddNumberToObject(d, "parallelism", c->parallelism) &&
              cJSON_AddNumberToObject(d, "percentageOfNodesToScore", c->percentage_of_nodes_to_score) &&
              cJSON_AddNumberToObject(d, "podInitialBackoffSeconds", c->pod_initial_backoff) &&
              cJSON_AddNumberToObject(d, "podMaxBackoffSeconds", c->pod_max_backoff);
    cJSON *cc = ok ? cJSON_AddObjectToObject(d, "clientConnection") : NULL;
    ok = cc && add_string_if(cc, "kubeconfig", c->kubeconfig) && cJSON_AddNumberToObject(cc, "qps", c->qps) &&
         cJSON_AddNumberToObject(cc, "burst", c->burst);
    const ms_leader_election *le = &c->leader_election;
    cJSON *l = ok ? cJSON_AddObjectToObject(d, "leaderElection") : NULL;
    ok = l && cJSON_AddBoolToObject(l, "leaderElect", le->leader_elect) &&
         add_duration(l, "leaseDuration", le->lease_duration) &&
         add_duration(l, "renewDeadline", le->renew_deadline) && add_duration(l, "retryPeriod", le->retry_period) &&
         cJSON_AddStringToObject(l, "resourceLock", le->resource_lock) &&
         cJSON_AddStringToObject(l, "resourceName", le->resource_name) &&
         cJSON_AddStringToObject(l, "resourceNamespace", le->resource_namespace);

    cJSON *ignored = NULL;
    for (uint32_t i = 0; ok && i < next; i++)
        for (uint32_t k = 0; ok && k < ext[i].nmanaged; k++) {
            if (!ext[i].managed[k].ignored_by_scheduler) continue;
            if (!ignored) ignored = cJSON_CreateArray();
            cJSON *name = ignored ? cJSON_CreateString(ext[i].managed[k].name) : NULL;
            ok = name && cJSON_AddItemToArray(ignored, name);
            if (!ok) cJSON_Delete(name);
        }
    cJSON *profiles = ok ? cJSON_AddArrayToObject(d, "profiles") : NULL;
    ok = profiles != NULL;
    for (uint32_t i = 0; ok && i < c->nprofiles; i++) {
        cJSON *p = describe_profile(&c->profiles[i], ms_scheduler_profile(s, i), ignored);
        ok = p && cJSON_AddItemToArray(profiles, p);
    }
    cJSON_Delete(ignored);
    cJSON *extenders = ok ? cJSON_AddArrayToObject(d, "extenders") : NULL;
    ok = extenders != NULL;
    for (uint32_t i = 0; ok && i < next; i++) {
        cJSON *e = describe_extender(&ext[i]);
        ok = e && cJSON_AddItemToArray(extenders, e);
    }
    if (!ok) {
        cJSON_Delete(d);
        return NULL;
    }
    return d;
}

cJSON *ms_config_describe(const ms_config *c, const ms_scheduler *s, ms_error *err) {
    ms_extender_config *ext = NULL;
    uint32_t next = 0;
    if (ms_extender_configs_parse(c->extenders, &ext, &next, NULL, NULL, NULL, err) != MS_OK) return NULL;
    cJSON *d = describe(c, s, ext, next);
    ms_extender_configs_free(ext, next);
    if (!d) ms_error_set(err, MS_ENOMEM, "out of memory");
    return d;
}

static ms_rc refuse_binds(void *ctx, const ms_pod *pod, ms_str node) {
    (void)ctx;
    (void)pod;
    (void)node;
    return MS_ESTATE;
}

/* Configurations that would fight kube-scheduler in the same cluster:
 * both scheduling default-scheduler's pods, or both electing their leader
 * through kube-system/kube-scheduler (they would take turns, and while
 * moonsched holds it kube-scheduler schedules nothing). */
static void warn_beside_kube_scheduler(const ms_config *c, void (*warn)(void *ctx, const char *msg), void *ctx) {
    if (!warn) return;
    const ms_leader_election *le = &c->leader_election;
    bool default_profile = false;
    for (uint32_t i = 0; i < c->nprofiles; i++)
        if (strcmp(c->profiles[i].scheduler_name, MS_DEFAULT_SCHEDULER_NAME) == 0) default_profile = true;
    bool upstream_lease = strcmp(le->resource_name, "kube-scheduler") == 0 &&
                          strcmp(le->resource_namespace, "kube-system") == 0;
    char msg[768];
    /* without election, nothing is shared: replacing kube-scheduler by a
     * single replica is a deployment matter */
    if (!le->leader_elect) return;
    if (default_profile && !upstream_lease) {
        snprintf(msg, sizeof msg,
                 "a profile is default-scheduler but the Lease is %s/%s, not kube-system/kube-scheduler: if "
                 "kube-scheduler runs, both schedule the same pods (replace kube-scheduler through its Lease, "
                 "or give the profile a schedulerName of its own)",
                 le->resource_namespace, le->resource_name);
        warn(ctx, msg);
    } else if (!default_profile && upstream_lease) {
        warn(ctx, "the Lease is kube-system/kube-scheduler but no profile is default-scheduler: moonsched and "
                  "kube-scheduler would take turns holding it, and while moonsched holds it kube-scheduler "
                  "schedules nothing (leave leaderElection.resourceName unset, or name a Lease of its own)");
    }
}

ms_rc ms_config_check(const char *path, void (*warn)(void *ctx, const char *msg), void *warn_ctx,
                      cJSON **effective, ms_error *err) {
    *effective = NULL;
    ms_config c;
    ms_rc rc = ms_config_load_file(&c, path, warn, warn_ctx, err);
    if (rc != MS_OK) return rc;
    warn_beside_kube_scheduler(&c, warn, warn_ctx);
    ms_interner *in = ms_interner_new();
    ms_scheduler *s = NULL;
    ms_policy_set *policies = NULL;
    ms_http_endpoint *http = NULL;
    if (!in) {
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
        goto out;
    }
    /* Lua policies are loaded (file, sandbox, init) as the scheduler would;
     * not watched. */
    if (ms_config_has_policies(&c)) {
        ms_policy_set_options po;
        ms_policy_set_options_default(&po);
        po.watch = false;
        if ((rc = ms_policy_set_new(&c, &po, in, &policies, err)) != MS_OK) {
            ms_error_prefix(err, "%s", strcmp(path, "-") == 0 ? "<stdin>" : path);
            goto out;
        }
    }
    if ((rc = ms_http_endpoint_new(&http, err)) != MS_OK) goto out;
    ms_http_caller caller = ms_http_endpoint_caller(http);
    ms_scheduler_options o = {
        .config = &c,
        .in = in,
        .http = &caller,
        .binder = {NULL, refuse_binds},
        .seed = 1,
        .profile_out_of_tree = policies ? ms_policy_set_profile_plugins(policies) : NULL,
        .n_profile_out_of_tree = policies ? ms_policy_set_profile_counts(policies) : NULL,
    };
    if ((rc = ms_scheduler_new(&o, &s, err)) != MS_OK) {
        if (rc == MS_EINVAL) ms_error_prefix(err, "%s", strcmp(path, "-") == 0 ? "<stdin>" : path);
        goto out;
    }
    if (!(*effective = ms_config_describe(&c, s, err))) rc = err->rc;
out:
    if (s) ms_scheduler_free(s);
    ms_http_endpoint_free(http);
    ms_policy_set_free(policies);
    if (in) ms_interner_free(in);
    ms_config_free(&c);
    return rc;
}

/* ---- YAML text ---- */

/* Would YAML (1.2 core schema, as our reader and kubectl's follow, or 1.1
 * as older readers do) read this plain scalar as a string equal to s? */
static bool plain_ok(const char *s) {
    size_t n = strlen(s);
    if (n == 0 || s[0] == ' ' || s[n - 1] == ' ') return false;
    if (strchr("-?:,[]{}#&*!|>'\"%@`~", s[0])) {
        /* "-x" style starts are fine when not followed by a space, except
         * where they mean something on their own */
        if (!(s[0] == '-' && n > 1 && s[1] != ' ' && !((s[1] >= '0' && s[1] <= '9') || s[1] == '.')))
            return false;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7f) return false;
        if (c == ':' && (i + 1 == n || s[i + 1] == ' ')) return false;
        if (c == '#' && i > 0 && s[i - 1] == ' ') return false;
    }
    static const char *const reserved[] = {"null", "Null", "NULL", "true", "True", "TRUE", "false", "False",
                                           "FALSE", "yes", "Yes", "YES", "no", "No", "NO", "on", "On",
                                           "ON", "off", "Off", "OFF", "y", "Y", "n", "N", NULL};
    for (const char *const *r = reserved; *r; r++)
        if (strcmp(s, *r) == 0) return false;
    /* anything that reads as a number */
    char *end = NULL;
    (void)strtod(s, &end);
    if (end && *end == '\0') return false;
    if (s[0] == '.' || ((s[0] == '+' || s[0] == '-') && s[1] == '.')) return false;   /* .inf, .nan */
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'o' || s[1] == 'X')) return false;
    return true;
}

static void put_string(FILE *f, const char *s) {
    if (plain_ok(s)) {
        fputs(s, f);
        return;
    }
    bool simple = true;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f) simple = false;
    if (simple) {
        fputc('\'', f);
        for (const char *p = s; *p; p++) {
            if (*p == '\'') fputc('\'', f);
            fputc(*p, f);
        }
        fputc('\'', f);
        return;
    }
    /* a JSON string is a YAML double-quoted scalar */
    cJSON *tmp = cJSON_CreateString(s);
    char *text = tmp ? cJSON_PrintUnformatted(tmp) : NULL;
    fputs(text ? text : "\"\"", f);
    free(text);
    cJSON_Delete(tmp);
}

static void put_scalar(FILE *f, const cJSON *v) {
    if (cJSON_IsString(v)) {
        put_string(f, v->valuestring);
    } else if (cJSON_IsBool(v)) {
        fputs(cJSON_IsTrue(v) ? "true" : "false", f);
    } else if (cJSON_IsNumber(v)) {
        double d = v->valuedouble;
        if (d == floor(d) && fabs(d) < 9e15) fprintf(f, "%.0f", d);
        else fprintf(f, "%.17g", d);
    } else {
        fputs("null", f);
    }
}

static bool is_empty_container(const cJSON *v) {
    return (cJSON_IsObject(v) || cJSON_IsArray(v)) && !v->child;
}

static void put_mapping(FILE *f, const cJSON *obj, int indent, bool first_inline);

static void put_sequence(FILE *f, const cJSON *arr, int indent, bool first_inline) {
    for (const cJSON *c = arr->child; c; c = c->next) {
        fprintf(f, "%*s- ", c == arr->child && first_inline ? 0 : indent, "");
        if (cJSON_IsObject(c) && c->child) {
            put_mapping(f, c, indent + 2, true);
        } else if (cJSON_IsArray(c) && c->child) {
            put_sequence(f, c, indent + 2, true);
        } else if (is_empty_container(c)) {
            fputs(cJSON_IsObject(c) ? "{}\n" : "[]\n", f);
        } else {
            put_scalar(f, c);
            fputc('\n', f);
        }
    }
}

static void put_mapping(FILE *f, const cJSON *obj, int indent, bool first_inline) {
    for (const cJSON *c = obj->child; c; c = c->next) {
        if (c != obj->child || !first_inline) fprintf(f, "%*s", indent, "");
        put_string(f, c->string ? c->string : "");
        fputc(':', f);
        if (is_empty_container(c)) {
            fputs(cJSON_IsObject(c) ? " {}\n" : " []\n", f);
        } else if (cJSON_IsObject(c)) {
            fputc('\n', f);
            put_mapping(f, c, indent + 2, false);
        } else if (cJSON_IsArray(c)) {
            fputc('\n', f);
            put_sequence(f, c, indent, false);
        } else {
            fputc(' ', f);
            put_scalar(f, c);
            fputc('\n', f);
        }
    }
}

ms_rc ms_config_write(const cJSON *doc, bool json, FILE *out) {
    if (json) {
        char *text = cJSON_Print(doc);
        if (!text) return MS_ENOMEM;
        fputs(text, out);
        fputc('\n', out);
        free(text);
    } else if (cJSON_IsObject(doc)) {
        put_mapping(out, doc, 0, false);
    } else {
        put_scalar(out, doc);
        fputc('\n', out);
    }
    return ferror(out) ? MS_EIO : MS_OK;
}
