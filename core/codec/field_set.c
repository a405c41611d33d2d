#include "codec/field_set.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Sets are a few dozen names; a longer one is suggested from its first
 * MAX_NAMES. */
#define MAX_NAMES 128

typedef struct walk {
    const ms_field_walk *w;
    char path[512];
} walk;

static void object(walk *k, const cJSON *obj, const ms_field *fields, size_t len);

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
    int i = 0;
    for (const cJSON *e = v->child; e; e = e->next, i++) {
        if (!cJSON_IsObject(e) && !cJSON_IsArray(e)) continue;
        int n = snprintf(k->path + len, sizeof k->path - len, "[%d]", i);
        if (n > 0 && (size_t)n < sizeof k->path - len) value(k, e, fields, len + (size_t)n);
        k->path[len] = '\0';
    }
}

static void object(walk *k, const cJSON *obj, const ms_field *fields, size_t len) {
    const char *names[MAX_NAMES];
    size_t nnames = 0;    /* filled at the first unknown key: most objects have none */
    for (const cJSON *c = obj->child; c; c = c->next) {
        if (!c->string) continue;
        int n = snprintf(k->path + len, sizeof k->path - len, "%s%s", len ? "." : "", c->string);
        if (n < 0 || (size_t)n >= sizeof k->path - len) {    /* past any real path: not named at all */
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
            value(k, c, f ? f->fields : NULL, len + (size_t)n);
        }
        k->path[len] = '\0';
    }
}

void ms_field_walk_object(const ms_field_walk *w, const cJSON *obj, const ms_field *fields, const char *prefix) {
    if (!cJSON_IsObject(obj)) return;
    walk k = {.w = w};
    int n = snprintf(k.path, sizeof k.path, "%s", prefix);
    if (n < 0 || (size_t)n >= sizeof k.path) return;
    object(&k, obj, fields, (size_t)n);
}
