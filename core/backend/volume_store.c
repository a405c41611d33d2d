/* The volume store: storage objects by kind and key, the assume layer for
 * PVs and PVCs, and the PVs indexed by storage class. */
#include "backend/volume_store.h"

#include <stdlib.h>

#include "base/array.h"
#include "base/map.h"

/* One object's slot: what the API server said, and the assumed object
 * that hides it (NULL when none). PVs also know their place in their
 * class's list. */
typedef struct entry {
    ms_storage_object *api;
    ms_storage_object *assumed;
    ms_str class_;                 /* PVs: the class list this entry is in */
    uint32_t class_pos;
} entry;

typedef struct class_list {
    uint32_t n, cap;
    entry **items;
} class_list;

struct ms_volume_store {
    ms_interner *in;
    ms_map by_key[MS_SK_COUNT];    /* key() -> entry* */
    ms_map pv_classes;             /* class id (0: none) -> class_list* */
    uint64_t generation;
};

static uint64_t key(ms_str namespace_, ms_str name) {
    return (uint64_t)namespace_ << 32 | name;
}

static const ms_storage_object *latest(const entry *e) {
    return e->assumed ? e->assumed : e->api;
}

ms_volume_store *ms_volume_store_new(ms_interner *in) {
    ms_volume_store *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->in = in;
    for (int k = 0; k < MS_SK_COUNT; k++) ms_map_init(&s->by_key[k]);
    ms_map_init(&s->pv_classes);
    return s;
}

void ms_volume_store_free(ms_volume_store *s) {
    if (!s) return;
    uint64_t k;
    void *v;
    for (int kind = 0; kind < MS_SK_COUNT; kind++) {
        for (size_t it = 0; ms_map_next(&s->by_key[kind], &it, &k, &v);) {
            entry *e = v;
            ms_storage_unref(e->api);
            ms_storage_unref(e->assumed);
            free(e);
        }
        ms_map_free(&s->by_key[kind]);
    }
    for (size_t it = 0; ms_map_next(&s->pv_classes, &it, &k, &v);) {
        class_list *l = v;
        free(l->items);
        free(l);
    }
    ms_map_free(&s->pv_classes);
    free(s);
}

/* ---- the class index ---- */

static bool class_add(ms_volume_store *s, entry *e, ms_str class_) {
    class_list *l = ms_map_get(&s->pv_classes, class_);
    if (!l) {
        if (!(l = calloc(1, sizeof *l))) return false;
        if (ms_map_put(&s->pv_classes, class_, l) != 0) {
            free(l);
            return false;
        }
    }
    if (!ms_array_grow((void **)&l->items, &l->cap, l->n + 1, sizeof *l->items)) return false;
    e->class_ = class_;
    e->class_pos = l->n;
    l->items[l->n++] = e;
    return true;
}

static void class_remove(ms_volume_store *s, entry *e) {
    class_list *l = ms_map_get(&s->pv_classes, e->class_);
    if (!l || e->class_pos >= l->n || l->items[e->class_pos] != e) return;
    entry *last = l->items[--l->n];
    l->items[e->class_pos] = last;
    last->class_pos = e->class_pos;
}

/* ---- informer side ---- */

ms_rc ms_volume_store_set(ms_volume_store *s, ms_storage_object *o, bool *existed) {
    if (existed) *existed = false;
    if (o->kind >= MS_SK_COUNT || o->meta.name == MS_STR_NONE) return MS_EINVAL;
    ms_map *m = &s->by_key[o->kind];
    uint64_t k = key(o->meta.namespace_, o->meta.name);
    entry *e = ms_map_get(m, k);
    bool fresh = !e;
    if (fresh) {
        if (!(e = calloc(1, sizeof *e))) return MS_ENOMEM;
        if (ms_map_put(m, k, e) != 0) {
            free(e);
            return MS_ENOMEM;
        }
    }
    if (o->kind == MS_SK_PV && (fresh || e->class_ != o->u.pv.storage_class)) {
        if (!fresh) class_remove(s, e);
        if (!class_add(s, e, o->u.pv.storage_class)) {
            if (fresh) free(ms_map_del(m, k));
            return MS_ENOMEM;
        }
    }
    if (existed) *existed = !fresh;
    /* upstream's assume cache keeps an assumption until the API object is
     * newer than it. */
    if (e->assumed && o->version > e->assumed->version) {
        ms_storage_unref(e->assumed);
        e->assumed = NULL;
    }
    ms_storage_unref(e->api);
    e->api = ms_storage_ref(o);
    s->generation++;
    return MS_OK;
}

ms_rc ms_volume_store_remove(ms_volume_store *s, ms_storage_kind kind, ms_str namespace_,
                             ms_str name) {
    if ((unsigned)kind >= MS_SK_COUNT) return MS_EINVAL;
    entry *e = ms_map_del(&s->by_key[kind], key(namespace_, name));
    if (!e) return MS_ENOENT;
    if (kind == MS_SK_PV) class_remove(s, e);
    ms_storage_unref(e->api);
    ms_storage_unref(e->assumed);
    free(e);
    s->generation++;
    return MS_OK;
}

/* ---- lookups ---- */

static entry *find(const ms_volume_store *s, ms_storage_kind kind, ms_str namespace_, ms_str name) {
    if (!s || (unsigned)kind >= MS_SK_COUNT || !s->by_key[kind].len) return NULL;
    return ms_map_get(&s->by_key[kind], key(namespace_, name));
}

const ms_storage_object *ms_volume_store_get(const ms_volume_store *s, ms_storage_kind kind,
                                             ms_str namespace_, ms_str name) {
    entry *e = find(s, kind, namespace_, name);
    return e ? latest(e) : NULL;
}

const ms_storage_object *ms_volume_store_api_get(const ms_volume_store *s, ms_storage_kind kind,
                                                 ms_str namespace_, ms_str name) {
    entry *e = find(s, kind, namespace_, name);
    return e ? e->api : NULL;
}

uint32_t ms_volume_store_count(const ms_volume_store *s, ms_storage_kind kind) {
    return s && (unsigned)kind < MS_SK_COUNT ? (uint32_t)s->by_key[kind].len : 0;
}

const ms_storage_object *ms_volume_store_next(const ms_volume_store *s, ms_storage_kind kind,
                                              size_t *it) {
    uint64_t k;
    void *v;
    if (!s || (unsigned)kind >= MS_SK_COUNT || !ms_map_next(&s->by_key[kind], it, &k, &v)) return NULL;
    return latest(v);
}

uint32_t ms_volume_store_class_pvs(const ms_volume_store *s, ms_str class_,
                                   const ms_storage_object **out, uint32_t cap) {
    const class_list *l = s ? ms_map_get(&s->pv_classes, class_) : NULL;
    if (!l) return 0;
    for (uint32_t i = 0; i < l->n && i < cap; i++) out[i] = latest(l->items[i]);
    return l->n;
}

/* ---- the assume layer ---- */

ms_rc ms_volume_store_assume(ms_volume_store *s, ms_storage_object *o) {
    entry *e = find(s, (ms_storage_kind)o->kind, o->meta.namespace_, o->meta.name);
    if (!e) return MS_ENOENT;
    if (o->version < latest(e)->version) return MS_ESTATE;
    ms_storage_unref(e->assumed);
    e->assumed = ms_storage_ref(o);
    s->generation++;
    return MS_OK;
}

void ms_volume_store_restore(ms_volume_store *s, ms_storage_kind kind, ms_str namespace_,
                             ms_str name) {
    entry *e = find(s, kind, namespace_, name);
    if (!e || !e->assumed) return;
    ms_storage_unref(e->assumed);
    e->assumed = NULL;
    s->generation++;
}

bool ms_volume_store_is_assumed(const ms_volume_store *s, ms_storage_kind kind,
                                ms_str namespace_, ms_str name) {
    entry *e = find(s, kind, namespace_, name);
    return e && e->assumed;
}

uint64_t ms_volume_store_generation(const ms_volume_store *s) { return s ? s->generation : 0; }
