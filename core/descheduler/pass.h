/* One descheduling pass over a snapshot: the nodes it looks at (ready,
 * matching the policy's nodeSelector), the eviction limits of the policy
 * (upstream's PodEvictor: maxNoOfPodsToEvictPerNode, PerNamespace, Total),
 * the evictions planned so far with their reasons, and the pods skipped
 * with theirs. Strategies read nodes and pods from here and evict through
 * ms_desched_evict; nothing here talks to the API server. */
#ifndef MOONSCHED_DESCHEDULER_PASS_H
#define MOONSCHED_DESCHEDULER_PASS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/map.h"
#include "descheduler/args.h"
#include "descheduler/default_evictor.h"
#include "descheduler/config_file.h"
#include "moonsched/nodeinfo.h"
#include "moonsched/resources.h"

typedef struct ms_desched_eviction {
    ms_pod *pod;                 /* borrowed from the snapshot */
    ms_str node;                 /* where it runs */
    ms_str dest;                 /* where it would go; MS_STR_NONE: not asked */
    const char *profile;
    const char *strategy;
    const char *reason;          /* static text */
} ms_desched_eviction;

typedef struct ms_desched_skip {
    ms_pod *pod;
    ms_str node;
    const char *strategy;
    const char *reason;          /* static text, or the pass's or placement's (pass-owned) */
} ms_desched_skip;

typedef enum ms_evict_result {
    MS_EVICTED = 0,
    MS_EVICT_SKIPPED,            /* placement or PreEvictionFilter refused it */
    MS_EVICT_NODE_LIMIT,         /* maxNoOfPodsToEvictPerNode reached */
    MS_EVICT_NAMESPACE_LIMIT,
    MS_EVICT_TOTAL_LIMIT,
} ms_evict_result;

struct ms_desched_pass;
/* Asked before an eviction is planned: NULL to go ahead (*dest set to the
 * predicted node, or MS_STR_NONE), else why not. */
typedef const char *(*ms_desched_place_fn)(void *ctx, struct ms_desched_pass *ps, ms_pod *p,
                                           ms_str node, ms_str *dest);

typedef struct ms_desched_pass {
    const ms_desched_policy *policy;
    const ms_desched_profile *profile;   /* the one running */
    const char *strategy;                /* the plugin running */
    const struct ms_desched_plugin *plugin;   /* its definition and args */
    ms_interner *in;
    ms_resource_names rn;
    double now;
    ms_node_info **nodes;                /* the nodes strategies consider */
    uint32_t nnodes;
    ms_evictor_env env;
    ms_desched_place_fn place;
    void *place_ctx;
    /* The node as it is now, the moves planned so far applied (the
     * placement oracle's view), for the new-violation checks; NULL: the
     * nodes as the pass began. */
    const ms_node_info *(*live)(void *ctx, ms_str node);
    void *live_ctx;
    /* Told each strategy's wall time (descheduler_strategy_duration_seconds). */
    void (*strategy_done)(void *ctx, const char *profile, const char *strategy, double seconds);
    void *done_ctx;
    /* Counts per node and per namespace name id (ids are dense). */
    uint32_t nids;
    uint32_t *per_node, *per_namespace;
    uint32_t total, spare;
    ms_desched_eviction *evictions;
    uint32_t nevictions, evcap;
    ms_map evicted;                      /* uid hash -> eviction index + 1 */
    ms_map owners;                       /* owner uid hash -> its pods on the nodes (minReplicas) */
    ms_desched_skip *skips;
    uint32_t nskips, skipcap;
    ms_arena reasons;                    /* skip reasons built in the pass */
    bool failed;                         /* out of memory: results incomplete */
} ms_desched_pass;

/* Nodes: every NodeInfo with a node; the pass keeps those that are Ready,
 * and match the policy's nodeSelector. 0 or -1 (out of memory). */
int ms_desched_pass_init(ms_desched_pass *ps, const ms_desched_policy *policy, ms_interner *in,
                         ms_node_info *const *nodes, uint32_t nnodes, double now);
void ms_desched_pass_free(ms_desched_pass *ps);

/* The pass's node i as it is now (ps->live), or as the pass began. */
const ms_node_info *ms_desched_live_node(const ms_desched_pass *ps, uint32_t i);

/* The evictions and skips of the pass in the order they were decided. */
bool ms_desched_pass_evicted(const ms_desched_pass *ps, const ms_pod *p);

/* A strategy's pod filter: in the scope, not evicted yet in this pass, and
 * accepted by the profile's DefaultEvictor (Filter and PreEvictionFilter).
 * A pod the evictor refuses is recorded as skipped with its reason. */
/* The same DefaultEvictor checks, without recording: NULL or why not. */
const char *ms_desched_pod_evictable(ms_desched_pass *ps, const ms_pod *p, ms_str node);
bool ms_desched_pod_filter(ms_desched_pass *ps, const ms_desched_pod_scope *scope, ms_pod *p,
                           ms_str node);
/* Plans the eviction of p from node (limits, then placement). */
ms_evict_result ms_desched_evict(ms_desched_pass *ps, ms_pod *p, ms_str node, const char *reason);

/* The loop of the strategies that judge each pod on its own: every pod of
 * every node for which `violates` holds and the filter passes is evicted
 * with `reason`; a node's limit moves on to the next node, the total limit
 * ends the loop. */
typedef bool (*ms_desched_violates_fn)(const void *args, const ms_desched_pass *ps, const ms_pod *p,
                                       const ms_node_info *ni);
void ms_desched_evict_violating(ms_desched_pass *ps, const void *args, const ms_desched_pod_scope *scope,
                                ms_desched_violates_fn violates, const char *reason);

/* upstream's SortPodsBasedOnPriorityLowToHigh, stable: pods without a
 * priority, then by priority, then BestEffort, Burstable, Guaranteed. */
void ms_desched_sort_low_priority_first(ms_pod **pods, uint32_t n);

/* Whether the node is Ready (condition Ready=True) and schedulable for the
 * pod: what upstream's ReadyNodes and PodFitsAnyOtherNode look at
 * (nodeSelector and required node affinity, NoSchedule/NoExecute taints,
 * unschedulable, requests against what is left). */
bool ms_desched_node_ready(const ms_node *n, const ms_interner *in);
bool ms_desched_pod_fits_node(const ms_desched_pass *ps, const ms_pod *p, const ms_node_info *ni,
                              bool check_resources);
/* PodFitsAnyOtherNode over the pass's nodes. */
bool ms_desched_pod_fits_other_node(const ms_desched_pass *ps, const ms_pod *p, ms_str node);

#endif
