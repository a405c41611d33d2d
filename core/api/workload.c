/* Services, ReplicationControllers, ReplicaSets and StatefulSets as the
 * default topology spreading reads them, and the scheduler's set of them. */
#include "api/workload.h"

#include <stdlib.h>
#include <string.h>

#include "api/workload_set.h"
#include "base/array.h"
#include "base/map.h"

static const char *const kind_names[MS_WK_COUNT] = {"Service", "ReplicationController", "ReplicaSet",
                                                    "StatefulSet"};

const char *ms_workload_kind_name(ms_workload_kind kind) {
    return (unsigned)kind < MS_WK_COUNT ? kind_names[kind] : "Object";
}

int ms_workload_kind_from_name(const char *kind) {
    for (int k = 0; kind && k < MS_WK_COUNT; k++)
        if (strcmp(kind, kind_names[k]) == 0) return k;
    return -1;
}

ms_workload *ms_workload_alloc(ms_workload_kind kind) {
    ms_workload *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    atomic_init(&w->refs, 1);
    ms_arena_init(&w->arena, 256);
    w->kind = (uint8_t)kind;
    return w;
}

void ms_workload_unref(ms_workload *w) {
    if (!w) return;
    if (atomic_fetch_sub_explicit(&w->refs, 1, memory_order_acq_rel) != 1) return;
    ms_arena_free(&w->arena);
    free(w);
}

bool ms_workload_selects(const ms_workload *w, const ms_pod *pod, const ms_interner *in) {
    /* The controllers' listers refuse pods without labels outright; a
     * Service's non-empty map cannot match them either. */
    if (pod->meta.labels.n == 0 || w->meta.namespace_ != pod->meta.namespace_) return false;
    if (w->kind == MS_WK_SERVICE || w->kind == MS_WK_REPLICATION_CONTROLLER)
        return w->match.n > 0 && ms_labels_subset(&w->match, &pod->meta.labels);
    if (w->selector.nothing || w->selector.n == 0) return false;
    return ms_label_selector_matches(&w->selector, &pod->meta.labels, in);
}

/* ---- the set ---- */

typedef struct ns_list {
    uint32_t n, cap;
    ms_workload **items;
} ns_list;

struct ms_workload_set {
    ms_map by_key[MS_WK_COUNT];    /* namespace << 32 | name -> ms_workload* */
    ms_map by_ns;                  /* namespace -> ns_list* */
    uint32_t len;
};

static uint64_t key_of(ms_str ns, ms_str name) { return (uint64_t)ns << 32 | name; }

ms_workload_set *ms_workload_set_new(void) {
    ms_workload_set *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    for (int k = 0; k < MS_WK_COUNT; k++) ms_map_init(&s->by_key[k]);
    ms_map_init(&s->by_ns);
    return s;
}

void ms_workload_set_free(ms_workload_set *s) {
    if (!s) return;
    uint64_t key;
    void *v;
    for (int k = 0; k < MS_WK_COUNT; k++) {
        for (size_t it = 0; ms_map_next(&s->by_key[k], &it, &key, &v);) ms_workload_unref(v);
        ms_map_free(&s->by_key[k]);
    }
    for (size_t it = 0; ms_map_next(&s->by_ns, &it, &key, &v);) {
        ns_list *l = v;
        free(l->items);
        free(l);
    }
    ms_map_free(&s->by_ns);
    free(s);
}

uint32_t ms_workload_set_len(const ms_workload_set *s) { return s->len; }

/* The namespace's list with room for one more; NULL when out of memory. */
static ns_list *ns_list_reserve(ms_workload_set *s, ms_str ns) {
    ns_list *l = ms_map_get(&s->by_ns, ns);
    if (!l) {
        if (!(l = calloc(1, sizeof *l))) return NULL;
        if (ms_map_put(&s->by_ns, ns, l) != 0) {
            free(l);
            return NULL;
        }
    }
    if (!ms_array_grow((void **)&l->items, &l->cap, l->n + 1, sizeof *l->items)) return NULL;
    return l;
}

static void ns_list_replace(ms_workload_set *s, const ms_workload *old, ms_workload *with) {
    ns_list *l = ms_map_get(&s->by_ns, old->meta.namespace_);
    for (uint32_t i = 0; l && i < l->n; i++) {
        if (l->items[i] != old) continue;
        if (with) l->items[i] = with;
        else l->items[i] = l->items[--l->n];
        break;
    }
    if (l && l->n == 0) {
        ms_map_del(&s->by_ns, old->meta.namespace_);
        free(l->items);
        free(l);
    }
}

ms_rc ms_workload_set_update(ms_workload_set *s, ms_workload *w) {
    ms_map *m = &s->by_key[w->kind];
    uint64_t key = key_of(w->meta.namespace_, w->meta.name);
    ms_workload *old = ms_map_get(m, key);
    if (old) {
        ns_list_replace(s, old, w);
        ms_map_put(m, key, ms_workload_ref(w));
        ms_workload_unref(old);
        return MS_OK;
    }
    ns_list *l = ns_list_reserve(s, w->meta.namespace_);
    if (!l || ms_map_put(m, key, w) != 0) return MS_ENOMEM;
    l->items[l->n++] = ms_workload_ref(w);
    s->len++;
    return MS_OK;
}

ms_rc ms_workload_set_delete(ms_workload_set *s, ms_workload_kind kind, ms_str namespace_, ms_str name) {
    if ((unsigned)kind >= MS_WK_COUNT) return MS_ENOENT;
    ms_workload *w = ms_map_del(&s->by_key[kind], key_of(namespace_, name));
    if (!w) return MS_ENOENT;
    ns_list_replace(s, w, NULL);
    ms_workload_unref(w);
    s->len--;
    return MS_OK;
}

void ms_workload_set_each(const ms_workload_set *s, void (*fn)(void *ctx, ms_workload *w), void *ctx) {
    uint64_t key;
    void *v;
    for (int k = 0; k < MS_WK_COUNT; k++)
        for (size_t it = 0; ms_map_next(&s->by_key[k], &it, &key, &v);) fn(ctx, v);
}

ms_workload *const *ms_workload_set_in(const ms_workload_set *s, ms_str namespace_, uint32_t *n) {
    const ns_list *l = ms_map_get(&s->by_ns, namespace_);
    *n = l ? l->n : 0;
    return l ? l->items : NULL;
}
