/* PodDisruptionBudget objects, the scheduler's set of them, and the
 * disruption budget preemption charges victims to. */
#include "moonsched/pdb.h"

#include <stdlib.h>
#include <string.h>

#include "api/pdb_set.h"
#include "base/array.h"
#include "base/map.h"

ms_pdb *ms_pdb_alloc(void) {
    ms_pdb *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    atomic_init(&p->refs, 1);
    ms_arena_init(&p->arena, 512);
    return p;
}

void ms_pdb_unref(ms_pdb *p) {
    if (!p) return;
    if (atomic_fetch_sub_explicit(&p->refs, 1, memory_order_acq_rel) != 1) return;
    ms_arena_free(&p->arena);
    free(p);
}

bool ms_pdb_selects(const ms_pdb *pdb, const ms_pod *pod, const ms_interner *in) {
    /* Upstream skips pods without labels before looking at selectors, so
     * even a DoesNotExist-only selector does not reach them. */
    if (pod->meta.labels.n == 0 || pdb->meta.namespace_ != pod->meta.namespace_) return false;
    if (pdb->selector.nothing || pdb->selector.n == 0) return false;
    return ms_label_selector_matches(&pdb->selector, &pod->meta.labels, in);
}

bool ms_pdb_disrupted(const ms_pdb *pdb, ms_str pod_name) {
    uint32_t lo = 0, hi = pdb->ndisrupted;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (pdb->disrupted_pods[mid] < pod_name) lo = mid + 1;
        else hi = mid;
    }
    return lo < pdb->ndisrupted && pdb->disrupted_pods[lo] == pod_name;
}

/* ---- the set ---- */

typedef struct pdb_entry {
    ms_pdb *pdb;
    int64_t left;          /* budget left in the current epoch */
    uint32_t epoch;        /* `left` is stale unless this is the set's epoch */
} pdb_entry;

typedef struct ns_list {
    uint32_t n, cap;
    pdb_entry **items;
} ns_list;

struct ms_pdb_set {
    ms_map by_key;         /* namespace << 32 | name -> pdb_entry* */
    ms_map by_ns;          /* namespace -> ns_list* */
    uint32_t epoch;
};

static uint64_t key_of(ms_str ns, ms_str name) { return (uint64_t)ns << 32 | name; }

ms_pdb_set *ms_pdb_set_new(void) {
    ms_pdb_set *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    ms_map_init(&s->by_key);
    ms_map_init(&s->by_ns);
    s->epoch = 1;
    return s;
}

void ms_pdb_set_free(ms_pdb_set *s) {
    if (!s) return;
    uint64_t k;
    void *v;
    for (size_t it = 0; ms_map_next(&s->by_key, &it, &k, &v);) {
        pdb_entry *e = v;
        ms_pdb_unref(e->pdb);
        free(e);
    }
    for (size_t it = 0; ms_map_next(&s->by_ns, &it, &k, &v);) {
        ns_list *l = v;
        free(l->items);
        free(l);
    }
    ms_map_free(&s->by_key);
    ms_map_free(&s->by_ns);
    free(s);
}

uint32_t ms_pdb_set_len(const ms_pdb_set *s) { return (uint32_t)s->by_key.len; }

/* The namespace's list with room for one more entry; NULL when out of memory. */
static ns_list *ns_list_reserve(ms_pdb_set *s, ms_str ns) {
    ns_list *l = ms_map_get(&s->by_ns, ns);
    if (!l) {
        if (!(l = calloc(1, sizeof *l))) return NULL;
        if (ms_map_put(&s->by_ns, ns, l) != 0) {
            free(l);
            return NULL;
        }
    }
    if (!ms_array_grow((void **)&l->items, &l->cap, l->n + 1, sizeof *l->items))
        return NULL;
    return l;
}

ms_rc ms_pdb_set_update(ms_pdb_set *s, ms_pdb *pdb) {
    uint64_t key = key_of(pdb->meta.namespace_, pdb->meta.name);
    pdb_entry *e = ms_map_get(&s->by_key, key);
    if (e) {
        ms_pdb_ref(pdb);
        ms_pdb_unref(e->pdb);
        e->pdb = pdb;
        e->epoch = 0;
        return MS_OK;
    }
    ns_list *l = ns_list_reserve(s, pdb->meta.namespace_);
    if (!l || !(e = calloc(1, sizeof *e))) return MS_ENOMEM;
    if (ms_map_put(&s->by_key, key, e) != 0) {
        free(e);
        return MS_ENOMEM;
    }
    e->pdb = ms_pdb_ref(pdb);
    l->items[l->n++] = e;
    return MS_OK;
}

ms_rc ms_pdb_set_delete(ms_pdb_set *s, ms_str namespace_, ms_str name) {
    pdb_entry *e = ms_map_del(&s->by_key, key_of(namespace_, name));
    if (!e) return MS_ENOENT;
    ns_list *l = ms_map_get(&s->by_ns, namespace_);
    for (uint32_t i = 0; l && i < l->n; i++)
        if (l->items[i] == e) {
            l->items[i] = l->items[--l->n];
            break;
        }
    if (l && l->n == 0) {
        ms_map_del(&s->by_ns, namespace_);
        free(l->items);
        free(l);
    }
    ms_pdb_unref(e->pdb);
    free(e);
    return MS_OK;
}

const ms_pdb *ms_pdb_set_get(const ms_pdb_set *s, ms_str namespace_, ms_str name) {
    const pdb_entry *e = ms_map_get(&s->by_key, key_of(namespace_, name));
    return e ? e->pdb : NULL;
}

void ms_pdb_set_each(const ms_pdb_set *s, void (*fn)(void *ctx, const ms_pdb *pdb), void *ctx) {
    uint64_t k;
    void *v;
    for (size_t it = 0; ms_map_next(&s->by_key, &it, &k, &v);) fn(ctx, ((pdb_entry *)v)->pdb);
}

uint32_t ms_pdb_set_matching(const ms_pdb_set *s, const ms_pod *pod, const ms_interner *in,
                             const ms_pdb **out, uint32_t cap) {
    const ns_list *l = ms_map_get(&s->by_ns, pod->meta.namespace_);
    uint32_t n = 0;
    for (uint32_t i = 0; l && i < l->n; i++) {
        if (!ms_pdb_selects(l->items[i]->pdb, pod, in)) continue;
        if (n < cap) out[n] = l->items[i]->pdb;
        n++;
    }
    return n;
}

void ms_pdb_budget_reset(ms_pdb_set *s) {
    if (++s->epoch != 0) return;
    /* Wrapped: clear every stamp so that none can look current. */
    uint64_t k;
    void *v;
    for (size_t it = 0; ms_map_next(&s->by_key, &it, &k, &v);) ((pdb_entry *)v)->epoch = 0;
    s->epoch = 1;
}

bool ms_pdb_budget_take(ms_pdb_set *s, const ms_pod *pod, const ms_interner *in) {
    if (pod->meta.labels.n == 0) return false;
    const ns_list *l = ms_map_get(&s->by_ns, pod->meta.namespace_);
    bool violated = false;
    for (uint32_t i = 0; l && i < l->n; i++) {
        pdb_entry *e = l->items[i];
        if (!ms_pdb_selects(e->pdb, pod, in)) continue;
        /* Already evicted through the API: counting it again would spend
         * the budget twice. */
        if (ms_pdb_disrupted(e->pdb, pod->meta.name)) continue;
        if (e->epoch != s->epoch) {
            e->left = e->pdb->disruptions_allowed;
            e->epoch = s->epoch;
        }
        if (--e->left < 0) violated = true;
    }
    return violated;
}
