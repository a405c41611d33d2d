/* JSON text to cJSON, with errors that say where the text went wrong. */
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "moonsched/decode.h"

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static size_t skip_space(const char *buf, size_t len, size_t pos) {
    while (pos < len && is_space(buf[pos])) pos++;
    return pos;
}

/* "line L, column C: <what> near `...`" for the byte at pos. */
static ms_rc fail_at(const char *buf, size_t len, size_t pos, const char *what, ms_error *err) {
    size_t line = 1, col = 1;
    for (size_t i = 0; i < pos && i < len; i++) {
        if (buf[i] == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    char near[24];
    size_t n = 0;
    for (size_t i = pos; i < len && n < sizeof near - 1 && buf[i] != '\n'; i++)
        near[n++] = (unsigned char)buf[i] >= 0x20 && (unsigned char)buf[i] < 0x7f ? buf[i] : '?';
    near[n] = '\0';
    if (n == 0)
        return ms_error_set(err, MS_EINVAL, "line %zu, column %zu: %s at end of input", line, col, what);
    return ms_error_set(err, MS_EINVAL, "line %zu, column %zu: %s near `%s`", line, col, what, near);
}

/* One value starting at *pos; *pos moves past it. */
static ms_rc parse_one(const char *buf, size_t len, size_t *pos, cJSON **out, ms_error *err) {
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithLengthOpts(buf + *pos, len - *pos, &end, 0);
    if (!j) {
        size_t at = end && end >= buf + *pos && end <= buf + len ? (size_t)(end - buf) : *pos;
        return fail_at(buf, len, at, "invalid JSON", err);
    }
    *pos = (size_t)(end - buf);
    *out = j;
    return MS_OK;
}

ms_rc ms_json_parse(const char *buf, size_t len, cJSON **out, ms_error *err) {
    *out = NULL;
    size_t pos = skip_space(buf, len, 0);
    if (pos == len) return ms_error_set(err, MS_EINVAL, "empty input: expected a JSON value");
    cJSON *j;
    ms_rc rc = parse_one(buf, len, &pos, &j, err);
    if (rc != MS_OK) return rc;
    pos = skip_space(buf, len, pos);
    if (pos < len && buf[pos] != '\0') {
        cJSON_Delete(j);
        return fail_at(buf, len, pos, "unexpected text after the JSON value", err);
    }
    *out = j;
    return MS_OK;
}

ms_rc ms_json_parse_stream(const char *buf, size_t len, cJSON ***docs, size_t *ndocs, ms_error *err) {
    cJSON **v = NULL;
    uint32_t n = 0, cap = 0;   /* documents: bounded by memory, far below 2^32 */
    size_t pos = skip_space(buf, len, 0);
    ms_rc rc = MS_OK;
    while (pos < len && buf[pos] != '\0') {
        cJSON *j;
        if ((rc = parse_one(buf, len, &pos, &j, err)) != MS_OK) break;
        if (!ms_array_grow((void **)&v, &cap, n + 1, sizeof *v)) {
            cJSON_Delete(j);
            rc = ms_error_set(err, MS_ENOMEM, "out of memory");
            break;
        }
        v[n++] = j;
        pos = skip_space(buf, len, pos);
    }
    if (rc != MS_OK) {
        for (uint32_t i = 0; i < n; i++) cJSON_Delete(v[i]);
        free(v);
        *docs = NULL;
        *ndocs = 0;
        return rc;
    }
    *docs = v;
    *ndocs = n;
    return MS_OK;
}
