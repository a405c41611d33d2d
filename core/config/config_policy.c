/* Lua policies in a profile's configuration: plugins named "lua:NAME",
 * the shape of their pluginConfig args, and adding a policy to a built
 * profile (`--policy FILE`). Loading the policies is policy_set.c's. */
#include "moonsched/config.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static const char *kind_of(const cJSON *j) {
    if (cJSON_IsBool(j)) return "boolean";
    if (cJSON_IsNumber(j) || cJSON_IsRaw(j)) return "number";
    if (cJSON_IsString(j)) return "string";
    if (cJSON_IsArray(j)) return "list";
    if (cJSON_IsObject(j)) return "object";
    return "null";
}

/* A number, also when the YAML reader passed it through as raw text. */
static bool number_of(const cJSON *j, double *out) {
    if (cJSON_IsNumber(j)) {
        *out = j->valuedouble;
        return isfinite(*out);
    }
    if (cJSON_IsRaw(j) && j->valuestring) {
        char *end = NULL;
        *out = strtod(j->valuestring, &end);
        return end != j->valuestring && !*end && isfinite(*out);
    }
    return false;
}

static ms_rc bad_type(ms_error *err, const char *path, const char *field, const char *want,
                      const cJSON *j) {
    return ms_error_set(err, MS_EINVAL, "%s.%s: Invalid type: expected %s, got %s", path, field, want,
                        kind_of(j));
}

static void ms_policy_args_default(ms_policy_args *a) {
    memset(a, 0, sizeof *a);
    a->on_error = -1;
    a->max_failures = -1;
}

ms_rc ms_config_policy_args(const cJSON *args, const char *path, ms_policy_args *out,
                            ms_error *err) {
    if (!path) path = "args";
    static const char *const known[] = {"file", "args", "budgetMs", "memoryLimitMiB", "onError",
                                        "maxConsecutiveFailures", NULL};
    ms_policy_args_default(out);
    if (!args || cJSON_IsNull(args))
        return ms_error_set(err, MS_EINVAL, "%s.file: Required value: the policy's file", path);
    if (!cJSON_IsObject(args))
        return ms_error_set(err, MS_EINVAL, "%s: Invalid type: expected object, got %s", path,
                            kind_of(args));
    /* Args are decoded strictly, as upstream's: a misspelt field is an error. */
    for (const cJSON *f = args->child; f; f = f->next) {
        bool ok = strcmp(f->string, "apiVersion") == 0 || strcmp(f->string, "kind") == 0;
        for (const char *const *k = known; !ok && *k; k++) ok = strcmp(f->string, *k) == 0;
        if (!ok)
            return ms_error_set(err, MS_EINVAL, "%s.%s: Invalid value: unknown field", path, f->string);
    }
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(args, "file");
    if (!j || cJSON_IsNull(j))
        return ms_error_set(err, MS_EINVAL, "%s.file: Required value: the policy's file", path);
    if (!cJSON_IsString(j)) return bad_type(err, path, "file", "string", j);
    if (!*j->valuestring)
        return ms_error_set(err, MS_EINVAL, "%s.file: Required value: the policy's file", path);
    out->file = j->valuestring;

    j = cJSON_GetObjectItemCaseSensitive(args, "args");
    if (j && !cJSON_IsNull(j)) {
        if (!cJSON_IsObject(j)) return bad_type(err, path, "args", "object", j);
        out->args = j;
    }
    double d;
    j = cJSON_GetObjectItemCaseSensitive(args, "budgetMs");
    if (j && !cJSON_IsNull(j)) {
        if (!number_of(j, &d)) return bad_type(err, path, "budgetMs", "number", j);
        if (!(d > 0) || d > 60000)
            return ms_error_set(err, MS_EINVAL,
                                "%s.budgetMs: Invalid value: %g: must be greater than 0 and at most 60000",
                                path, d);
        out->budget = d / 1000.0;
    }
    j = cJSON_GetObjectItemCaseSensitive(args, "memoryLimitMiB");
    if (j && !cJSON_IsNull(j)) {
        if (!number_of(j, &d)) return bad_type(err, path, "memoryLimitMiB", "integer", j);
        if (d != floor(d) || d < 1 || d > 1048576)
            return ms_error_set(err, MS_EINVAL,
                                "%s.memoryLimitMiB: Invalid value: %g: must be an integer between 1 and "
                                "1048576",
                                path, d);
        out->memory = (uint64_t)d << 20;
    }
    j = cJSON_GetObjectItemCaseSensitive(args, "onError");
    if (j && !cJSON_IsNull(j)) {
        if (!cJSON_IsString(j)) return bad_type(err, path, "onError", "string", j);
        if (strcmp(j->valuestring, "reject") == 0) out->on_error = 0;
        else if (strcmp(j->valuestring, "skip") == 0) out->on_error = 1;
        else
            return ms_error_set(err, MS_EINVAL,
                                "%s.onError: Unsupported value: \"%.60s\": supported values: \"reject\", "
                                "\"skip\"",
                                path, j->valuestring);
    }
    j = cJSON_GetObjectItemCaseSensitive(args, "maxConsecutiveFailures");
    if (j && !cJSON_IsNull(j)) {
        if (!number_of(j, &d)) return bad_type(err, path, "maxConsecutiveFailures", "integer", j);
        if (d != floor(d) || d < 0 || d > INT32_MAX)
            return ms_error_set(err, MS_EINVAL,
                                "%s.maxConsecutiveFailures: Invalid value: %g: must be a non-negative "
                                "integer",
                                path, d);
        out->max_failures = (int32_t)d;
    }
    return MS_OK;
}

ms_rc ms_profile_config_add(ms_profile_config *p, const char *name, uint32_t points,
                            int32_t weight, cJSON *args, ms_error *err) {
    size_t len = strlen(name);
    if (len == 0 || len >= sizeof p->plugins[0].name) {
        cJSON_Delete(args);
        return ms_error_set(err, MS_EINVAL, "profile %s: plugin name \"%.80s\" must be 1 to %zu characters",
                            p->scheduler_name, name, sizeof p->plugins[0].name - 1);
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
