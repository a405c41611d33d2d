/* The cache comparer (upstream's internal/cache/debugger CacheComparer):
 * the scheduler's view of the cluster (the cache's nodes and pods, and the
 * queue's pending pods) against the API server's (a fresh LIST), as two
 * plain views that can be built on different threads and compared on any.
 *
 * A view holds interned names (their text is readable from any thread)
 * and copies of the allocatable resources; no object references. */
#ifndef MOONSCHED_CACHE_COMPARER_H
#define MOONSCHED_CACHE_COMPARER_H

#include <stdint.h>

#include "backend/cache.h"
#include "backend/queue.h"
#include "moonsched/intern.h"
#include "moonsched/node.h"
#include "moonsched/pod.h"
#include "moonsched/resources.h"

typedef struct ms_cache_view_node {
    ms_str name;
    ms_resources allocatable;      /* heap-owned copy */
} ms_cache_view_node;

typedef struct ms_cache_view_pod {
    uint64_t uid_hash;
    ms_str namespace_, name;
    ms_str node;                   /* MS_STR_NONE: pending */
} ms_cache_view_pod;

typedef struct ms_cache_view {
    ms_cache_view_node *nodes;
    uint32_t nnodes, nodecap;
    ms_cache_view_pod *pods;
    uint32_t npods, podcap;
} ms_cache_view;

/* 0 or -1 (out of memory; the view stays consistent without the item). */
int ms_cache_view_add_node(ms_cache_view *v, const ms_node *node);
/* node: where the view has the pod (MS_STR_NONE: pending); a pod's own
 * node_name when it comes from the API server. */
int ms_cache_view_add_pod(ms_cache_view *v, const ms_pod *pod, ms_str node);
/* Every node of the cache with its pods, assumed ones included (on their
 * assumed node), and the pods left on nodes that are gone. 0 or -1. */
int ms_cache_view_of_cache(ms_cache_view *v, const ms_cache *c);
/* Every pod the queue holds (active, backoff, unschedulable and gated, in
 * flight), as pending, but those the cache holds (assumed while they wait
 * at Permit or for their bind): the cache's view counts them. 0 or -1. */
int ms_cache_view_of_queue(ms_cache_view *v, ms_queue *q, const ms_cache *c);
void ms_cache_view_free(ms_cache_view *v);

typedef enum ms_cache_diff_kind {
    MS_CACHE_NODE_MISSING,         /* on the API server, not in the cache */
    MS_CACHE_NODE_REDUNDANT,       /* in the cache, not on the API server */
    MS_CACHE_NODE_DIFFERENT,       /* in both, with different allocatable resources */
    MS_CACHE_POD_MISSING,
    MS_CACHE_POD_REDUNDANT,
    MS_CACHE_POD_WRONG_NODE,       /* in both, on different nodes (or pending in one) */
    MS_CACHE_DIFF_KINDS
} ms_cache_diff_kind;

typedef struct ms_cache_diff {
    ms_cache_diff_kind kind;
    ms_str namespace_, name;       /* the node's or the pod's; namespace_ NONE for nodes */
    ms_str cached_node, actual_node;   /* pods: where each view has it (NONE: pending or absent) */
} ms_cache_diff;

/* "missing", "redundant", "different", "wrong node". */
const char *ms_cache_diff_kind_name(ms_cache_diff_kind k);

/* Sorts both views, then calls fn (may be NULL) for each difference:
 * nodes first, then pods. Returns the number of differences. */
uint32_t ms_cache_compare(ms_cache_view *cached, ms_cache_view *actual,
                          void (*fn)(void *ctx, const ms_cache_diff *d), void *ctx);

#endif
