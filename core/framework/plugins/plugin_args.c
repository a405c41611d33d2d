/* Plugin args read through the JSON reader, in upstream's words for them. */
#include "plugin_args.h"

#include <cJSON.h>
#include <stdio.h>
#include <string.h>

#include "codec/json_reader.h"

static const ms_json_wording args_wording = {
    .expect = "expected %s",
    .kind = {"an object", "a list", "a string", "a boolean", "an integer", "a number"},
    .say_found = true,
    .not_integer = "Invalid value: %s: not an integer",
    .out_of_range = "Invalid value: %s: not an integer",
    .quote_number = true,
    .number_format = "%g",
};

/* Integers well inside int64, so that weights and skews can be added. */
#define ARGS_INT_MAX 4600000000000000000LL

typedef struct args_reader {
    ms_json_reader r;
    char subject[96];
} args_reader;

static void reader_at(args_reader *a, const char *plugin, const char *path, ms_error *err) {
    ms_json_reader_init(&a->r, &args_wording, err);
    snprintf(a->subject, sizeof a->subject, "%s args", plugin);
    a->r.subject = a->subject;
    ms_json_set_path(&a->r, path);
}

/* A value that must be there: absent reads as "got nothing". */
static ms_rc present(args_reader *a, const cJSON *j, ms_json_kind kind) {
    return j ? ms_json_expect(&a->r, NULL, j, kind) : ms_json_type_error(&a->r, NULL, j, kind);
}

ms_rc ms_args_check_object(const cJSON *obj, const char *const *allowed, const char *plugin,
                           const char *path, ms_error *err) {
    static const char *const always[] = {"apiVersion", "kind", NULL};
    args_reader a;
    reader_at(&a, plugin, path && *path ? path : "args", err);
    ms_rc rc = present(&a, obj, MS_JSON_OBJECT);
    if (rc != MS_OK) return rc;
    ms_json_set_path(&a.r, path ? path : "");
    for (const cJSON *f = obj->child; f; f = f->next)
        if (!ms_json_name_in(f->string, always) && !ms_json_name_in(f->string, allowed))
            return ms_json_fail(&a.r, f->string, "unknown field");
    return MS_OK;
}

ms_rc ms_args_int(const cJSON *j, const char *plugin, const char *path, int64_t *out,
                  ms_error *err) {
    args_reader a;
    reader_at(&a, plugin, path, err);
    ms_rc rc = present(&a, j, MS_JSON_INTEGER);
    return rc != MS_OK ? rc : ms_json_int(&a.r, NULL, j, -ARGS_INT_MAX, ARGS_INT_MAX, out);
}

ms_rc ms_args_list(const cJSON *j, const char *plugin, const char *path, int *n, ms_error *err) {
    *n = 0;
    if (!j || cJSON_IsNull(j)) return MS_OK;
    args_reader a;
    reader_at(&a, plugin, path, err);
    ms_rc rc = ms_json_expect(&a.r, NULL, j, MS_JSON_ARRAY);
    if (rc == MS_OK) *n = cJSON_GetArraySize(j);
    return rc;
}

ms_rc ms_args_string(const cJSON *j, const char *plugin, const char *path, const char **out,
                     ms_error *err) {
    args_reader a;
    reader_at(&a, plugin, path, err);
    ms_rc rc = present(&a, j, MS_JSON_STRING);
    return rc != MS_OK ? rc : ms_json_string(&a.r, NULL, j, out);
}

ms_rc ms_args_unsupported(const char *plugin, const char *path, const char *value,
                          const char *const *supported, ms_error *err) {
    args_reader a;
    reader_at(&a, plugin, path, err);
    return ms_json_unsupported(&a.r, NULL, value, supported);
}

ms_rc ms_args_invalid(const char *plugin, const char *path, const char *value, const char *why,
                      ms_error *err) {
    args_reader a;
    reader_at(&a, plugin, path, err);
    return ms_json_invalid(&a.r, NULL, value, "%s", why);
}
