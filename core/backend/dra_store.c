/* resource.k8s.io objects by kind and namespace/name, one map per kind
 * keyed by the two interned ids. */
#include "backend/dra_store.h"

#include <stdlib.h>

struct ms_dra_store {
    ms_map by_kind[MS_DK_COUNT];
    uint64_t version;
    uint64_t kind_version[MS_DK_COUNT];
};

static uint64_t key_of(ms_str namespace_, ms_str name) { return (uint64_t)namespace_ << 32 | name; }

ms_dra_store *ms_dra_store_new(void) {
    ms_dra_store *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    for (int k = 0; k < MS_DK_COUNT; k++) ms_map_init(&s->by_kind[k]);
    return s;
}

void ms_dra_store_free(ms_dra_store *s) {
    if (!s) return;
    for (int k = 0; k < MS_DK_COUNT; k++) {
        uint64_t key;
        void *v;
        for (size_t it = 0; ms_map_next(&s->by_kind[k], &it, &key, &v);) ms_dra_unref(v);
        ms_map_free(&s->by_kind[k]);
    }
    free(s);
}

int ms_dra_store_set(ms_dra_store *s, ms_dra_object *o) {
    ms_map *m = &s->by_kind[o->kind];
    uint64_t key = key_of(o->meta.namespace_, o->meta.name);
    ms_dra_object *old = ms_map_get(m, key);
    if (ms_map_put(m, key, ms_dra_ref(o)) != 0) {
        ms_dra_unref(o);
        return -1;
    }
    ms_dra_unref(old);
    s->version++;
    s->kind_version[o->kind]++;
    return old != NULL;
}

bool ms_dra_store_delete(ms_dra_store *s, ms_dra_kind kind, ms_str namespace_, ms_str name) {
    ms_dra_object *old = ms_map_del(&s->by_kind[kind], key_of(namespace_, name));
    ms_dra_unref(old);
    s->version += old != NULL;
    s->kind_version[kind] += old != NULL;
    return old != NULL;
}

const ms_dra_object *ms_dra_store_get(const ms_dra_store *s, ms_dra_kind kind, ms_str namespace_, ms_str name) {
    return ms_map_get(&s->by_kind[kind], key_of(namespace_, name));
}

bool ms_dra_store_next(const ms_dra_store *s, ms_dra_kind kind, size_t *it, const ms_dra_object **o) {
    uint64_t key;
    void *v;
    if (!ms_map_next(&s->by_kind[kind], it, &key, &v)) return false;
    *o = v;
    return true;
}

uint64_t ms_dra_store_version(const ms_dra_store *s) { return s->version; }

uint32_t ms_dra_store_len(const ms_dra_store *s, ms_dra_kind kind) { return (uint32_t)s->by_kind[kind].len; }

const ms_dra_object *ms_dra_store_pod_claim(const ms_dra_store *s, const ms_pod *pod, uint32_t i) {
    const ms_pod_resource_claim *rc = &pod->resource_claims[i];
    ms_str name = rc->claim_name;
    for (uint32_t k = 0; name == MS_STR_NONE && k < pod->nresource_claim_statuses; k++)
        if (pod->resource_claim_statuses[k].name == rc->name) name = pod->resource_claim_statuses[k].claim_name;
    return name == MS_STR_NONE ? NULL : ms_dra_store_get(s, MS_DK_RESOURCE_CLAIM, pod->meta.namespace_, name);
}

uint64_t ms_dra_store_kind_version(const ms_dra_store *s, ms_dra_kind kind) { return s->kind_version[kind]; }
