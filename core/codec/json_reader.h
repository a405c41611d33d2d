/* The one typed reader of cJSON trees: the configuration file, the
 * extenders list, plugin and policy args, label selectors and the object
 * decoders read fields through it, and its errors name the field's path
 * ("profiles[0].pluginConfig[1].args.hardPodAffinityWeight: must be an
 * integer"). Each of those speaks to its readers in its own words (upstream's
 * messages differ between the configuration and the API objects), so the
 * words are a table; the path, the type checks and the number rules are
 * here once. */
#ifndef MOONSCHED_CODEC_JSON_READER_H
#define MOONSCHED_CODEC_JSON_READER_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "moonsched/error.h"

typedef enum ms_json_kind {
    MS_JSON_OBJECT,
    MS_JSON_ARRAY,
    MS_JSON_STRING,
    MS_JSON_BOOL,
    MS_JSON_INTEGER,
    MS_JSON_NUMBER,
    MS_JSON_NKINDS,
} ms_json_kind;

/* How one family of messages is worded. */
typedef struct ms_json_wording {
    /* A value of the wrong type: `expect` with the kind's name ("must be
     * %s", "expected %s"), then ", got <type>" when `say_found`. */
    const char *expect;
    const char *kind[MS_JSON_NKINDS];
    bool say_found;
    const char *array_name;        /* what a found array is called; NULL: "array" */
    /* An integer that is a fraction, or past [min, max]. With `quote_number`
     * the format takes the number's text, then min and max (long long);
     * otherwise only min and max. */
    const char *not_integer, *out_of_range;
    bool quote_number;
    /* A number that is not finite ("%s": its text); NULL: a type error. */
    const char *bad_number;
    /* How a number's text is written: NULL, as the YAML reader kept it
     * (else %.17g); otherwise a printf format for its double. */
    const char *number_format;
    /* The path's name when it is empty ("<root>"); NULL: leave it out. */
    const char *root;
} ms_json_wording;

extern const ms_json_wording ms_json_config_wording;   /* "must be an integer" */
extern const ms_json_wording ms_json_object_wording;   /* "expected integer, got string" */

#define MS_JSON_PATH_MAX 512

typedef struct ms_json_reader {
    ms_error *err;
    const ms_json_wording *w;
    const char *subject;           /* written before the path ("NodeAffinity args"), or NULL */
    /* Writes the subject when it is known only when reading fails (a
     * decoded object's name); overrides `subject`. */
    void (*subject_fn)(const struct ms_json_reader *r, char *buf, size_t n);
    /* Where warnings go (unknown fields), as "<source>: <message>". */
    void (*warn)(void *ctx, const char *msg);
    void *warn_ctx;
    const char *source;            /* NULL: "config" */
    size_t plen;
    char path[MS_JSON_PATH_MAX];
} ms_json_reader;

void ms_json_reader_init(ms_json_reader *r, const ms_json_wording *w, ms_error *err);

/* The path: a push returns the length that ms_json_pop restores. */
size_t ms_json_push(ms_json_reader *r, const char *key);
size_t ms_json_push_index(ms_json_reader *r, size_t i);
/* Replaces the path with text (a path a caller built). */
void ms_json_set_path(ms_json_reader *r, const char *text);
static inline void ms_json_pop(ms_json_reader *r, size_t len) {
    r->plen = len;
    r->path[len] = '\0';
}

/* "[subject: ]path[.key]: message". key may be NULL. */
ms_rc ms_json_fail(ms_json_reader *r, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A string value that is wrong, quoted as upstream's field errors quote it
 * (base/quote.h: Go's %q, cut at 64 bytes). field.Invalid:
 * "path.key: Invalid value: \"v\": <why>". */
ms_rc ms_json_invalid(ms_json_reader *r, const char *key, const char *value, const char *why_fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* field.NotSupported: "path.key: Unsupported value: \"v\": supported
 * values: \"a\", \"b\"" (`supported` NULL-terminated; NULL: no list). */
ms_rc ms_json_unsupported(ms_json_reader *r, const char *key, const char *value,
                          const char *const *supported);
/* "<source>: message" to the warn callback, if any. */
void ms_json_warn(const ms_json_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "[subject: ]out of memory". */
ms_rc ms_json_nomem(ms_json_reader *r);

/* obj[key], the last of repeated keys as Go's decoder keeps; JSON null
 * reads as absent, as the API server and kube-scheduler treat it. */
const cJSON *ms_json_get(const cJSON *obj, const char *key);
/* "object", "array", "string", "number", "boolean", "null"; "nothing" for NULL. */
const char *ms_json_type_name(const cJSON *j);
/* Whether name is one of the NULL-terminated names. */
bool ms_json_name_in(const char *name, const char *const *names);

/* Typed reads of j, the value at path.key (key NULL: at the path itself).
 * j NULL is an absent field: MS_OK with *out untouched. A value of another
 * type is an error in the reader's words. */
ms_rc ms_json_type_error(ms_json_reader *r, const char *key, const cJSON *j, ms_json_kind kind);

/* Inline: the decoders read every field of every object through these. */
static inline bool ms_json_is_kind(const cJSON *j, ms_json_kind kind) {
    switch (kind) {
    case MS_JSON_OBJECT: return cJSON_IsObject(j);
    case MS_JSON_ARRAY: return cJSON_IsArray(j);
    case MS_JSON_STRING: return cJSON_IsString(j) && j->valuestring;
    case MS_JSON_BOOL: return cJSON_IsBool(j);
    case MS_JSON_INTEGER:
    case MS_JSON_NUMBER: return cJSON_IsNumber(j) || (cJSON_IsRaw(j) && j->valuestring);
    case MS_JSON_NKINDS: break;
    }
    return false;
}

static inline ms_rc ms_json_expect(ms_json_reader *r, const char *key, const cJSON *j, ms_json_kind kind) {
    return !j || ms_json_is_kind(j, kind) ? MS_OK : ms_json_type_error(r, key, j, kind);
}

static inline ms_rc ms_json_string(ms_json_reader *r, const char *key, const cJSON *j, const char **out) {
    ms_rc rc = ms_json_expect(r, key, j, MS_JSON_STRING);
    if (rc == MS_OK && j) *out = j->valuestring;
    return rc;
}

static inline ms_rc ms_json_bool(ms_json_reader *r, const char *key, const cJSON *j, bool *out) {
    ms_rc rc = ms_json_expect(r, key, j, MS_JSON_BOOL);
    if (rc == MS_OK && j) *out = cJSON_IsTrue(j);
    return rc;
}

/* A number in [min, max] with no fraction: 3.0 and 1e3 are integers (a
 * parsed number no longer says how it was written); YAML's exact text is
 * used when it has it, so integers past 2^53 keep their value. Numbers the
 * YAML reader passed through as raw text are parsed. */
ms_rc ms_json_int(ms_json_reader *r, const char *key, const cJSON *j, int64_t min, int64_t max,
                  int64_t *out);
/* A finite number; `kind` names it in a type error (MS_JSON_INTEGER for a
 * whole number the caller checks with its own message). */
ms_rc ms_json_number(ms_json_reader *r, const char *key, const cJSON *j, ms_json_kind kind, double *out);

#endif
