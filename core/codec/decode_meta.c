/* The decoder's shared pieces: field access with error paths, ObjectMeta,
 * timestamps, quantities and resource lists. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/validation.h"
#include "base/array.h"
#include "base/map.h"
#include "base/quantity.h"
#include "base/quote.h"
#include "codec/decode_internal.h"
#include "moonsched/pod.h"
#include "moonsched/decode.h"

void ms_decoder_init(ms_decoder *d, ms_interner *in) {
    d->in = in;
    ms_resource_names_init(&d->rn, in);
    d->default_scheduler = ms_intern_cstr(in, MS_DEFAULT_SCHEDULER_NAME);
    d->keep_raw = false;
}

/* ---- RFC 3339 ---- */

static bool digits(const char *s, int n, int *out) {
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
}

/* Days since 1970-01-01 of a proleptic Gregorian date. */
static int64_t days_from_civil(int64_t y, int m, int d) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static int days_in_month(int y, int m) {
    static const int dm[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0)) return 29;
    return dm[m - 1];
}

ms_rc ms_parse_rfc3339(const char *s, double *out) {
    int Y, M, D, h, mi, sec;
    size_t len = strlen(s);
    if (len < 20 || !digits(s, 4, &Y) || s[4] != '-' || !digits(s + 5, 2, &M) || s[7] != '-' ||
        !digits(s + 8, 2, &D) || (s[10] != 'T' && s[10] != 't') || !digits(s + 11, 2, &h) ||
        s[13] != ':' || !digits(s + 14, 2, &mi) || s[16] != ':' || !digits(s + 17, 2, &sec))
        return MS_EINVAL;
    if (M < 1 || M > 12 || D < 1 || D > days_in_month(Y, M) || h > 23 || mi > 59 || sec > 59)
        return MS_EINVAL;
    const char *p = s + 19;
    double frac = 0, scale = 0.1;
    if (*p == '.') {
        p++;
        if (*p < '0' || *p > '9') return MS_EINVAL;
        while (*p >= '0' && *p <= '9') {
            frac += (*p - '0') * scale;
            scale /= 10;
            p++;
        }
    }
    int offset = 0;
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int oh, om;
        if (!digits(p + 1, 2, &oh) || p[3] != ':' || !digits(p + 4, 2, &om) || oh > 23 || om > 59)
            return MS_EINVAL;
        offset = (oh * 60 + om) * 60 * (*p == '-' ? -1 : 1);
        p += 6;
    } else {
        return MS_EINVAL;
    }
    if (*p) return MS_EINVAL;
    int64_t t = days_from_civil(Y, M, D) * 86400 + h * 3600 + mi * 60 + sec - offset;
    *out = (double)t + frac;
    return MS_OK;
}

/* ---- numbers and quantities ---- */

const char *ms_json_quantity_text(const cJSON *j, char *buf, size_t n) {
    if (cJSON_IsString(j)) return j->valuestring;
    if (!cJSON_IsNumber(j)) return NULL;
    if (j->valuestring) return j->valuestring;
    /* A JSON number has lost its text: use the shortest form that reads back
     * as the same double, which is the text it was written with unless it
     * had redundant digits. */
    double d = j->valuedouble;
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, d);
        if (strtod(buf, NULL) == d) break;
    }
    return buf;
}

ms_rc ms_json_quantity(const cJSON *j, int64_t *value, int64_t *milli, const char *field,
                       ms_error *err) {
    char buf[64];
    const char *text = ms_json_quantity_text(j, buf, sizeof buf);
    if (!text)
        return ms_error_set(err, MS_EINVAL, "%s: expected a quantity (string or number), got %s",
                            field, ms_json_type_name(j));
    ms_quantity q;
    ms_rc rc = ms_quantity_parse_cstr(text, &q, err);
    if (rc != MS_OK) {
        char qt[MS_QUOTE_SIZE];
        ms_error_prefix(err, "%s: %s", field, ms_quote(qt, text));
        return rc;
    }
    if (value) *value = q.value;
    if (milli) *milli = q.milli;
    return MS_OK;
}

/* ---- the object being decoded ---- */

static void object_id(const ms_json_reader *r, char *buf, size_t n) {
    const ms_dec *x = (const ms_dec *)r;
    if (!x->name || !*x->name)
        snprintf(buf, n, "%s (no name)", x->kind);
    else if (x->ns)
        snprintf(buf, n, "%s %s/%s", x->kind, x->ns, x->name);
    else
        snprintf(buf, n, "%s %s", x->kind, x->name);
}

void ms_dec_init(ms_dec *x, const ms_decoder *d, ms_arena *a, ms_error *err, const char *kind) {
    ms_json_reader_init(&x->r, &ms_json_object_wording, err);
    x->r.subject_fn = object_id;
    x->d = d;
    x->a = a;
    x->kind = kind;
    x->ns = NULL;
    x->name = NULL;
    x->counted_name = false;
}

ms_rc ms_dec_wrap(ms_dec *x, ms_rc rc) {
    char id[160];
    object_id(&x->r, id, sizeof id);
    ms_error_prefix(x->r.err, "%s", id);
    return rc;
}

/* ---- typed access ---- */

void ms_obj_scan(ms_obj *o, const cJSON *j) {
    o->j = j;
    o->rest = NULL;
    o->n = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, j) {
        if (o->n == MS_OBJ_MAX) {
            o->rest = c;
            break;
        }
        o->kid[o->n].len = c->string ? strlen(c->string) : SIZE_MAX;
        o->kid[o->n].v = c;
        o->n++;
    }
}

static const cJSON *child(const ms_obj *parent, const char *key) {
    const cJSON *c = ms_obj_get(parent, key);
    return c && !cJSON_IsNull(c) ? c : NULL;
}

ms_rc ms_dec_object(ms_dec *x, const ms_obj *parent, const char *key, ms_obj *out) {
    const cJSON *c = child(parent, key);
    ms_obj_scan(out, NULL);
    ms_rc rc = ms_json_expect(&x->r, key, c, MS_JSON_OBJECT);
    if (rc == MS_OK && c) ms_obj_scan(out, c);
    return rc;
}

/* A map field (labels, resource lists): iterated whole, so not indexed. */
static ms_rc get_map(ms_dec *x, const ms_obj *parent, const char *key, const cJSON **out) {
    *out = child(parent, key);
    ms_rc rc = ms_json_expect(&x->r, key, *out, MS_JSON_OBJECT);
    if (rc != MS_OK) *out = NULL;
    return rc;
}

ms_rc ms_dec_array(ms_dec *x, const ms_obj *parent, const char *key, const cJSON **out) {
    *out = child(parent, key);
    ms_rc rc = ms_json_expect(&x->r, key, *out, MS_JSON_ARRAY);
    if (rc != MS_OK) *out = NULL;
    return rc;
}

ms_rc ms_dec_string(ms_dec *x, const ms_obj *parent, const char *key, const char **out) {
    *out = NULL;
    return ms_json_string(&x->r, key, child(parent, key), out);
}

ms_rc ms_dec_bool(ms_dec *x, const ms_obj *parent, const char *key, bool *out, bool *present) {
    const cJSON *c = child(parent, key);
    if (present) *present = c != NULL;
    *out = false;
    return ms_json_bool(&x->r, key, c, out);
}

ms_rc ms_dec_int(ms_dec *x, const ms_obj *parent, const char *key, int64_t min, int64_t max,
                 int64_t *out, bool *present) {
    const cJSON *c = child(parent, key);
    if (present) *present = c != NULL;
    *out = 0;
    return ms_json_int(&x->r, key, c, min, max, out);
}

/* An arena array of `size`-byte items, one per member of c (a list or a
 * map); NULL when there are none. */
static ms_rc new_items(ms_dec *x, ms_arena *a, const cJSON *c, size_t size, void **items) {
    int count = cJSON_GetArraySize(c);
    *items = count ? ms_arena_alloc(a, (size_t)count * size) : NULL;
    return count && !*items ? ms_json_nomem(&x->r) : MS_OK;
}

static ms_rc intern_text(ms_dec *x, const char *s, ms_str *out) {
    *out = ms_intern_cstr(x->d->in, s);
    return *out == MS_STR_NONE ? ms_json_nomem(&x->r) : MS_OK;
}

ms_rc ms_dec_str_id(ms_dec *x, const ms_obj *parent, const char *key, bool empty_is_none,
                    ms_str *out) {
    const char *s;
    ms_rc rc = ms_dec_string(x, parent, key, &s);
    *out = MS_STR_NONE;
    if (rc != MS_OK || !s || (empty_is_none && !*s)) return rc;
    return intern_text(x, s, out);
}

ms_rc ms_dec_dns_name(ms_dec *x, const ms_obj *parent, const char *key, bool label, ms_str *out) {
    const char *v;
    ms_rc rc = ms_dec_string(x, parent, key, &v);
    *out = MS_STR_NONE;
    if (rc != MS_OK || !v || !*v) return rc;
    size_t n = strlen(v);
    const char *why = label ? ms_dns1123_label_problem(v, n) : ms_dns1123_subdomain_problem(v, n);
    if (why) return ms_json_invalid(&x->r, key, v, "%s", why);
    return intern_text(x, v, out);
}

ms_rc ms_dec_str_list(ms_dec *x, const ms_obj *parent, const char *key, uint32_t *n, ms_str **out) {
    const cJSON *arr;
    void *mem = NULL;
    ms_rc rc = ms_dec_array(x, parent, key, &arr);
    *n = 0;
    *out = NULL;
    if (rc != MS_OK || (rc = new_items(x, x->a, arr, sizeof **out, &mem)) != MS_OK || !mem) return rc;
    ms_str *ids = mem;
    size_t saved = ms_json_push(&x->r, key);
    uint32_t i = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, arr) {
        if (!cJSON_IsString(c)) {
            ms_json_push_index(&x->r, i);
            return ms_json_type_error(&x->r, NULL, c, MS_JSON_STRING);
        }
        if ((rc = intern_text(x, c->valuestring, &ids[i])) != MS_OK) return rc;
        i++;
    }
    ms_json_pop(&x->r, saved);
    *n = i;
    *out = ids;
    return MS_OK;
}

ms_rc ms_dec_objects(ms_dec *x, const ms_obj *parent, const char *key, ms_arena *a, size_t size,
                     void **out, uint32_t *n, ms_dec_item_fn item, void *ctx) {
    const cJSON *arr;
    ms_rc rc = ms_dec_array(x, parent, key, &arr);
    *out = NULL;
    *n = 0;
    if (rc != MS_OK || (rc = new_items(x, a, arr, size, out)) != MS_OK || !*out) return rc;
    char *elems = *out;
    size_t saved = ms_json_push(&x->r, key);
    const cJSON *c;
    cJSON_ArrayForEach(c, arr) {
        size_t s2 = ms_json_push_index(&x->r, *n);
        if (!cJSON_IsObject(c)) return ms_json_type_error(&x->r, NULL, c, MS_JSON_OBJECT);
        ms_obj o;
        ms_obj_scan(&o, c);
        if ((rc = item(x, &o, elems + (size_t)*n * size, ctx)) != MS_OK) return rc;
        (*n)++;
        ms_json_pop(&x->r, s2);
    }
    ms_json_pop(&x->r, saved);
    return MS_OK;
}

ms_rc ms_dec_labels(ms_dec *x, const ms_obj *parent, const char *key, ms_labels *out) {
    const cJSON *map;
    void *mem = NULL;
    ms_rc rc = get_map(x, parent, key, &map);
    out->n = 0;
    out->items = NULL;
    if (rc != MS_OK || (rc = new_items(x, x->a, map, sizeof *out->items, &mem)) != MS_OK || !mem) return rc;
    ms_label *items = mem;
    size_t saved = ms_json_push(&x->r, key);
    uint32_t i = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, map) {
        if ((rc = ms_json_expect(&x->r, c->string, c, MS_JSON_STRING)) != MS_OK) return rc;
        if ((rc = intern_text(x, c->string, &items[i].key)) != MS_OK ||
            (rc = intern_text(x, c->valuestring, &items[i].value)) != MS_OK)
            return rc;
        i++;
    }
    ms_json_pop(&x->r, saved);
    out->n = i;
    out->items = items;
    ms_labels_sort(out);
    return MS_OK;
}

const char *const ms_taint_effects[] = {"NoSchedule", "PreferNoSchedule", "NoExecute", NULL};

ms_rc ms_dec_time(ms_dec *x, const ms_obj *parent, const char *key, double *out) {
    const char *s;
    ms_rc rc = ms_dec_string(x, parent, key, &s);
    *out = 0;
    if (rc != MS_OK || !s) return rc;
    if (ms_parse_rfc3339(s, out) != MS_OK)
        return ms_json_invalid(&x->r, key, s, "not an RFC 3339 timestamp");
    return MS_OK;
}

/* ---- ObjectMeta ---- */

static ms_rc dec_annotations(ms_dec *x, const ms_obj *meta, ms_annotations *out) {
    const cJSON *map;
    void *mem = NULL;
    ms_rc rc = get_map(x, meta, "annotations", &map);
    out->n = 0;
    out->items = NULL;
    if (rc != MS_OK || (rc = new_items(x, x->a, map, sizeof *out->items, &mem)) != MS_OK || !mem) return rc;
    ms_annotation *items = mem;
    size_t saved = ms_json_push(&x->r, "annotations");
    uint32_t n = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, map) {
        if ((rc = ms_json_expect(&x->r, c->string, c, MS_JSON_STRING)) != MS_OK) return rc;
        ms_annotation an;
        if ((rc = intern_text(x, c->string, &an.key)) != MS_OK) return rc;
        if (!(an.value = ms_arena_strdup(x->a, c->valuestring))) return ms_json_nomem(&x->r);
        /* Insertion keeps the array sorted by key id; a repeated key keeps
         * the last value, as a JSON decoder into a map does. */
        uint32_t j = n;
        while (j > 0 && items[j - 1].key > an.key) j--;
        if (j > 0 && items[j - 1].key == an.key) {
            items[j - 1] = an;
            continue;
        }
        memmove(&items[j + 1], &items[j], (n - j) * sizeof *items);
        items[j] = an;
        n++;
    }
    ms_json_pop(&x->r, saved);
    out->n = n;
    out->items = items;
    return MS_OK;
}

static ms_rc dec_owner(ms_dec *x, const ms_obj *oc, void *elem, void *ctx) {
    (void)ctx;
    ms_owner_ref *o = elem;
    const char *uid;
    ms_rc rc;
    if ((rc = ms_dec_str_id(x, oc, "apiVersion", true, &o->api_version)) != MS_OK ||
        (rc = ms_dec_str_id(x, oc, "kind", true, &o->kind)) != MS_OK ||
        (rc = ms_dec_str_id(x, oc, "name", true, &o->name)) != MS_OK ||
        (rc = ms_dec_string(x, oc, "uid", &uid)) != MS_OK ||
        (rc = ms_dec_bool(x, oc, "controller", &o->controller, NULL)) != MS_OK)
        return rc;
    if (!(o->uid = ms_arena_strdup(x->a, uid ? uid : ""))) return ms_json_nomem(&x->r);
    return MS_OK;
}

static ms_rc dec_owners(ms_dec *x, const ms_obj *meta, ms_object_meta *m) {
    void *owners;
    ms_rc rc = ms_dec_objects(x, meta, "ownerReferences", x->a, sizeof *m->owners, &owners, &m->nowners,
                              dec_owner, NULL);
    m->owners = owners;
    return rc;
}

ms_rc ms_dec_meta(ms_dec *x, const ms_obj *obj, bool namespaced, ms_object_meta *m) {
    ms_obj mo;
    const ms_obj *meta = &mo;
    const char *name = NULL, *ns = NULL, *uid = NULL, *rv = NULL;
    ms_rc rc;
    if ((rc = ms_dec_object(x, obj, "metadata", &mo)) != MS_OK) return rc;
    if (!mo.j) return ms_json_fail(&x->r, "metadata.name", "Required value");
    /* Name the object before anything else can fail. */
    const cJSON *nj = ms_obj_get(meta, "name"), *sj = ms_obj_get(meta, "namespace");
    if (cJSON_IsString(nj)) x->name = nj->valuestring;
    if (namespaced) x->ns = cJSON_IsString(sj) && *sj->valuestring ? sj->valuestring : "default";
    size_t saved = ms_json_push(&x->r, "metadata");
    if ((rc = ms_dec_string(x, meta, "name", &name)) != MS_OK ||
        (rc = ms_dec_string(x, meta, "namespace", &ns)) != MS_OK ||
        (rc = ms_dec_string(x, meta, "uid", &uid)) != MS_OK ||
        (rc = ms_dec_string(x, meta, "resourceVersion", &rv)) != MS_OK)
        return rc;
    if (!name || !*name) return ms_json_fail(&x->r, "name", "Required value");
    if (x->counted_name) {
        if ((m->name = ms_intern_counted(x->d->in, name, strlen(name))) == MS_STR_NONE)
            return ms_json_nomem(&x->r);
    } else if ((rc = intern_text(x, name, &m->name)) != MS_OK) {
        return rc;
    }
    m->namespace_ = MS_STR_NONE;
    if (namespaced && (rc = intern_text(x, x->ns, &m->namespace_)) != MS_OK) return rc;
    if (!(m->uid = ms_arena_strdup(x->a, uid ? uid : "")) ||
        !(m->resource_version = ms_arena_strdup(x->a, rv ? rv : "")))
        return ms_json_nomem(&x->r);
    if (*m->uid) {
        m->uid_hash = ms_hash_bytes(m->uid, strlen(m->uid));
    } else {
        /* The object's key stands in for a UID (files for simulate may have
         * none): "namespace/name", or "name" for cluster-scoped objects. */
        char key[512];
        int n = namespaced ? snprintf(key, sizeof key, "%s/%s", x->ns, name)
                           : snprintf(key, sizeof key, "%s", name);
        if (n < 0) n = 0;
        if ((size_t)n >= sizeof key) n = (int)sizeof key - 1;
        m->uid_hash = ms_hash_bytes(key, (size_t)n);
    }
    if ((rc = ms_dec_labels(x, meta, "labels", &m->labels)) != MS_OK ||
        (rc = dec_annotations(x, meta, &m->annotations)) != MS_OK ||
        (rc = dec_owners(x, meta, m)) != MS_OK ||
        (rc = ms_dec_time(x, meta, "creationTimestamp", &m->creation)) != MS_OK ||
        (rc = ms_dec_time(x, meta, "deletionTimestamp", &m->deletion)) != MS_OK)
        return rc;
    ms_json_pop(&x->r, saved);
    return MS_OK;
}

/* ---- resource lists ---- */

int ms_rlist_find(const ms_rlist *r, ms_str name) {
    for (uint32_t i = 0; i < r->n; i++)
        if (r->s[i].name == name) return (int)i;
    return -1;
}

int ms_rlist_set(ms_rlist *r, ms_arena *scratch, ms_str name, int64_t value) {
    int i = ms_rlist_find(r, name);
    if (i >= 0) {
        r->s[i].value = value;
        return 0;
    }
    if (r->n == r->cap) {
        uint32_t cap = ms_array_capacity(r->cap, r->n + 1);
        ms_scalar *s = MS_ARENA_NEW(scratch, ms_scalar, cap);
        if (!s) return -1;
        if (r->n) memcpy(s, r->s, r->n * sizeof *s);
        r->s = s;
        r->cap = cap;
    }
    r->s[r->n].name = name;
    r->s[r->n].value = value;
    r->n++;
    return 0;
}

int ms_rlist_add(ms_rlist *dst, ms_arena *scratch, const ms_rlist *src) {
    for (int i = 0; i < MS_RES_NBUILTIN; i++)
        if (ms_rlist_has(src, i)) {
            dst->v[i] = ms_sat_add(dst->v[i], src->v[i]);
            dst->has |= (uint8_t)(1u << i);
        }
    for (uint32_t i = 0; i < src->n; i++) {
        int j = ms_rlist_find(dst, src->s[i].name);
        int64_t base = j >= 0 ? dst->s[j].value : 0;
        if (ms_rlist_set(dst, scratch, src->s[i].name, ms_sat_add(base, src->s[i].value)) != 0)
            return -1;
    }
    return 0;
}

int ms_rlist_max(ms_rlist *dst, ms_arena *scratch, const ms_rlist *src) {
    for (int i = 0; i < MS_RES_NBUILTIN; i++)
        if (ms_rlist_has(src, i) && (!ms_rlist_has(dst, i) || src->v[i] > dst->v[i])) {
            dst->v[i] = src->v[i];
            dst->has |= (uint8_t)(1u << i);
        }
    for (uint32_t i = 0; i < src->n; i++) {
        int j = ms_rlist_find(dst, src->s[i].name);
        if ((j < 0 || src->s[i].value > dst->s[j].value) &&
            ms_rlist_set(dst, scratch, src->s[i].name, src->s[i].value) != 0)
            return -1;
    }
    return 0;
}

static const char *const builtin_names[MS_RES_NBUILTIN] = {
    [MS_RES_CPU] = "cpu",
    [MS_RES_MEMORY] = "memory",
    [MS_RES_EPHEMERAL] = "ephemeral-storage",
    [MS_RES_PODS] = "pods",
};

ms_rc ms_dec_resource_list(ms_dec *x, const ms_obj *parent, const char *key, ms_arena *scratch,
                           ms_rlist *out) {
    const cJSON *map;
    ms_rc rc = get_map(x, parent, key, &map);
    if (rc != MS_OK || !map) return rc;
    size_t saved = ms_json_push(&x->r, key);
    const cJSON *c;
    cJSON_ArrayForEach(c, map) {
        char buf[64];
        const char *text = ms_json_quantity_text(c, buf, sizeof buf);
        if (!text)
            return ms_json_fail(&x->r, c->string, "expected quantity (string or number), got %s",
                                ms_json_type_name(c));
        ms_quantity q;
        ms_error qerr;
        if (ms_quantity_parse_cstr(text, &q, &qerr) != MS_OK) {
            char qt[MS_QUOTE_SIZE];
            return ms_json_fail(&x->r, c->string, "%s: %s", ms_quote(qt, text), qerr.msg);
        }
        out->nraw++;
        int b = -1;
        for (int i = 0; i < MS_RES_NBUILTIN; i++)
            if (strcmp(c->string, builtin_names[i]) == 0) b = i;
        if (b >= 0) {
            out->v[b] = b == MS_RES_CPU ? q.milli : q.value;
            out->has |= (uint8_t)(1u << b);
        } else if (ms_resource_is_scalar_name(c->string)) {
            ms_str id;
            if ((rc = intern_text(x, c->string, &id)) != MS_OK) return rc;
            if (ms_rlist_set(out, scratch, id, q.value) != 0) return ms_json_nomem(&x->r);
        }
    }
    ms_json_pop(&x->r, saved);
    return MS_OK;
}

int ms_rlist_export(const ms_rlist *r, ms_arena *a, ms_resources *out) {
    memcpy(out->v, r->v, sizeof out->v);
    out->nscalar = 0;
    out->cap = 0;
    out->scalar = NULL;
    if (!r->n) return 0;
    ms_scalar *s = MS_ARENA_NEW(a, ms_scalar, r->n);
    if (!s) return -1;
    for (uint32_t i = 0; i < r->n; i++) {
        uint32_t j = i;
        while (j > 0 && s[j - 1].name > r->s[i].name) {
            s[j] = s[j - 1];
            j--;
        }
        s[j] = r->s[i];
    }
    out->scalar = s;
    out->nscalar = r->n;
    return 0;
}

ms_str ms_dec_image_name(ms_dec *x, const char *image) {
    const char *colon = strrchr(image, ':'), *slash = strrchr(image, '/');
    size_t len = strlen(image);
    if (colon && (!slash || colon > slash)) return ms_intern(x->d->in, image, len);
    char stack[256];
    char *buf = len + 8 <= sizeof stack ? stack : malloc(len + 8);
    if (!buf) return MS_STR_NONE;
    memcpy(buf, image, len);
    memcpy(buf + len, ":latest", 7);
    ms_str id = ms_intern(x->d->in, buf, len + 7);
    if (buf != stack) free(buf);
    return id;
}

ms_rc ms_dec_raw(ms_dec *x, const cJSON *obj, const char **raw, size_t *len) {
    *raw = NULL;
    *len = 0;
    if (!x->d->keep_raw) return MS_OK;
    char *text = cJSON_PrintUnformatted(obj);
    if (!text) return ms_json_nomem(&x->r);
    size_t n = strlen(text);
    char *copy = ms_arena_strndup(x->a, text, n);
    free(text);
    if (!copy) return ms_json_nomem(&x->r);
    *raw = copy;
    *len = n;
    return MS_OK;
}
