/* DeschedulerPolicy (descheduler/v1alpha2) decoding. Upstream decodes,
 * then validates every pluginConfig entry (errors collected per profile:
 * "in profile p: ..."), then builds each profile (an enabled plugin that
 * does not exist at that extension point, or without a pluginConfig entry,
 * fails the profile). The same order, and the same messages, here. */
#include "descheduler/policy.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/yaml.h"
#include "descheduler/args.h"
#include "descheduler/lua_policies.h"
#include "descheduler/plugin.h"
#include "descheduler/strict.h"
#include "moonsched/decode.h"

#define POLICY_MAX_BYTES (4u << 20)

typedef struct decoding {
    ms_desched_policy *p;
    ms_json_reader r;
    ms_interner *in;
    const char *source;
    ms_error *err;
} decoding;

static ms_rc limit(decoding *d, const cJSON *root, const char *key, ms_desched_limit *out) {
    ms_desched_args_ctx c = {.r = &d->r, .a = &d->p->arena, .in = d->in};
    return ms_desched_args_uint(&c, root, key, &out->set, &out->value);
}

/* Upstream decodes strictly: the args of each registered plugin first
 * (while converting), then the policy itself. */
static ms_rc strict(decoding *d, const cJSON *root) {
    const cJSON *prof, *pc;
    ms_rc rc = MS_OK;
    cJSON_ArrayForEach(prof, ms_json_get(root, "profiles")) {
        cJSON_ArrayForEach(pc, ms_json_get(prof, "pluginConfig")) {
            const cJSON *name = ms_json_get(pc, "name");
            if (cJSON_IsString(name) && (rc = ms_desched_strict_args(name->valuestring, ms_json_get(pc, "args"),
                                                                     d->err)) != MS_OK)
                break;
        }
        if (rc != MS_OK) break;
    }
    if (rc == MS_OK) rc = ms_desched_strict_policy(root, d->err);
    if (rc != MS_OK) ms_error_prefix(d->err, "failed decoding descheduler's policy config \"%s\"", d->source);
    return rc;
}

static ms_rc top_level(decoding *d, const cJSON *root) {
    const char *av = NULL, *kind = NULL, *ns = NULL;
    ms_rc rc;
    if ((rc = ms_json_string(&d->r, "apiVersion", ms_json_get(root, "apiVersion"), &av)) != MS_OK ||
        (rc = ms_json_string(&d->r, "kind", ms_json_get(root, "kind"), &kind)) != MS_OK)
        return rc;
    if (!av || !kind)
        return ms_error_set(d->err, MS_EINVAL,
                            "failed decoding descheduler's policy config \"%s\": Object 'Kind' is "
                            "missing in the policy", d->source);
    if (strcmp(av, "descheduler/v1alpha2") != 0 || strcmp(kind, "DeschedulerPolicy") != 0)
        return ms_error_set(d->err, MS_EINVAL,
                            "failed decoding descheduler's policy config \"%s\": no kind \"%s\" is "
                            "registered for version \"%s\" in scheme", d->source, kind, av);
    if ((rc = strict(d, root)) != MS_OK) return rc;
    if ((rc = limit(d, root, "maxNoOfPodsToEvictPerNode", &d->p->max_per_node)) != MS_OK ||
        (rc = limit(d, root, "maxNoOfPodsToEvictPerNamespace", &d->p->max_per_namespace)) != MS_OK ||
        (rc = limit(d, root, "maxNoOfPodsToEvictTotal", &d->p->max_total)) != MS_OK ||
        (rc = ms_json_string(&d->r, "nodeSelector", ms_json_get(root, "nodeSelector"), &ns)) != MS_OK)
        return rc;
    const cJSON *gp = ms_json_get(root, "gracePeriodSeconds");
    if ((rc = ms_json_int(&d->r, "gracePeriodSeconds", gp, 0, INT64_MAX, &d->p->grace_period_seconds)) != MS_OK)
        return rc;
    d->p->has_grace_period = gp != NULL;
    if (ns) {
        d->p->has_node_selector = true;
        if ((rc = ms_label_selector_parse(ns, d->in, &d->p->arena, &d->p->node_selector, d->err)) != MS_OK) {
            ms_error_prefix(d->err, "nodeSelector");
            return rc;
        }
    }
    return MS_OK;
}

/* The pluginConfig entry of a name, or NULL. */
static const cJSON *plugin_config(const cJSON *configs, const char *name) {
    const cJSON *pc;
    cJSON_ArrayForEach(pc, configs) {
        const cJSON *n = ms_json_get(pc, "name");
        if (cJSON_IsString(n) && strcmp(n->valuestring, name) == 0) return pc;
    }
    return NULL;
}

/* Validates every pluginConfig entry of a profile; DefaultEvictor's args
 * go to the profile. Errors: "in profile p: ...". */
static ms_rc plugin_configs(decoding *d, const cJSON *configs, ms_desched_profile *prof) {
    ms_default_evictor_defaults(&prof->evictor);
    if (!configs) return MS_OK;
    ms_desched_args_ctx c = {.r = &d->r, .a = &d->p->arena, .in = d->in};
    size_t saved = ms_json_push(&d->r, "pluginConfig"), i = 0;
    const cJSON *pc;
    ms_rc rc = MS_OK;
    cJSON_ArrayForEach(pc, configs) {
        const char *name = NULL;
        size_t s2 = ms_json_push_index(&d->r, i++);
        if ((rc = ms_json_expect(&d->r, NULL, pc, MS_JSON_OBJECT)) != MS_OK ||
            (rc = ms_json_string(&d->r, "name", ms_json_get(pc, "name"), &name)) != MS_OK)
            return rc;
        const cJSON *args = ms_json_get(pc, "args");
        if ((rc = ms_json_expect(&d->r, "args", args, MS_JSON_OBJECT)) != MS_OK) return rc;
        ms_json_push(&d->r, "args");
        if (name && strcmp(name, "DefaultEvictor") == 0) {
            rc = ms_default_evictor_decode(&c, args, &prof->evictor);
        } else if (name && ms_desched_is_lua(name)) {
            char path[MS_JSON_PATH_MAX + 8];
            snprintf(path, sizeof path, "%s", d->r.path);
            if ((rc = ms_desched_lua_args_check(args, path, name, d->err)) != MS_OK) return rc;
        } else if (name && ms_desched_plugin_find(name)) {
            const ms_desched_plugin_def *def = ms_desched_plugin_find(name);
            void *out = ms_arena_alloc(&d->p->arena, def->args_size);
            if (!out) return ms_json_nomem(&d->r);
            memset(out, 0, def->args_size);
            rc = def->decode(&c, args, out);
        } else {
            const char *near = name ? ms_desched_plugin_suggest(name) : NULL;
            ms_desched_args_invalid(&c, "plugin %s in pluginConfig not registered%s%s%s", name ? name : "",
                                    near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
        }
        if (rc != MS_OK) return rc;
        ms_json_pop(&d->r, s2);
        if (c.nerrs && !c.errs.failed) {
            /* Collected per entry, reported with the profile's name. */
            char prefix[300];
            snprintf(prefix, sizeof prefix, "in profile %s: ", prof->name);
            return ms_desched_args_finish(&c, prefix);
        }
    }
    ms_json_pop(&d->r, saved);
    return ms_desched_args_finish(&c, "");
}

/* plugins.<point>.enabled: each must exist at that point and have a
 * pluginConfig entry; its args are decoded from that entry. */
static ms_rc extension_point(decoding *d, const cJSON *plugins, const cJSON *configs,
                             ms_desched_profile *prof, const char *point, const char *label) {
    const cJSON *set = ms_json_get(plugins, point);
    ms_rc rc = ms_json_expect(&d->r, point, set, MS_JSON_OBJECT);
    if (rc != MS_OK || !set) return rc;
    size_t saved = ms_json_push(&d->r, point);
    ms_desched_args_ctx c = {.r = &d->r, .a = &d->p->arena, .in = d->in};
    ms_desched_strs enabled;
    if ((rc = ms_desched_args_strs(&c, set, "enabled", &enabled)) != MS_OK) return rc;
    ms_json_pop(&d->r, saved);
    bool filter = strcmp(point, "filter") == 0 || strcmp(point, "preEvictionFilter") == 0 ||
                  strcmp(point, "preevictionfilter") == 0;
    for (uint32_t i = 0; i < enabled.n; i++) {
        const char *name = ms_str_get(d->in, enabled.v[i]);
        if (ms_desched_is_lua(name)) {
            if ((rc = ms_desched_lua_enable(d->p, prof, name, plugin_config(configs, name), point, d->in,
                                            d->err)) != MS_OK)
                return rc;
            continue;
        }
        const ms_desched_plugin_def *def = ms_desched_plugin_find(name);
        bool ok = filter ? strcmp(name, "DefaultEvictor") == 0
                         : def && (strcmp(point, "deschedule") == 0 ? def->deschedule : def->balance);
        if (!ok) {
            /* upstream prints the Go map of the names here; one name, and
             * what was meant, say more */
            const char *near = ms_desched_plugin_suggest(name);
            if (!def && strcmp(name, "DefaultEvictor") != 0)
                return ms_error_set(d->err, MS_EINVAL,
                                    "profile \"%s\" configures %s extension point of non-existing plugin \"%s\"%s%s%s",
                                    prof->name, label, name, near ? " (did you mean \"" : "", near ? near : "",
                                    near ? "\"?)" : "");
            const char *is = !def ? "a filter" : def->deschedule ? "a deschedule" : "a balance";
            return ms_error_set(d->err, MS_EINVAL,
                                "profile \"%s\" configures %s extension point of plugin \"%s\", which is %s plugin",
                                prof->name, label, name, is);
        }
        if (filter) continue;
        const cJSON *pc = plugin_config(configs, name);
        if (!pc)
            return ms_error_set(d->err, MS_EINVAL,
                                "unable to create \"%s\" profile: unable to build %s plugin: unable to "
                                "find \"%s\" plugin config", prof->name, name, name);
        bool desched = strcmp(point, "deschedule") == 0;
        uint32_t *n = desched ? &prof->ndeschedule : &prof->nbalance;
        ms_desched_plugin *slot = desched ? prof->deschedule : prof->balance;
        if (*n == MS_DESCHED_MAX_PLUGINS)
            return ms_error_set(d->err, MS_EINVAL, "profile \"%s\": more than %d %s plugins",
                                prof->name, MS_DESCHED_MAX_PLUGINS, label);
        void *args = ms_arena_alloc(&d->p->arena, def->args_size);
        if (!args) return ms_json_nomem(&d->r);
        memset(args, 0, def->args_size);
        if ((rc = def->decode(&c, ms_json_get(pc, "args"), args)) != MS_OK) return rc;
        ms_desched_args_finish(&c, "");
        slot[(*n)++] = (ms_desched_plugin){def, args, NULL};
    }
    return MS_OK;
}

static ms_rc profile(decoding *d, const cJSON *pj, ms_desched_profile *prof) {
    const char *name = NULL;
    ms_rc rc;
    if ((rc = ms_json_expect(&d->r, NULL, pj, MS_JSON_OBJECT)) != MS_OK ||
        (rc = ms_json_string(&d->r, "name", ms_json_get(pj, "name"), &name)) != MS_OK)
        return rc;
    if (!(prof->name = ms_arena_strdup(&d->p->arena, name ? name : ""))) return ms_json_nomem(&d->r);
    const cJSON *configs = ms_json_get(pj, "pluginConfig"), *plugins = ms_json_get(pj, "plugins");
    if ((rc = ms_json_expect(&d->r, "pluginConfig", configs, MS_JSON_ARRAY)) != MS_OK ||
        (rc = ms_json_expect(&d->r, "plugins", plugins, MS_JSON_OBJECT)) != MS_OK ||
        (rc = plugin_configs(d, configs, prof)) != MS_OK)
        return rc;
    if (!plugins) return MS_OK;
    size_t saved = ms_json_push(&d->r, "plugins");
    static const char *const points[][2] = {
        {"deschedule", "deschedule"}, {"balance", "balance"},
        {"filter", "filter"}, {"preevictionfilter", "preEvictionFilter"},
    };
    for (size_t i = 0; i < sizeof points / sizeof points[0]; i++)
        if ((rc = extension_point(d, plugins, configs, prof, points[i][0], points[i][1])) != MS_OK) return rc;
    ms_json_pop(&d->r, saved);
    return MS_OK;
}

static ms_rc profiles(decoding *d, const cJSON *root) {
    const cJSON *list = ms_json_get(root, "profiles");
    ms_rc rc = ms_json_expect(&d->r, "profiles", list, MS_JSON_ARRAY);
    if (rc != MS_OK || !list) return rc;
    int n = cJSON_GetArraySize(list);
    if (!n) return MS_OK;
    if (!(d->p->profiles = MS_ARENA_NEW(&d->p->arena, ms_desched_profile, n))) return ms_json_nomem(&d->r);
    memset(d->p->profiles, 0, sizeof *d->p->profiles * (size_t)n);
    size_t saved = ms_json_push(&d->r, "profiles"), i = 0;
    const cJSON *pj;
    cJSON_ArrayForEach(pj, list) {
        size_t s2 = ms_json_push_index(&d->r, i);
        if ((rc = profile(d, pj, &d->p->profiles[i++])) != MS_OK) return rc;
        d->p->nprofiles++;
        ms_json_pop(&d->r, s2);
    }
    ms_json_pop(&d->r, saved);
    return MS_OK;
}

static ms_rc parse(ms_desched_policy *p, const char *source, const char *text, size_t len,
                   const ms_desched_reader *rd, ms_interner *in, ms_error *err) {
    memset(p, 0, sizeof *p);
    p->reader = rd;
    ms_arena_init(&p->arena, 4096);
    cJSON **docs = NULL;
    size_t ndocs = 0;
    ms_rc rc = ms_yaml_parse(text, len, &docs, &ndocs, err);
    if (rc != MS_OK) {
        if (ms_yaml_duplicate_key(err)) ms_error_prefix(err, "strict decoding error");
        ms_error_prefix(err, "failed decoding descheduler's policy config \"%s\"", source);
        return rc;
    }
    decoding d = {.p = p, .in = in, .source = source, .err = err};
    ms_json_reader_init(&d.r, &ms_json_config_wording, err);
    d.r.source = source;
    if (ndocs != 1 || !cJSON_IsObject(docs[0]))
        rc = ms_error_set(err, MS_EINVAL, "failed decoding descheduler's policy config \"%s\": "
                                          "expected one DeschedulerPolicy object", source);
    else if ((rc = top_level(&d, docs[0])) == MS_OK)
        rc = profiles(&d, docs[0]);
    for (size_t i = 0; i < ndocs; i++) cJSON_Delete(docs[i]);
    free(docs);
    p->reader = NULL;
    if (rc != MS_OK) ms_desched_policy_free(p);
    return rc;
}

ms_rc ms_desched_policy_parse(ms_desched_policy *p, const char *source, const char *text,
                              size_t len, ms_interner *in, ms_error *err) {
    return parse(p, source, text, len, NULL, in, err);
}

ms_rc ms_desched_policy_load_with(ms_desched_policy *p, const char *path, const ms_desched_reader *rd,
                                  ms_interner *in, ms_error *err) {
    char *text = NULL;
    size_t len = 0;
    memset(p, 0, sizeof *p);
    ms_rc rc = rd ? rd->read(rd->ctx, path, &text, &len, err) : ms_read_file(path, POLICY_MAX_BYTES, &text, &len, err);
    if (rc != MS_OK) return rc;
    rc = parse(p, path, text, len, rd, in, err);
    free(text);
    return rc;
}

ms_rc ms_desched_policy_load(ms_desched_policy *p, const char *path, ms_interner *in, ms_error *err) {
    return ms_desched_policy_load_with(p, path, NULL, in, err);
}

void ms_desched_policy_free(ms_desched_policy *p) {
    ms_desched_lua_free(p);
    ms_arena_free(&p->arena);
    memset(p, 0, sizeof *p);
}
