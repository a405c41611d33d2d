#include "codec/field_set.h"

#include <stdbool.h>
#include <string.h>

/* Sets are a few dozen names; a longer one is suggested from its first
 * MAX_NAMES. */
#define MAX_NAMES 128

typedef struct walk {
    const ms_field_walk *w;
    char path[512];
} walk;

static void object(walk *k, const cJSON *obj, const ms_field *fields, size_t len);

/* Appends sep then s (n bytes) to the path at len: the new length, or 0
 * when the path would not fit (no real path is that long, and such a key
 * is not named at all). Not snprintf: a cluster file has a path per key
 * of every object, and formatting them was most of the walk. */
static size_t append(walk *k, size_t len, char sep, const char *s, size_t n) {
    size_t at = len + (sep != 0);
    if (at + n >= sizeof k->path) return 0;
    if (sep) k->path[len] = sep;
    memcpy(k->path + at, s, n);
    k->path[at + n] = '\0';
    return at + n;
}

static size_t append_index(walk *k, size_t len, unsigned i) {
    char digits[12];
    size_t n = sizeof digits;
    digits[--n] = ']';
    do digits[--n] = (char)('0' + i % 10);
    while ((i /= 10) && n > 1);
    digits[--n] = '[';
    return append(k, len, 0, digits + n, sizeof digits - n);
}

/* Whether c's key came once before it: a key seen three times is one
 * duplicate field, reported once. */
static bool second_occurrence(const cJSON *obj, const cJSON *c) {
    int seen = 0;
    for (const cJSON *d = obj->child; d != c; d = d->next)
        if (d->string && strcmp(d->string, c->string) == 0) seen++;
    return seen == 1;
}

/* A known field's value: an object, or each object of an array. Values of
 * no listed type are walked only for their duplicate keys. */
static void value(walk *k, const cJSON *v, const ms_field *fields, size_t len) {
    if (!fields && !k->w->duplicate) return;
    if (cJSON_IsObject(v)) object(k, v, fields, len);
    if (!cJSON_IsArray(v)) return;
    unsigned i = 0;
    for (const cJSON *e = v->child; e; e = e->next, i++) {
        if (!cJSON_IsObject(e) && !cJSON_IsArray(e)) continue;
        size_t at = append_index(k, len, i);
        if (at) value(k, e, fields, at);
        k->path[len] = '\0';
    }
}

static void object(walk *k, const cJSON *obj, const ms_field *fields, size_t len) {
    const char *names[MAX_NAMES];
    size_t nnames = 0;    /* filled at the first unknown key: most objects have none */
    for (const cJSON *c = obj->child; c; c = c->next) {
        if (!c->string) continue;
        size_t at = append(k, len, len ? '.' : 0, c->string, strlen(c->string));
        if (!at) {
            k->path[len] = '\0';
            continue;
        }
        if (k->w->duplicate && second_occurrence(obj, c)) k->w->duplicate(k->w->ctx, k->path);
        const ms_field *f = fields;
        while (f && f->name && strcmp(f->name, c->string) != 0) f++;
        if (fields && !f->name) {
            for (const ms_field *g = fields + nnames; nnames < MAX_NAMES && g->name; g++) names[nnames++] = g->name;
            k->w->unknown(k->w->ctx, k->path, c->string, names, nnames);
        } else {
            value(k, c, f ? f->fields : NULL, at);
        }
        k->path[len] = '\0';
    }
}

void ms_field_walk_object(const ms_field_walk *w, const cJSON *obj, const ms_field *fields, const char *prefix) {
    if (!cJSON_IsObject(obj)) return;
    walk k = {.w = w};
    size_t n = strlen(prefix);
    if (n && !append(&k, 0, 0, prefix, n)) return;
    object(&k, obj, fields, n);
}
