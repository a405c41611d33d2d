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

/* For one node, upstream's calculateResourceAllocatableRequest per resource:
 * allocatable[i] and requested[i] (node's + pod's). A resource that does not
 * count for this pod and node (a scalar the pod does not request or the node
 * does not have, "pods", unknown names, zero allocatable) gets 0 and 0. */
void ms_resource_allocation_node(const ms_resource_allocation *ra, const ms_node_info *ni,
                                 const int64_t *pod_req, int64_t *requested, int64_t *allocatable);

#endif
