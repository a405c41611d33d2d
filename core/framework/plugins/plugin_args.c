#include "plugin_args.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *json_kind(const cJSON *j) {
    if (!j) return "nothing";
    if (cJSON_IsNull(j)) return "null";
    if (cJSON_IsBool(j)) return "boolean";
    if (cJSON_IsNumber(j)) return "number";
    if (cJSON_IsString(j)) return "string";
    if (cJSON_IsArray(j)) return "array";
    return "object";
}

ms_rc ms_args_check_object(const cJSON *obj, const char *const *allowed, const char *plugin,
                           const char *path, ms_error *err) {
    if (!cJSON_IsObject(obj))
        return ms_error_set(err, MS_EINVAL, "%s args: %s: expected an object, got %s", plugin,
                            path && *path ? path : "args", json_kind(obj));
    for (const cJSON *f = obj->child; f; f = f->next) {
        bool known = strcmp(f->string, "apiVersion") == 0 || strcmp(f->string, "kind") == 0;
        for (const char *const *a = allowed; !known && *a; a++) known = strcmp(f->string, *a) == 0;
        if (!known)
            return ms_error_set(err, MS_EINVAL, "%s args: %s%s%s: unknown field", plugin,
                                path && *path ? path : "", path && *path ? "." : "", f->string);
    }
    return MS_OK;
}

ms_rc ms_args_int(const cJSON *j, const char *plugin, const char *path, int64_t *out,
                  ms_error *err) {
    if (!cJSON_IsNumber(j))
        return ms_error_set(err, MS_EINVAL, "%s args: %s: expected an integer, got %s", plugin,
                            path, json_kind(j));
    double d = j->valuedouble;
    if (d != floor(d) || d < -4.6e18 || d > 4.6e18)
        return ms_error_set(err, MS_EINVAL, "%s args: %s: Invalid value: %g: not an integer",
                            plugin, path, d);
    *out = (int64_t)d;
    return MS_OK;
}

ms_rc ms_args_list(const cJSON *j, const char *plugin, const char *path, int *n, ms_error *err) {
    *n = 0;
    if (!j || cJSON_IsNull(j)) return MS_OK;
    if (!cJSON_IsArray(j))
        return ms_error_set(err, MS_EINVAL, "%s args: %s: expected a list, got %s", plugin, path,
                            json_kind(j));
    *n = cJSON_GetArraySize(j);
    return MS_OK;
}

ms_rc ms_args_string(const cJSON *j, const char *plugin, const char *path, const char **out,
                     ms_error *err) {
    if (!cJSON_IsString(j))
        return ms_error_set(err, MS_EINVAL, "%s args: %s: expected a string, got %s", plugin,
                            path, json_kind(j));
    *out = j->valuestring;
    return MS_OK;
}
