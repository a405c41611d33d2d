/* RemoveFailedPods: evicts pods in phase Failed that are at least
 * minPodLifetimeSeconds old (default 3600), not owned by an excluded kind,
 * and, with `reasons`, failed for one of them (the pod's reason or a
 * container's waiting or terminated reason). */
#include "descheduler/pass.h"
#include "descheduler/plugin.h"

typedef struct failed_pods_args {
    ms_desched_pod_scope scope;
    ms_desched_strs exclude_owner_kinds, reasons;
    uint32_t min_lifetime;
    bool including_init;
} failed_pods_args;

static ms_rc decode(ms_desched_args_ctx *c, const cJSON *args, void *out) {
    failed_pods_args *a = out;
    bool has_min = false;
    ms_rc rc;
    a->min_lifetime = 3600;
    if (args && ((rc = ms_desched_args_namespaces(c, args, "namespaces", &a->scope)) != MS_OK ||
                 (rc = ms_desched_args_selector(c, args, &a->scope)) != MS_OK ||
                 (rc = ms_desched_args_strs(c, args, "excludeOwnerKinds", &a->exclude_owner_kinds)) != MS_OK ||
                 (rc = ms_desched_args_uint(c, args, "minPodLifetimeSeconds", &has_min, &a->min_lifetime)) != MS_OK ||
                 (rc = ms_desched_args_strs(c, args, "reasons", &a->reasons)) != MS_OK ||
                 (rc = ms_json_bool(c->r, "includingInitContainers", ms_json_get(args, "includingInitContainers"),
                                    &a->including_init)) != MS_OK))
        return rc;
    if (args && ms_json_get(args, "exitCodes")) return ms_json_fail(c->r, "exitCodes", "not supported");
    return MS_OK;
}

static bool reason_matches(const failed_pods_args *a, const ms_pod *p) {
    if (!a->reasons.n) return true;
    if (p->status_reason && ms_desched_strs_has(&a->reasons, p->status_reason)) return true;
    for (uint32_t k = a->including_init ? 0 : p->ninit_reasons; k < p->ncontainer_reasons; k++)
        if (ms_desched_strs_has(&a->reasons, p->container_reasons[k])) return true;
    return false;
}

static bool violates(const void *args, const ms_desched_pass *ps, const ms_pod *p, const ms_node_info *ni) {
    const failed_pods_args *a = args;
    (void)ni;
    if (p->phase != MS_PHASE_FAILED) return false;
    if (ps->now - p->meta.creation < (double)a->min_lifetime) return false;
    for (uint32_t i = 0; i < p->meta.nowners; i++)
        if (ms_desched_strs_has(&a->exclude_owner_kinds, p->meta.owners[i].kind)) return false;
    return reason_matches(a, p);
}


static void run(const void *args, ms_desched_pass *ps) {
    ms_desched_evict_violating(ps, args, &((const failed_pods_args *)args)->scope, violates, "pod failed");
}

const ms_desched_plugin_def ms_desched_remove_failed_pods = {
    .name = "RemoveFailedPods",
    .deschedule = true,
    .args_size = sizeof(failed_pods_args),
    .decode = decode,
    .run = run,
};
