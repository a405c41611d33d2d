/* The taint eviction controller's state and timers. See taint_eviction.h. */
#include "controllers/taint_eviction.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/heap.h"
#include "base/map.h"
#include "controllers/taint_eviction_decide.h"

typedef struct te_pod {
    int32_t heap_index;            /* -1: no deletion scheduled */
    ms_pod *pod;                   /* referenced */
    ms_str node;
    uint32_t slot;                 /* position in its te_node's pods */
    double deadline;
    bool fired;                    /* handed to the sink; not scheduled again */
} te_pod;

typedef struct te_node {
    ms_node *node;                 /* referenced; NULL: pods known, node not (yet, or any more) */
    double *since;                 /* per node->taints[i]: start of its countdown */
    te_pod **pods;
    uint32_t npods, cap;
} te_node;

struct ms_taint_manager {
    ms_te_sink sink;
    ms_map nodes;                  /* node name id -> te_node */
    ms_map pods;                   /* pod uid_hash -> te_pod */
    ms_heap timers;                /* te_pod by deadline */
    uint32_t tainted;              /* te_nodes with a node (NoExecute taints) */
    uint64_t fired, cancelled;
};

static bool deadline_less(void *ctx, const void *a, const void *b) {
    (void)ctx;
    return ((const te_pod *)a)->deadline < ((const te_pod *)b)->deadline;
}

ms_taint_manager *ms_taint_manager_new(const ms_te_sink *sink) {
    ms_taint_manager *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->sink = *sink;
    ms_map_init(&m->nodes);
    ms_map_init(&m->pods);
    ms_heap_init(&m->timers, deadline_less, NULL, offsetof(te_pod, heap_index));
    return m;
}

static void node_free(te_node *n) {
    if (n->node) ms_node_unref(n->node);
    free(n->since);
    free(n->pods);
    free(n);
}

void ms_taint_manager_free(ms_taint_manager *m) {
    if (!m) return;
    uint64_t k;
    void *v;
    for (size_t it = 0; ms_map_next(&m->pods, &it, &k, &v);) {
        te_pod *p = v;
        ms_pod_unref(p->pod);
        free(p);
    }
    for (size_t it = 0; ms_map_next(&m->nodes, &it, &k, &v);) node_free(v);
    ms_map_free(&m->pods);
    ms_map_free(&m->nodes);
    ms_heap_free(&m->timers);
    free(m);
}

static te_node *node_get(ms_taint_manager *m, ms_str name, bool create) {
    te_node *n = ms_map_get(&m->nodes, name);
    if (n || !create) return n;
    if (!(n = calloc(1, sizeof *n))) return NULL;
    if (ms_map_put(&m->nodes, name, n) != 0) {
        free(n);
        return NULL;
    }
    return n;
}

/* Drops a node entry that holds nothing any more. */
static void node_gc(ms_taint_manager *m, ms_str name, te_node *n) {
    if (n->node || n->npods) return;
    ms_map_del(&m->nodes, name);
    node_free(n);
}

/* ---- scheduling ---------------------------------------------------------- */

static void unschedule(ms_taint_manager *m, te_pod *p, bool tell) {
    if (p->heap_index < 0) return;
    ms_heap_remove(&m->timers, p);
    m->cancelled++;
    if (tell && m->sink.cancelled) m->sink.cancelled(m->sink.ctx, p->pod);
}

static void schedule(ms_taint_manager *m, te_pod *p, double at) {
    p->deadline = at;
    /* Out of memory: no timer; the next change of the pod or node retries. */
    if (ms_heap_push(&m->timers, p) != MS_OK) p->heap_index = -1;
}

/* Upstream's processPodOnNode, with the deadline from the taints' start
 * times (controllers/taint_eviction_decide.h). */
static void process_pod(ms_taint_manager *m, te_pod *p, double now) {
    if (p->fired) return;
    if (p->pod->meta.deletion != 0) {
        unschedule(m, p, false);   /* Terminating: it is going anyway */
        return;
    }
    te_node *n = ms_map_get(&m->nodes, p->node);
    if (!n || !n->node) return;    /* node not known: keep what is scheduled */
    double at;
    ms_te_verdict v = ms_te_decide(p->pod, n->node->taints, n->since, n->node->ntaints, &at);
    bool scheduled = p->heap_index >= 0;
    switch (v) {
    case MS_TE_NEVER: unschedule(m, p, true); break;
    case MS_TE_DELETE_NOW:
        if (scheduled && p->deadline <= now) break;
        /* upstream cancels what was scheduled (with its Event) and deletes
         * at once */
        unschedule(m, p, true);
        schedule(m, p, now);
        break;
    case MS_TE_DELETE_AT:
        /* A deletion already scheduled keeps its deadline, as upstream
         * keeps the first worker for a pod whatever the taints became. */
        if (!scheduled) schedule(m, p, at);
        break;
    }
}

/* ---- nodes ---------------------------------------------------------------- */

static bool same_taint(const ms_taint *a, const ms_taint *b) { return a->key == b->key && a->effect == b->effect; }

/* Start of each taint's countdown: timeAdded, else the start it had in
 * the previous version of the node, else now. NULL when out of memory. */
static double *taint_starts(const ms_node *old, const double *old_since, const ms_node *node, double now) {
    double *since = calloc(node->ntaints ? node->ntaints : 1, sizeof *since);
    if (!since) return NULL;
    for (uint32_t i = 0; i < node->ntaints; i++) {
        const ms_taint *t = &node->taints[i];
        since[i] = t->time_added > 0 ? t->time_added : now;
        if (t->time_added > 0 || !old) continue;
        for (uint32_t j = 0; j < old->ntaints; j++)
            if (same_taint(t, &old->taints[j])) {
                since[i] = old_since[j];
                break;
            }
    }
    return since;
}

/* Upstream's NodeUpdated test: only a change of the NoExecute taints
 * (or of their start) concerns the pods. */
static bool no_execute_changed(const ms_node *old, const double *old_since, const ms_node *node,
                               const double *since) {
    uint32_t a = 0, b = 0;
    for (uint32_t i = 0; i < old->ntaints; i++) a += old->taints[i].effect == MS_EFFECT_NO_EXECUTE;
    for (uint32_t i = 0; i < node->ntaints; i++) b += node->taints[i].effect == MS_EFFECT_NO_EXECUTE;
    if (a != b) return true;
    for (uint32_t i = 0; i < node->ntaints; i++) {
        const ms_taint *t = &node->taints[i];
        if (t->effect != MS_EFFECT_NO_EXECUTE) continue;
        bool found = false;
        for (uint32_t j = 0; j < old->ntaints && !found; j++)
            found = same_taint(t, &old->taints[j]) && t->value == old->taints[j].value && since[i] == old_since[j];
        if (!found) return true;
    }
    return false;
}

void ms_taint_manager_node_update(ms_taint_manager *m, ms_node *node, double now) {
    te_node *n = node_get(m, node->meta.name, ms_te_has_no_execute(node->taints, node->ntaints));
    if (!n) return;                /* untainted and unknown: nothing to do */
    double *since = taint_starts(n->node, n->since, node, now);
    if (!since) return;
    bool changed = n->node ? no_execute_changed(n->node, n->since, node, since)
                           : ms_te_has_no_execute(node->taints, node->ntaints);
    if (n->node) ms_node_unref(n->node);
    else m->tainted++;
    free(n->since);
    n->node = ms_node_ref(node);
    n->since = since;
    if (changed)
        for (uint32_t i = 0; i < n->npods; i++) process_pod(m, n->pods[i], now);
    if (!ms_te_has_no_execute(node->taints, node->ntaints)) {
        /* Untainted: only the pods' membership is worth keeping. */
        m->tainted--;
        ms_node_unref(n->node);
        n->node = NULL;
        free(n->since);
        n->since = NULL;
        node_gc(m, node->meta.name, n);
    }
}

void ms_taint_manager_node_delete(ms_taint_manager *m, ms_str name, double now) {
    (void)now;
    te_node *n = ms_map_get(&m->nodes, name);
    if (!n || !n->node) return;
    m->tainted--;
    ms_node_unref(n->node);
    n->node = NULL;
    free(n->since);
    n->since = NULL;
    node_gc(m, name, n);
}

/* ---- pods ------------------------------------------------------------------ */

static void pod_detach(ms_taint_manager *m, te_pod *p) {
    te_node *n = ms_map_get(&m->nodes, p->node);
    if (!n) return;
    n->pods[p->slot] = n->pods[--n->npods];
    n->pods[p->slot]->slot = p->slot;
    node_gc(m, p->node, n);
}

void ms_taint_manager_pod_update(ms_taint_manager *m, ms_pod *pod, double now) {
    if (pod->node_name == MS_STR_NONE) return;
    te_pod *p = ms_map_get(&m->pods, pod->meta.uid_hash);
    if (p) {
        ms_pod_unref(p->pod);
        p->pod = ms_pod_ref(pod);
        process_pod(m, p, now);
        return;
    }
    te_node *n = node_get(m, pod->node_name, true);
    if (!n || !(p = calloc(1, sizeof *p))) return;
    if (!ms_array_grow((void **)&n->pods, &n->cap, n->npods + 1, sizeof *n->pods) ||
        ms_map_put(&m->pods, pod->meta.uid_hash, p) != 0) {
        free(p);
        node_gc(m, pod->node_name, n);
        return;
    }
    p->heap_index = -1;
    p->pod = ms_pod_ref(pod);
    p->node = pod->node_name;
    p->slot = n->npods;
    n->pods[n->npods++] = p;
    process_pod(m, p, now);
}

void ms_taint_manager_pod_delete(ms_taint_manager *m, const ms_pod *pod, double now) {
    (void)now;
    te_pod *p = ms_map_del(&m->pods, pod->meta.uid_hash);
    if (!p) return;
    unschedule(m, p, true);
    pod_detach(m, p);
    ms_pod_unref(p->pod);
    free(p);
}

void ms_taint_manager_retry(ms_taint_manager *m, ms_pod *pod, double now, double not_before) {
    te_pod *p = ms_map_get(&m->pods, pod->meta.uid_hash);
    if (!p) return;
    p->fired = false;
    process_pod(m, p, now);
    if (p->heap_index >= 0 && p->deadline < not_before) {
        p->deadline = not_before;
        ms_heap_fix(&m->timers, p);
    }
}

/* ---- timers ----------------------------------------------------------------- */

double ms_taint_manager_next(const ms_taint_manager *m) {
    const te_pod *p = ms_heap_peek(&m->timers);
    return p ? p->deadline : -1;
}

uint32_t ms_taint_manager_fire(ms_taint_manager *m, double now, uint32_t max) {
    uint32_t n = 0;
    te_pod *p;
    while ((!max || n < max) && (p = ms_heap_peek(&m->timers)) && p->deadline <= now) {
        ms_heap_pop(&m->timers);
        p->fired = true;
        m->fired++;
        n++;
        m->sink.evict(m->sink.ctx, p->pod, p->deadline);
    }
    return n;
}

void ms_taint_manager_stats_get(const ms_taint_manager *m, ms_taint_manager_stats *out) {
    memset(out, 0, sizeof *out);
    out->nodes = m->tainted;
    out->pods = (uint32_t)m->pods.len;
    out->scheduled = ms_heap_len(&m->timers);
    out->fired = m->fired;
    out->cancelled = m->cancelled;
}

double ms_taint_manager_deadline(const ms_taint_manager *m, const ms_pod *pod) {
    const te_pod *p = ms_map_get(&m->pods, pod->meta.uid_hash);
    return p && p->heap_index >= 0 ? p->deadline : -1;
}
