/* PodDisruptionBudget objects, the scheduler's set of them, and the
 * disruption budget preemption charges victims to. */
#include "moonsched/pdb.h"

#include <stdlib.h>
#include <string.h>

#include "api/object_set.h"
#include "api/pdb_set.h"

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
    return ms_object_set_selects(pdb->meta.namespace_, &pdb->selector, pod, in);
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

struct ms_pdb_set {
    ms_object_set entries; /* of one kind: pdb_entry* */
    uint32_t epoch;
};

ms_pdb_set *ms_pdb_set_new(void) {
    ms_pdb_set *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    ms_object_set_init(&s->entries);
    s->epoch = 1;
    return s;
}

static void release(void *item) {
    pdb_entry *e = item;
    ms_pdb_unref(e->pdb);
    free(e);
}

void ms_pdb_set_free(ms_pdb_set *s) {
    if (!s) return;
    ms_object_set_free(&s->entries, release);
    free(s);
}

uint32_t ms_pdb_set_len(const ms_pdb_set *s) { return s->entries.len; }

ms_rc ms_pdb_set_update(ms_pdb_set *s, ms_pdb *pdb) {
    pdb_entry *e = ms_object_set_get(&s->entries, 0, pdb->meta.namespace_, pdb->meta.name);
    if (e) {
        ms_pdb_ref(pdb);
        ms_pdb_unref(e->pdb);
        e->pdb = pdb;
        e->epoch = 0;
        return MS_OK;
    }
    if (!(e = calloc(1, sizeof *e))) return MS_ENOMEM;
    if (ms_object_set_add(&s->entries, 0, pdb->meta.namespace_, pdb->meta.name, e) != MS_OK) {
        free(e);
        return MS_ENOMEM;
    }
    e->pdb = ms_pdb_ref(pdb);
    return MS_OK;
}

ms_rc ms_pdb_set_delete(ms_pdb_set *s, ms_str namespace_, ms_str name) {
    pdb_entry *e = ms_object_set_remove(&s->entries, 0, namespace_, name);
    if (!e) return MS_ENOENT;
    release(e);
    return MS_OK;
}

const ms_pdb *ms_pdb_set_get(const ms_pdb_set *s, ms_str namespace_, ms_str name) {
    const pdb_entry *e = ms_object_set_get(&s->entries, 0, namespace_, name);
    return e ? e->pdb : NULL;
}

typedef struct each_ctx {
    void (*fn)(void *ctx, const ms_pdb *pdb);
    void *ctx;
} each_ctx;

static void each_one(void *ctx, void *item) {
    each_ctx *c = ctx;
    c->fn(c->ctx, ((pdb_entry *)item)->pdb);
}

void ms_pdb_set_each(const ms_pdb_set *s, void (*fn)(void *ctx, const ms_pdb *pdb), void *ctx) {
    ms_object_set_each(&s->entries, each_one, &(each_ctx){fn, ctx});
}

uint32_t ms_pdb_set_matching(const ms_pdb_set *s, const ms_pod *pod, const ms_interner *in,
                             const ms_pdb **out, uint32_t cap) {
    uint32_t nl;
    void *const *l = ms_object_set_in(&s->entries, pod->meta.namespace_, &nl);
    uint32_t n = 0;
    for (uint32_t i = 0; i < nl; i++) {
        const pdb_entry *e = l[i];
        if (!ms_pdb_selects(e->pdb, pod, in)) continue;
        if (n < cap) out[n] = e->pdb;
        n++;
    }
    return n;
}

static void clear_stamp(void *ctx, void *item) {
    (void)ctx;
    ((pdb_entry *)item)->epoch = 0;
}

void ms_pdb_budget_reset(ms_pdb_set *s) {
    if (++s->epoch != 0) return;
    /* Wrapped: clear every stamp so that none can look current. */
    ms_object_set_each(&s->entries, clear_stamp, NULL);
    s->epoch = 1;
}

bool ms_pdb_budget_take(ms_pdb_set *s, const ms_pod *pod, const ms_interner *in) {
    if (pod->meta.labels.n == 0) return false;
    uint32_t nl;
    void *const *l = ms_object_set_in(&s->entries, pod->meta.namespace_, &nl);
    bool violated = false;
    for (uint32_t i = 0; i < nl; i++) {
        pdb_entry *e = l[i];
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
