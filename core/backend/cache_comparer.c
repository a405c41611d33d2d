/* The cache comparer: see backend/cache_comparer.h. */
#include "backend/cache_comparer.h"

#include <stdlib.h>
#include <string.h>

#include "base/array.h"

int ms_cache_view_add_node(ms_cache_view *v, const ms_node *node) {
    if (!ms_array_grow((void **)&v->nodes, &v->nodecap, v->nnodes + 1, sizeof *v->nodes)) return -1;
    ms_cache_view_node *n = &v->nodes[v->nnodes];
    memset(n, 0, sizeof *n);
    n->name = node->meta.name;
    if (ms_resources_copy(&n->allocatable, &node->allocatable) != 0) {
        ms_resources_free(&n->allocatable);
        return -1;
    }
    v->nnodes++;
    return 0;
}

int ms_cache_view_add_pod(ms_cache_view *v, const ms_pod *pod, ms_str node) {
    if (!ms_array_grow((void **)&v->pods, &v->podcap, v->npods + 1, sizeof *v->pods)) return -1;
    v->pods[v->npods++] = (ms_cache_view_pod){pod->meta.uid_hash, pod->meta.namespace_, pod->meta.name, node};
    return 0;
}

int ms_cache_view_of_cache(ms_cache_view *v, const ms_cache *c) {
    /* Not the node tree: a node that is gone keeps a NodeInfo for the
     * pods still bound to it, and those pods are in the cache too. */
    size_t it = 0;
    for (const ms_node_info *ni; (ni = ms_cache_node_info_next(c, &it));) {
        if (ni->node && ms_cache_view_add_node(v, ni->node) != 0) return -1;
        for (uint32_t j = 0; j < ni->npods; j++)
            if (ms_cache_view_add_pod(v, ni->pods[j], ni->name) != 0) return -1;
    }
    return 0;
}

typedef struct queue_walk {
    ms_cache_view *v;
    const ms_cache *c;
    int rc;
} queue_walk;

static void add_queued(void *ctx, const ms_queued_pod *qp) {
    queue_walk *w = ctx;
    if (w->rc == 0 && !ms_cache_get_pod(w->c, qp->pod->meta.uid_hash))
        w->rc = ms_cache_view_add_pod(w->v, qp->pod, MS_STR_NONE);
}

int ms_cache_view_of_queue(ms_cache_view *v, ms_queue *q, const ms_cache *c) {
    queue_walk w = {v, c, 0};
    ms_queue_each(q, add_queued, &w);
    return w.rc;
}

void ms_cache_view_free(ms_cache_view *v) {
    for (uint32_t i = 0; i < v->nnodes; i++) ms_resources_free(&v->nodes[i].allocatable);
    free(v->nodes);
    free(v->pods);
    memset(v, 0, sizeof *v);
}

const char *ms_cache_diff_kind_name(ms_cache_diff_kind k) {
    static const char *const names[MS_CACHE_DIFF_KINDS] = {
        [MS_CACHE_NODE_MISSING] = "missing",     [MS_CACHE_NODE_REDUNDANT] = "redundant",
        [MS_CACHE_NODE_DIFFERENT] = "different", [MS_CACHE_POD_MISSING] = "missing",
        [MS_CACHE_POD_REDUNDANT] = "redundant",  [MS_CACHE_POD_WRONG_NODE] = "wrong node",
    };
    return k < MS_CACHE_DIFF_KINDS ? names[k] : "?";
}

/* Ids, not text: the order only has to be the same in both views. */
static int node_order(const void *a, const void *b) {
    ms_str x = ((const ms_cache_view_node *)a)->name, y = ((const ms_cache_view_node *)b)->name;
    return (x > y) - (x < y);
}

static int pod_order(const void *a, const void *b) {
    uint64_t x = ((const ms_cache_view_pod *)a)->uid_hash, y = ((const ms_cache_view_pod *)b)->uid_hash;
    return (x > y) - (x < y);
}

typedef struct differ {
    void (*fn)(void *ctx, const ms_cache_diff *d);
    void *ctx;
    uint32_t n;
} differ;

static void report(differ *df, ms_cache_diff d) {
    df->n++;
    if (df->fn) df->fn(df->ctx, &d);
}

static void compare_nodes(differ *df, const ms_cache_view *c, const ms_cache_view *a) {
    uint32_t i = 0, j = 0;
    while (i < c->nnodes || j < a->nnodes) {
        int o = i == c->nnodes ? 1 : j == a->nnodes ? -1 : node_order(&c->nodes[i], &a->nodes[j]);
        if (o < 0) {
            report(df, (ms_cache_diff){.kind = MS_CACHE_NODE_REDUNDANT, .name = c->nodes[i++].name});
        } else if (o > 0) {
            report(df, (ms_cache_diff){.kind = MS_CACHE_NODE_MISSING, .name = a->nodes[j++].name});
        } else {
            if (!ms_resources_equal(&c->nodes[i].allocatable, &a->nodes[j].allocatable))
                report(df, (ms_cache_diff){.kind = MS_CACHE_NODE_DIFFERENT, .name = c->nodes[i].name});
            i++, j++;
        }
    }
}

static void compare_pods(differ *df, const ms_cache_view *c, const ms_cache_view *a) {
    uint32_t i = 0, j = 0;
    while (i < c->npods || j < a->npods) {
        int o = i == c->npods ? 1 : j == a->npods ? -1 : pod_order(&c->pods[i], &a->pods[j]);
        const ms_cache_view_pod *p = o <= 0 ? &c->pods[i] : &a->pods[j];
        ms_cache_diff d = {.namespace_ = p->namespace_, .name = p->name};
        if (o < 0) {
            d.kind = MS_CACHE_POD_REDUNDANT;
            d.cached_node = c->pods[i++].node;
        } else if (o > 0) {
            d.kind = MS_CACHE_POD_MISSING;
            d.actual_node = a->pods[j++].node;
        } else {
            d.kind = MS_CACHE_POD_WRONG_NODE;
            d.cached_node = c->pods[i++].node;
            d.actual_node = a->pods[j++].node;
            if (d.cached_node == d.actual_node) continue;
        }
        report(df, d);
    }
}

uint32_t ms_cache_compare(ms_cache_view *cached, ms_cache_view *actual,
                          void (*fn)(void *ctx, const ms_cache_diff *d), void *ctx) {
    if (cached->nnodes) qsort(cached->nodes, cached->nnodes, sizeof *cached->nodes, node_order);
    if (actual->nnodes) qsort(actual->nodes, actual->nnodes, sizeof *actual->nodes, node_order);
    if (cached->npods) qsort(cached->pods, cached->npods, sizeof *cached->pods, pod_order);
    if (actual->npods) qsort(actual->pods, actual->npods, sizeof *actual->pods, pod_order);
    differ df = {fn, ctx, 0};
    compare_nodes(&df, cached, actual);
    compare_pods(&df, cached, actual);
    return df.n;
}
