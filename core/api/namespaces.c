/* Namespaces and the store namespaceSelectors are matched against. */
#include "api/namespace_store.h"

#include <stdlib.h>

ms_namespace *ms_namespace_alloc(void) {
    ms_namespace *ns = calloc(1, sizeof *ns);
    if (!ns) return NULL;
    atomic_init(&ns->refs, 1);
    ms_arena_init(&ns->arena, 512);
    return ns;
}

void ms_namespace_unref(ms_namespace *ns) {
    if (!ns) return;
    if (atomic_fetch_sub_explicit(&ns->refs, 1, memory_order_acq_rel) != 1) return;
    ms_arena_free(&ns->arena);
    free(ns);
}

void ms_namespaces_init(ms_namespaces *s) {
    ms_map_init(&s->by_name);
    s->generation = 0;
}

void ms_namespaces_free(ms_namespaces *s) {
    uint64_t key;
    void *val;
    for (size_t it = 0; ms_map_next(&s->by_name, &it, &key, &val);) ms_namespace_unref(val);
    ms_map_free(&s->by_name);
    s->generation++;
}

ms_rc ms_namespaces_set(ms_namespaces *s, ms_namespace *ns) {
    ms_str name = ns->meta.name;
    if (name == MS_STR_NONE) return MS_EINVAL;
    ms_namespace *old = ms_map_get(&s->by_name, name);
    if (old == ns) return MS_OK;
    if (ms_map_put(&s->by_name, name, ms_namespace_ref(ns)) != 0) {
        ms_namespace_unref(ns);
        return MS_ENOMEM;
    }
    ms_namespace_unref(old);
    s->generation++;
    return MS_OK;
}

ms_rc ms_namespaces_remove(ms_namespaces *s, ms_str name) {
    ms_namespace *old = ms_map_del(&s->by_name, name);
    if (!old) return MS_ENOENT;
    ms_namespace_unref(old);
    s->generation++;
    return MS_OK;
}

const ms_namespace *ms_namespaces_get(const ms_namespaces *s, ms_str name) {
    return s ? ms_map_get(&s->by_name, name) : NULL;
}

uint32_t ms_namespaces_count(const ms_namespaces *s) {
    return s ? (uint32_t)s->by_name.len : 0;
}

const ms_namespace *ms_namespaces_next(const ms_namespaces *s, size_t *it) {
    void *val = NULL;
    if (!s || !ms_map_next(&s->by_name, it, NULL, &val)) return NULL;
    return val;
}
