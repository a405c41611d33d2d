/* Files of API objects: JSON or YAML, single objects, Lists, streams of
 * documents, handed to a callback one object at a time. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "codec/json_reader.h"
#include "moonsched/decode.h"

#define MAX_LIST_DEPTH 8

typedef struct load {
    ms_object_cb cb;
    void *ctx;
    ms_error *err;
} load;

static bool ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The object's kind; implied_kind comes from a typed list ("PodList" items
 * are Pods, and the API server omits their kind). */
static ms_rc object_kind(load *l, const cJSON *obj, const char *implied_kind, const char **kind) {
    if (!cJSON_IsObject(obj))
        return ms_error_set(l->err, MS_EINVAL, "expected an object, got %s", ms_json_type_name(obj));
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(obj, "kind");
    if (k && !cJSON_IsString(k) && !cJSON_IsNull(k))
        return ms_error_set(l->err, MS_EINVAL, "kind: expected string, got %s", ms_json_type_name(k));
    *kind = cJSON_IsString(k) && *k->valuestring ? k->valuestring : implied_kind;
    if (!*kind) return ms_error_set(l->err, MS_EINVAL, "Object 'Kind' is missing");
    return MS_OK;
}

/* One object, or the items of a List. */
static ms_rc visit(load *l, const cJSON *obj, const char *kind, int depth) {
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(obj, "items");
    bool list = strcmp(kind, "List") == 0 || (ends_with(kind, "List") && cJSON_IsArray(items));
    if (!list) return l->cb(l->ctx, kind, obj, l->err);

    if (depth >= MAX_LIST_DEPTH) return ms_error_set(l->err, MS_EINVAL, "Lists nested too deeply");
    if (!items || cJSON_IsNull(items)) return MS_OK;
    if (!cJSON_IsArray(items))
        return ms_error_set(l->err, MS_EINVAL, "items: expected array, got %s", ms_json_type_name(items));
    char item_kind[128];
    const char *implied = NULL;
    size_t klen = strlen(kind) - 4;
    if (klen > 0 && klen < sizeof item_kind) {
        memcpy(item_kind, kind, klen);
        item_kind[klen] = '\0';
        implied = item_kind;
    }
    size_t i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, items) {
        const char *ik;
        ms_rc rc = MS_OK;
        if (!cJSON_IsNull(it)) {
            /* Decoder errors name the object; structural ones need the
             * item's position. */
            if ((rc = object_kind(l, it, implied, &ik)) != MS_OK) {
                ms_error_prefix(l->err, "items[%zu]", i);
                return rc;
            }
            if ((rc = visit(l, it, ik, depth + 1)) != MS_OK) return rc;
        }
        i++;
    }
    return MS_OK;
}

static bool looks_like_json(const char *buf, size_t len) {
    size_t i = 0;
    if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0) i = 3;
    while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n')) i++;
    return i < len && (buf[i] == '{' || buf[i] == '[');
}

ms_rc ms_load_objects_buffer(const char *source, const char *buf, size_t len, ms_object_cb cb,
                             void *ctx, ms_error *err) {
    cJSON **docs = NULL;
    size_t ndocs = 0;
    ms_rc rc;
    if (looks_like_json(buf, len)) {
        size_t off = len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
        rc = ms_json_parse_stream(buf + off, len - off, &docs, &ndocs, err);
        /* YAML flow style also starts with a brace: give it a chance, but
         * report the JSON error if it is not YAML either. */
        if (rc == MS_EINVAL) {
            ms_error yerr;
            if (ms_yaml_parse(buf, len, &docs, &ndocs, &yerr) == MS_OK) rc = MS_OK;
        }
    } else {
        rc = ms_yaml_parse(buf, len, &docs, &ndocs, err);
    }
    if (rc != MS_OK) {
        ms_error_prefix(err, "%s", source);
        return rc;
    }
    load l = {cb, ctx, err};
    for (size_t i = 0; i < ndocs && rc == MS_OK; i++) {
        const char *kind;
        if (cJSON_IsNull(docs[i])) continue;   /* empty document */
        if ((rc = object_kind(&l, docs[i], NULL, &kind)) == MS_OK) rc = visit(&l, docs[i], kind, 0);
        if (rc != MS_OK) {
            if (ndocs > 1) ms_error_prefix(err, "%s: document %zu", source, i + 1);
            else ms_error_prefix(err, "%s", source);
        }
    }
    for (size_t i = 0; i < ndocs; i++) cJSON_Delete(docs[i]);
    free(docs);
    return rc;
}

#define READ_CHUNK ((size_t)1 << 16)

ms_rc ms_read_file(const char *path, size_t max, char **out, size_t *outlen, ms_error *err) {
    *out = NULL;
    *outlen = 0;
    bool std_in = strcmp(path, "-") == 0;
    const char *name = std_in ? "<stdin>" : path;
    FILE *f = std_in ? stdin : fopen(path, "rb");
    if (!f) return ms_error_set(err, MS_EIO, "%s: %s", path, strerror(errno));
    ms_buf b = {0};
    ms_rc rc = MS_OK;
    for (;;) {
        if (max && b.len >= max) {
            rc = ms_error_set(err, MS_EINVAL, "%s: larger than %zu bytes", name, max);
            break;
        }
        if (!ms_buf_reserve(&b, READ_CHUNK)) {
            rc = ms_error_set(err, MS_ENOMEM, "%s: out of memory", name);
            break;
        }
        size_t got = fread(b.data + b.len, 1, b.cap - b.len - 1, f);   /* -1: the terminating NUL */
        b.len += got;
        if (got == 0) break;
    }
    if (rc == MS_OK && ferror(f)) rc = ms_error_set(err, MS_EIO, "%s: read error", name);
    if (!std_in) fclose(f);
    if (rc != MS_OK) {
        ms_buf_free(&b);
        return rc;
    }
    size_t len = b.len;
    b.data[len] = '\0';
    char *buf = ms_buf_take(&b);
    *out = buf;
    *outlen = len;
    return MS_OK;
}

ms_rc ms_load_objects_file(const char *path, ms_object_cb cb, void *ctx, ms_error *err) {
    char *buf;
    size_t len;
    ms_rc rc = ms_read_file(path, 0, &buf, &len, err);
    if (rc != MS_OK) return rc;
    rc = ms_load_objects_buffer(strcmp(path, "-") == 0 ? "<stdin>" : path, buf, len, cb, ctx, err);
    free(buf);
    return rc;
}
