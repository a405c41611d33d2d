/* DynamicResources (upstream's plugin for resource.k8s.io claims, in the
 * default profile since DRA went GA in 1.34). A pod with claims may only
 * be bound once every claim is allocated and reserved for it; binding it
 * otherwise gives a pod that never starts. Until the scheduler allocates
 * claims itself, PreFilter refuses every such pod, so that none is bound
 * with its devices missing. Pods without claims skip the plugin in
 * PreFilter and cost nothing per node. */
#include "builtin.h"

/* Said once per pod (PreFilter), so FailedScheduling reads "0/N nodes are
 * available: <this>." */
#define NOT_ALLOCATABLE "pod has resource claims, which moonsched cannot allocate yet"

static ms_code dynamic_resources_pre_filter(void *self, ms_cycle *c, ms_status *st) {
    (void)self;
    if (c->pod->nresource_claims == 0) return MS_SKIP;
    /* No event can help: spec.resourceClaims is immutable. */
    return ms_status_set(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE, NOT_ALLOCATABLE);
}

const ms_plugin_ops ms_plugin_dynamic_resources = {
    .name = "DynamicResources",
    .events = MS_EV_UNSCHEDULED_POD_UPDATE,
    .pre_filter = dynamic_resources_pre_filter,
};
