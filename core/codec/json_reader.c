/* Typed reads of cJSON values with errors that name the field's path. */
#include "codec/json_reader.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/quote.h"
#include "moonsched/decode.h"

/* kube-scheduler's configuration and its extenders: upstream's field.Error
 * text for a value of the wrong type, without the type found. */
const ms_json_wording ms_json_config_wording = {
    .expect = "must be %s",
    .kind = {"an object", "a list", "a string", "true or false", "an integer", "a number"},
    .not_integer = "Invalid value: %s: must be an integer",
    .out_of_range = "Invalid value: %s: must be between %lld and %lld",
    .quote_number = true,
    .bad_number = "Invalid value: %s: must be a number",
    .root = "<root>",
};

/* API objects and label selectors. */
const ms_json_wording ms_json_object_wording = {
    .expect = "expected %s",
    .kind = {"object", "array", "string", "boolean", "integer", "number"},
    .say_found = true,
    .not_integer = "Invalid value: %s: expected an integer in [%lld, %lld]",
    .out_of_range = "Invalid value: %s: expected an integer in [%lld, %lld]",
    .quote_number = true,
};

void ms_json_reader_init(ms_json_reader *r, const ms_json_wording *w, ms_error *err) {
    r->err = err;
    r->w = w;
    r->subject = NULL;
    r->subject_fn = NULL;
    r->warn = NULL;
    r->warn_ctx = NULL;
    r->source = NULL;
    r->plen = 0;
    r->path[0] = '\0';
}

/* ---- the path ---- */

static void path_append(ms_json_reader *r, const char *s, size_t n) {
    size_t room = sizeof r->path - 1 - r->plen;
    if (n > room) n = room;
    memcpy(r->path + r->plen, s, n);
    r->plen += n;
    r->path[r->plen] = '\0';
}

size_t ms_json_push(ms_json_reader *r, const char *key) {
    size_t old = r->plen;
    if (r->plen) path_append(r, ".", 1);
    path_append(r, key, strlen(key));
    return old;
}

size_t ms_json_push_index(ms_json_reader *r, size_t i) {
    size_t old = r->plen;
    char buf[24];
    char *p = buf + sizeof buf;
    *--p = ']';
    do {
        *--p = (char)('0' + i % 10);
        i /= 10;
    } while (i);
    *--p = '[';
    path_append(r, p, (size_t)(buf + sizeof buf - p));
    return old;
}

void ms_json_set_path(ms_json_reader *r, const char *text) {
    r->plen = 0;
    r->path[0] = '\0';
    path_append(r, text, strlen(text));
}

/* ---- errors ---- */

static void subject(const ms_json_reader *r, char *buf, size_t n) {
    buf[0] = '\0';
    if (r->subject_fn)
        r->subject_fn(r, buf, n);
    else if (r->subject)
        snprintf(buf, n, "%s", r->subject);
}

ms_rc ms_json_fail(ms_json_reader *r, const char *key, const char *fmt, ...) {
    if (!r->err) return MS_EINVAL;
    char who[160], msg[400];
    subject(r, who, sizeof who);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *sep = *who ? ": " : "";
    if (!r->plen && !key && !r->w->root) return ms_error_set(r->err, MS_EINVAL, "%s%s%s", who, sep, msg);
    const char *path = r->plen ? r->path : key ? "" : r->w->root;
    return ms_error_set(r->err, MS_EINVAL, "%s%s%s%s%s: %s", who, sep, path, r->plen && key ? "." : "",
                        key ? key : "", msg);
}

ms_rc ms_json_invalid(ms_json_reader *r, const char *key, const char *value, const char *why_fmt, ...) {
    char q[MS_QUOTE_SIZE], why[400];
    va_list ap;
    va_start(ap, why_fmt);
    vsnprintf(why, sizeof why, why_fmt, ap);
    va_end(ap);
    return ms_json_fail(r, key, "Invalid value: %s: %s", ms_quote(q, value), why);
}

ms_rc ms_json_unsupported(ms_json_reader *r, const char *key, const char *value,
                          const char *const *supported) {
    char q[MS_QUOTE_SIZE], list[256] = "";
    size_t n = 0;
    for (; supported && *supported && n < sizeof list; supported++) {
        int w = snprintf(list + n, sizeof list - n, "%s\"%s\"", n ? ", " : ": supported values: ", *supported);
        if (w < 0) break;
        n += (size_t)w;
    }
    return ms_json_fail(r, key, "Unsupported value: %s%s", ms_quote(q, value), list);
}

void ms_json_warn(const ms_json_reader *r, const char *fmt, ...) {
    if (!r->warn) return;
    char msg[1024];
    int n = snprintf(msg, sizeof msg, "%s: ", r->source ? r->source : "config");
    if (n < 0 || (size_t)n >= sizeof msg) n = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
    va_end(ap);
    r->warn(r->warn_ctx, msg);
}

ms_rc ms_json_nomem(ms_json_reader *r) {
    char who[160];
    subject(r, who, sizeof who);
    return ms_error_set(r->err, MS_ENOMEM, "%s%sout of memory", who, *who ? ": " : "");
}

/* ---- lookup and types ---- */

const cJSON *ms_json_get(const cJSON *obj, const char *key) {
    const cJSON *found = NULL;
    for (const cJSON *c = obj ? obj->child : NULL; c; c = c->next)
        if (c->string && strcmp(c->string, key) == 0) found = c;
    return cJSON_IsNull(found) ? NULL : found;
}

const char *ms_json_type_name(const cJSON *j) {
    if (!j) return "nothing";
    switch (j->type & 0xff) {
    case cJSON_False:
    case cJSON_True: return "boolean";
    case cJSON_NULL: return "null";
    case cJSON_Number: return "number";
    case cJSON_String: return "string";
    case cJSON_Array: return "array";
    case cJSON_Object: return "object";
    case cJSON_Raw: return "raw";
    }
    return "invalid";
}

bool ms_json_name_in(const char *name, const char *const *names) {
    for (; *names; names++)
        if (strcmp(*names, name) == 0) return true;
    return false;
}

ms_rc ms_json_type_error(ms_json_reader *r, const char *key, const cJSON *j, ms_json_kind kind) {
    char want[80];
    snprintf(want, sizeof want, r->w->expect, r->w->kind[kind]);
    if (!r->w->say_found) return ms_json_fail(r, key, "%s", want);
    const char *found = ms_json_type_name(j);
    if (cJSON_IsArray(j) && r->w->array_name) found = r->w->array_name;
    return ms_json_fail(r, key, "%s, got %s", want, found);
}

/* ---- numbers ---- */

/* Exact integer text: [-+]?[0-9]+, 0x.., 0o.. (YAML 1.2 core schema). */
static bool integer_text(const char *s, int64_t *out) {
    bool neg = false;
    const char *p = s;
    if (*p == '-' || *p == '+') neg = *p++ == '-';
    unsigned base = 10;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'o') && !neg && p == s) {
        base = p[1] == 'x' ? 16 : 8;
        p += 2;
    }
    if (!*p) return false;
    uint64_t v = 0;
    for (; *p; p++) {
        unsigned dgt;
        if (*p >= '0' && *p <= '9') dgt = (unsigned)(*p - '0');
        else if (base == 16 && *p >= 'a' && *p <= 'f') dgt = (unsigned)(*p - 'a' + 10);
        else if (base == 16 && *p >= 'A' && *p <= 'F') dgt = (unsigned)(*p - 'A' + 10);
        else return false;
        if (dgt >= base) return false;
        if (v > (UINT64_MAX - dgt) / base) return false;
        v = v * base + dgt;
    }
    if (neg) {
        if (v > (uint64_t)INT64_MAX + 1) return false;
        *out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
    } else {
        if (v > (uint64_t)INT64_MAX) return false;
        *out = (int64_t)v;
    }
    return true;
}

/* A number's double; raw text is parsed. False when it does not parse. */
static bool number_value(const cJSON *j, double *out) {
    if (cJSON_IsNumber(j)) {
        *out = j->valuedouble;
        return true;
    }
    char *end = NULL;
    *out = strtod(j->valuestring, &end);
    return end != j->valuestring && !*end;
}

typedef enum { INT_OK, INT_FRACTION, INT_RANGE } int_class;

static int_class int_value(const cJSON *j, int64_t *out) {
    if (j->valuestring && integer_text(j->valuestring, out)) return INT_OK;
    double d;
    if (!number_value(j, &d) || !isfinite(d) || floor(d) != d) return INT_FRACTION;
    /* 2^63 itself compares equal to (double)INT64_MAX */
    if (d < -9223372036854775808.0 || d >= 9223372036854775808.0) return INT_RANGE;
    *out = (int64_t)d;
    return INT_OK;
}

bool ms_json_integer(const cJSON *j, int64_t min, int64_t max, int64_t *out) {
    int64_t v;
    if (!cJSON_IsNumber(j) || int_value(j, &v) != INT_OK || v < min || v > max) return false;
    *out = v;
    return true;
}

static const char *number_text(const ms_json_reader *r, const cJSON *j, char *buf, size_t n) {
    if (!r->w->number_format && j->valuestring) return j->valuestring;
    double d = 0;
    if (!number_value(j, &d)) return j->valuestring;
    snprintf(buf, n, r->w->number_format ? r->w->number_format : "%.17g", d);
    return buf;
}

static ms_rc bad_int(ms_json_reader *r, const char *key, const cJSON *j, const char *fmt, int64_t min,
                     int64_t max) {
    if (!r->w->quote_number) return ms_json_fail(r, key, fmt, (long long)min, (long long)max);
    char buf[64];
    return ms_json_fail(r, key, fmt, number_text(r, j, buf, sizeof buf), (long long)min, (long long)max);
}

ms_rc ms_json_int(ms_json_reader *r, const char *key, const cJSON *j, int64_t min, int64_t max,
                  int64_t *out) {
    ms_rc rc = ms_json_expect(r, key, j, MS_JSON_INTEGER);
    if (rc != MS_OK || !j) return rc;
    int64_t v;
    int_class c = int_value(j, &v);
    if (c == INT_FRACTION) return bad_int(r, key, j, r->w->not_integer, min, max);
    if (c == INT_RANGE || v < min || v > max) return bad_int(r, key, j, r->w->out_of_range, min, max);
    *out = v;
    return MS_OK;
}

ms_rc ms_json_number(ms_json_reader *r, const char *key, const cJSON *j, ms_json_kind kind, double *out) {
    ms_rc rc = ms_json_expect(r, key, j, kind);
    if (rc != MS_OK || !j) return rc;
    double d;
    if (!number_value(j, &d) || !isfinite(d)) {
        if (!r->w->bad_number) return ms_json_type_error(r, key, j, kind);
        char buf[64];
        return ms_json_fail(r, key, r->w->bad_number, number_text(r, j, buf, sizeof buf));
    }
    *out = d;
    return MS_OK;
}
