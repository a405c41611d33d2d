/* Lua policies in a profile's configuration: plugins named "lua:NAME",
 * the shape of their pluginConfig args, and adding a policy to a built
 * profile (`--policy FILE`). Loading the policies is policy_set.c's. */
#include "moonsched/config.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/quote.h"
#include "codec/json_reader.h"

bool ms_config_is_policy(const char *name) {
    return name && strncmp(name, MS_POLICY_PREFIX, sizeof MS_POLICY_PREFIX - 1) == 0;
}

bool ms_config_has_policies(const ms_config *c) {
    for (uint32_t i = 0; i < c->nprofiles; i++)
        for (uint32_t k = 0; k < c->profiles[i].nplugins; k++)
            if (ms_config_is_policy(c->profiles[i].plugins[k].name)) return true;
    return false;
}

bool ms_config_policy_name_valid(const char *name) {
    if (!ms_config_is_policy(name)) return false;
    const char *p = name + sizeof MS_POLICY_PREFIX - 1;
    size_t n = strlen(p);
    if (n == 0 || n > MS_POLICY_NAME_MAX) return false;
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '-' || c == '_' || c == '.';
        if (!ok) return false;
    }
    return true;
}

static const ms_json_wording policy_wording = {
    .expect = "Invalid type: expected %s",
    .kind = {"object", "list", "string", "boolean", "integer", "number"},
    .say_found = true,
    .array_name = "list",
    .number_format = "%g",
};

static void ms_policy_args_default(ms_policy_args *a) {
    memset(a, 0, sizeof *a);
    a->on_error = -1;
    a->max_failures = -1;
}

static ms_rc read_file(ms_json_reader *r, const cJSON *args, ms_policy_args *out) {
    const cJSON *j = ms_json_get(args, "file");
    ms_rc rc = ms_json_string(r, "file", j, &out->file);
    if (rc == MS_OK && (!out->file || !*out->file))
        rc = ms_json_fail(r, "file", "Required value: the policy's file");
    return rc;
}

/* budgetMs, initBudgetMs: milliseconds in (0, 60000], kept in seconds;
 * absent: *out unchanged. */
static ms_rc read_budget(ms_json_reader *r, const cJSON *args, const char *field, double *out) {
    double d;
    const cJSON *j = ms_json_get(args, field);
    ms_rc rc = ms_json_number(r, field, j, MS_JSON_NUMBER, &d);
    if (rc != MS_OK) return rc;
    if (j && (!(d > 0) || d > MS_POLICY_BUDGET_MAX_MS))
        return ms_json_fail(r, field, "Invalid value: %g: must be greater than 0 and at most %d", d,
                            MS_POLICY_BUDGET_MAX_MS);
    if (j) *out = d / 1000.0;
    return MS_OK;
}

static ms_rc read_limits(ms_json_reader *r, const cJSON *args, ms_policy_args *out) {
    double d;
    ms_rc rc = read_budget(r, args, "budgetMs", &out->budget);
    if (rc != MS_OK) return rc;
    if ((rc = read_budget(r, args, "initBudgetMs", &out->init_budget)) != MS_OK) return rc;
    const cJSON *j = ms_json_get(args, "memoryLimitMiB");
    if ((rc = ms_json_number(r, "memoryLimitMiB", j, MS_JSON_INTEGER, &d)) != MS_OK) return rc;
    if (j && (d != floor(d) || d < 1 || d > 1048576))
        return ms_json_fail(r, "memoryLimitMiB",
                            "Invalid value: %g: must be an integer between 1 and 1048576", d);
    if (j) out->memory = (uint64_t)d << 20;
    j = ms_json_get(args, "maxConsecutiveFailures");
    if ((rc = ms_json_number(r, "maxConsecutiveFailures", j, MS_JSON_INTEGER, &d)) != MS_OK) return rc;
    if (j && (d != floor(d) || d < 0 || d > INT32_MAX))
        return ms_json_fail(r, "maxConsecutiveFailures", "Invalid value: %g: must be a non-negative integer",
                            d);
    if (j) out->max_failures = (int32_t)d;
    return MS_OK;
}

/* onError, onLoadError: "reject" 0, "skip" 1; absent: *out unchanged. */
static const char *const reject_or_skip[] = {"reject", "skip", NULL};

static ms_rc read_reject_or_skip(ms_json_reader *r, const cJSON *args, const char *field, int32_t *out) {
    const char *v = NULL;
    ms_rc rc = ms_json_string(r, field, ms_json_get(args, field), &v);
    if (rc != MS_OK || !v) return rc;
    if (strcmp(v, "reject") == 0) *out = 0;
    else if (strcmp(v, "skip") == 0) *out = 1;
    else
        return ms_json_unsupported(r, field, v, reject_or_skip);
    return MS_OK;
}

/* mode: "live" or "shadow". */
static ms_rc read_mode(ms_json_reader *r, const cJSON *args, bool *shadow) {
    static const char *const modes[] = {"live", "shadow", NULL};
    const char *v = NULL;
    ms_rc rc = ms_json_string(r, "mode", ms_json_get(args, "mode"), &v);
    if (rc != MS_OK || !v) return rc;
    if (strcmp(v, "shadow") == 0) *shadow = true;
    else if (strcmp(v, "live") != 0)
        return ms_json_unsupported(r, "mode", v, modes);
    return MS_OK;
}

ms_rc ms_config_policy_args(const cJSON *args, const char *path, ms_policy_args *out,
                            ms_error *err) {
    static const char *const known[] = {"apiVersion", "kind", "file", "args", "budgetMs", "initBudgetMs",
                                        "memoryLimitMiB", "onError", "onLoadError", "maxConsecutiveFailures", "mode", NULL};
    ms_policy_args_default(out);
    ms_json_reader r;
    ms_json_reader_init(&r, &policy_wording, err);
    ms_json_set_path(&r, path ? path : "args");
    if (!args || cJSON_IsNull(args)) return ms_json_fail(&r, "file", "Required value: the policy's file");
    ms_rc rc = ms_json_expect(&r, NULL, args, MS_JSON_OBJECT);
    if (rc != MS_OK) return rc;
    /* Args are decoded strictly, as upstream's: a misspelt field is an error. */
    for (const cJSON *f = args->child; f; f = f->next)
        if (!ms_json_name_in(f->string, known))
            return ms_json_fail(&r, f->string, "Invalid value: unknown field");
    if ((rc = read_file(&r, args, out)) != MS_OK) return rc;
    const cJSON *j = ms_json_get(args, "args");
    if ((rc = ms_json_expect(&r, "args", j, MS_JSON_OBJECT)) != MS_OK) return rc;
    out->args = j;
    if ((rc = read_limits(&r, args, out)) != MS_OK) return rc;
    if ((rc = read_reject_or_skip(&r, args, "onError", &out->on_error)) != MS_OK) return rc;
    if ((rc = read_reject_or_skip(&r, args, "onLoadError", &out->on_load_error)) != MS_OK) return rc;
    return read_mode(&r, args, &out->shadow);
}

bool ms_config_plugin_is_shadow(const ms_plugin_config *pc) {
    if (!ms_config_is_policy(pc->name) || !cJSON_IsObject(pc->args)) return false;
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(pc->args, "mode");
    return cJSON_IsString(m) && strcmp(m->valuestring, "shadow") == 0;
}

ms_rc ms_profile_config_add(ms_profile_config *p, const char *name, uint32_t points,
                            int32_t weight, cJSON *args, ms_error *err) {
    size_t len = strlen(name);
    if (len == 0 || len >= sizeof p->plugins[0].name) {
        cJSON_Delete(args);
        char q[MS_QUOTE_SIZE];
        return ms_error_set(err, MS_EINVAL, "profile %s: plugin name %s must be 1 to %zu characters",
                            p->scheduler_name, ms_quote(q, name), sizeof p->plugins[0].name - 1);
    }
    for (uint32_t i = 0; i < p->nplugins; i++)
        if (strcmp(p->plugins[i].name, name) == 0) {
            cJSON_Delete(args);
            return ms_error_set(err, MS_EINVAL, "profile %s: plugin %s is enabled already",
                                p->scheduler_name, name);
        }
    if (p->nplugins >= MS_MAX_PLUGINS) {
        cJSON_Delete(args);
        return ms_error_set(err, MS_EINVAL, "profile %s: more than %d plugins", p->scheduler_name,
                            MS_MAX_PLUGINS);
    }
    uint8_t idx = (uint8_t)p->nplugins;
    /* The queue has one order: a new QueueSort plugin replaces the old. */
    if (points & (1u << MS_EP_QUEUE_SORT)) {
        for (uint32_t k = 0; k < p->norder[MS_EP_QUEUE_SORT]; k++) {
            ms_plugin_config *old = &p->plugins[p->order[MS_EP_QUEUE_SORT][k]];
            old->points &= ~(1u << MS_EP_QUEUE_SORT);
            old->explicit_points &= ~(1u << MS_EP_QUEUE_SORT);
        }
        p->norder[MS_EP_QUEUE_SORT] = 0;
    }
    ms_plugin_config *pc = &p->plugins[idx];
    memset(pc, 0, sizeof *pc);
    memcpy(pc->name, name, len + 1);
    pc->weight = weight > 0 ? weight : 1;
    pc->args = args;
    pc->points = points;
    for (int ep = 0; ep < MS_EP_COUNT; ep++)
        if (points & (1u << ep)) p->order[ep][p->norder[ep]++] = idx;
    p->nplugins++;
    return MS_OK;
}
