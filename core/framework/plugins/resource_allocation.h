/* What NodeResourcesFit's scoring strategies and
 * NodeResourcesBalancedAllocation share (upstream's resourceAllocationScorer):
 * the configured resources, the pod's request for each, and a node's
 * allocatable and requested amounts for each. */
#ifndef MOONSCHED_PLUGINS_RESOURCE_ALLOCATION_H
#define MOONSCHED_PLUGINS_RESOURCE_ALLOCATION_H

#include <stdbool.h>
#include <stdint.h>

#include "moonsched/plugin.h"

/* More resources than anyone scores on; lets per-node work use stack arrays. */
#define MS_RA_MAX_RESOURCES 32

typedef enum ms_ra_kind {
    MS_RA_CPU = 0,
    MS_RA_MEMORY,
    MS_RA_EPHEMERAL,
    MS_RA_SCALAR,   /* extended, hugepages-*, attachable-volumes-*, kubernetes.io/... */
    MS_RA_OTHER,    /* "pods" or a name the scheduler does not track: never counts */
} ms_ra_kind;

typedef struct ms_resource_spec {
    ms_str name;
    int64_t weight;
    uint8_t kind;   /* ms_ra_kind, decided once at create time */
} ms_resource_spec;

typedef struct ms_resource_allocation {
    uint32_t n;
    ms_resource_spec res[MS_RA_MAX_RESOURCES];
    /* BalancedAllocation counts plain requests; Fit's strategies count
     * cpu and memory with the non-zero defaults (upstream's useRequested). */
    bool use_requested;
} ms_resource_allocation;

/* cpu and memory, weight 1 each (upstream's defaultResourceSpec). */
void ms_resource_allocation_defaults(ms_resource_allocation *ra, const ms_handle *h);

/* A `resources` list of {name, weight}, with v1 defaulting: an absent or
 * empty list means the defaults; an absent or zero weight means 1. Weights
 * are not range-checked here (the plugins' rules differ). */
ms_rc ms_resource_allocation_parse(ms_resource_allocation *ra, const cJSON *list,
                                   const ms_handle *h, const char *plugin, const char *path,
                                   ms_error *err);

/* The pod's request for each configured resource (calculatePodResourceRequestList). */
void ms_resource_allocation_pod_requests(const ms_resource_allocation *ra, const ms_pod *pod,
                                         int64_t *out);

/* true when the pod requests none of the configured resources. */
bool ms_resource_allocation_best_effort(const ms_resource_allocation *ra, const int64_t *pod_req);

/* The default resources: cpu and memory (in either order), nothing else.
 * Plugins score these with straight-line code (same arithmetic). */
static inline bool ms_resource_allocation_is_cpu_memory(const ms_resource_allocation *ra) {
    return ra->n == 2 && ((ra->res[0].kind == MS_RA_CPU && ra->res[1].kind == MS_RA_MEMORY) ||
                          (ra->res[0].kind == MS_RA_MEMORY && ra->res[1].kind == MS_RA_CPU));
}

/* A node's allocatable and requested (node's + pod's) cpu and memory, in
 * the configuration's order, as ms_resource_allocation_node gives them for
 * a cpu-and-memory configuration. */
static inline void ms_resource_allocation_cpu_memory(const ms_resource_allocation *ra,
                                                     const ms_node_info *ni, const int64_t *pod_req,
                                                     int64_t requested[2], int64_t allocatable[2]) {
    if (!ni->node) {
        requested[0] = requested[1] = allocatable[0] = allocatable[1] = 0;
        return;
    }
    const uint32_t c = ra->res[0].kind == MS_RA_CPU ? 0 : 1, m = 1 - c;
    const int64_t *a = ni->node->allocatable.v;
    allocatable[c] = a[MS_RES_CPU];
    allocatable[m] = a[MS_RES_MEMORY];
    if (ra->use_requested) {
        requested[c] = ni->requested.v[MS_RES_CPU] + pod_req[c];
        requested[m] = ni->requested.v[MS_RES_MEMORY] + pod_req[m];
    } else {
        requested[c] = ni->non_zero_cpu + pod_req[c];
        requested[m] = ni->non_zero_mem + pod_req[m];
    }
    if (allocatable[0] == 0) requested[0] = 0;
    if (allocatable[1] == 0) requested[1] = 0;
}

/* ms_resource_allocation_node for a scalar resource (out of line: a lookup). */
void ms_resource_allocation_scalar(const ms_resource_spec *r, const ms_node_info *ni,
                                   int64_t pod_req, int64_t *requested, int64_t *allocatable);

/* For one node, upstream's calculateResourceAllocatableRequest per resource:
 * allocatable[i] and requested[i] (node's + pod's). A resource that does not
 * count for this pod and node (a scalar the pod does not request or the node
 * does not have, "pods", unknown names, zero allocatable) gets 0 and 0.
 * Inline: it runs for every scored node, twice with the default plugins. */
static inline void ms_resource_allocation_node(const ms_resource_allocation *ra,
                                               const ms_node_info *ni, const int64_t *pod_req,
                                               int64_t *requested, int64_t *allocatable) {
    const ms_resources *alloc = ni->node ? &ni->node->allocatable : NULL;
    const bool use_requested = ra->use_requested;
    for (uint32_t i = 0, n = ra->n; i < n; i++) {
        const ms_resource_spec *r = &ra->res[i];
        int64_t a = 0, q = 0;
        if (alloc) {
            switch (r->kind) {
            case MS_RA_CPU:
                a = alloc->v[MS_RES_CPU];
                q = (use_requested ? ni->requested.v[MS_RES_CPU] : ni->non_zero_cpu) + pod_req[i];
                break;
            case MS_RA_MEMORY:
                a = alloc->v[MS_RES_MEMORY];
                q = (use_requested ? ni->requested.v[MS_RES_MEMORY] : ni->non_zero_mem) + pod_req[i];
                break;
            case MS_RA_EPHEMERAL:
                a = alloc->v[MS_RES_EPHEMERAL];
                q = ni->requested.v[MS_RES_EPHEMERAL] + pod_req[i];
                break;
            case MS_RA_SCALAR: ms_resource_allocation_scalar(r, ni, pod_req[i], &q, &a); break;
            default: break;
            }
        }
        if (a == 0) q = 0;
        allocatable[i] = a;
        requested[i] = q;
    }
}

#endif
