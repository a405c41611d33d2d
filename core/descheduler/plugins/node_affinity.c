/* RemovePodsViolatingNodeAffinity: for nodeAffinityType
 * requiredDuringSchedulingIgnoredDuringExecution, evicts pods whose node
 * no longer matches their required node affinity (or nodeSelector) when
 * some other node fits them; for preferredDuringSchedulingIgnoredDuringExecution,
 * pods for which a fitting node weighs more in their preferred terms than
 * their own. */
#include <string.h>

#include "descheduler/pass.h"
#include "descheduler/plugin.h"

typedef struct node_affinity_args {
    ms_desched_pod_scope scope;
    bool required, preferred;
} node_affinity_args;

static ms_rc decode(ms_desched_args_ctx *c, const cJSON *args, void *out) {
    node_affinity_args *a = out;
    ms_desched_strs types = {0};
    ms_rc rc;
    if (args && ((rc = ms_desched_args_namespaces(c, args, "namespaces", &a->scope)) != MS_OK ||
                 (rc = ms_desched_args_selector(c, args, &a->scope)) != MS_OK ||
                 (rc = ms_desched_args_strs(c, args, "nodeAffinityType", &types)) != MS_OK))
        return rc;
    if (!types.n) ms_desched_args_invalid(c, "nodeAffinityType needs to be set");
    for (uint32_t i = 0; i < types.n; i++) {
        const char *t = ms_str_get(c->in, types.v[i]);
        if (strcmp(t, "requiredDuringSchedulingIgnoredDuringExecution") == 0) a->required = true;
        else if (strcmp(t, "preferredDuringSchedulingIgnoredDuringExecution") == 0) a->preferred = true;
        else ms_desched_args_invalid(c, "invalid nodeAffinityType: %s", t);
    }
    return MS_OK;
}

static bool matches_node(const ms_desched_pass *ps, const ms_pod *p, const ms_node *n) {
    return ms_labels_subset(&p->node_selector, &n->meta.labels) &&
           (!p->has_node_affinity_required ||
            ms_node_selector_matches(&p->node_affinity_required, &n->meta.labels, n->meta.name, ps->in));
}

static int64_t preferred_weight(const ms_desched_pass *ps, const ms_pod *p, const ms_node *n) {
    int64_t w = 0;
    for (uint32_t i = 0; i < p->nnode_affinity_preferred; i++)
        if (ms_node_selector_term_matches(&p->node_affinity_preferred[i].term, &n->meta.labels,
                                          n->meta.name, ps->in))
            w += p->node_affinity_preferred[i].weight;
    return w;
}

/* The best weight among the nodes that fit the pod (its own included). */
static int64_t best_weight(const ms_desched_pass *ps, const ms_pod *p) {
    int64_t best = 0;
    for (uint32_t i = 0; i < ps->nnodes; i++) {
        if (!ms_desched_pod_fits_node(ps, p, ps->nodes[i], true)) continue;
        int64_t w = preferred_weight(ps, p, ps->nodes[i]->node);
        if (w > best) best = w;
    }
    return best;
}

static bool violates(const void *args, const ms_desched_pass *ps, const ms_pod *p,
                     const ms_node_info *ni) {
    const node_affinity_args *a = args;
    if (a->required && p->has_node_affinity_required && !matches_node(ps, p, ni->node) &&
        ms_desched_pod_fits_other_node(ps, p, ni->name))
        return true;
    return a->preferred && p->nnode_affinity_preferred &&
           best_weight(ps, p) > preferred_weight(ps, p, ni->node);
}


static void run(const void *args, ms_desched_pass *ps) {
    ms_desched_evict_violating(ps, args, &((const node_affinity_args *)args)->scope, violates, "pod violates its node affinity");
}

static const char *target_violation(const void *args, const ms_desched_pass *ps, const ms_pod *p,
                                    const ms_node_info *target) {
    return violates(args, ps, p, target) ? "it would violate its node affinity where it lands" : NULL;
}

const ms_desched_plugin_def ms_desched_remove_pods_violating_node_affinity = {
    .name = "RemovePodsViolatingNodeAffinity",
    .deschedule = true,
    .args_size = sizeof(node_affinity_args),
    .decode = decode,
    .run = run,
    .target_violation = target_violation,
};
