/* RemovePodsViolatingInterPodAntiAffinity: evicts a pod whose required
 * anti-affinity terms match another pod in the same topology domain
 * (nodes with equal values of the term's topologyKey, or the same node),
 * lowest priority first on each node. Once a pod goes, the pods it
 * conflicted with no longer count it. As upstream, a term's namespaces are
 * its `namespaces` list or the pod's own namespace. */
#include <stdlib.h>
#include <string.h>

#include "descheduler/pass.h"
#include "descheduler/plugin.h"

typedef struct anti_affinity_args {
    ms_desched_pod_scope scope;
} anti_affinity_args;

static ms_rc decode(ms_desched_args_ctx *c, const cJSON *args, void *out) {
    anti_affinity_args *a = out;
    ms_rc rc;
    if (args && ((rc = ms_desched_args_namespaces(c, args, "namespaces", &a->scope)) != MS_OK ||
                 (rc = ms_desched_args_selector(c, args, &a->scope)) != MS_OK))
        return rc;
    return MS_OK;
}

static bool term_namespace(const ms_pod_affinity_term *t, const ms_pod *owner, ms_str ns) {
    if (!t->nnamespaces) return ns == owner->meta.namespace_;
    for (uint32_t i = 0; i < t->nnamespaces; i++)
        if (t->namespaces[i] == ns) return true;
    return false;
}

static bool same_domain(const ms_node_info *a, const ms_node_info *b, ms_str key) {
    if (a == b) return true;
    ms_str va = ms_labels_get(&a->node->meta.labels, key), vb = ms_labels_get(&b->node->meta.labels, key);
    return va != MS_STR_NONE && va == vb;
}

/* upstream's CheckPodsWithAntiAffinityExist over the pods still placed. */
static bool conflicts(const ms_desched_pass *ps, const ms_pod *p, const ms_node_info *own) {
    for (uint32_t t = 0; t < p->pod_anti_affinity.nrequired; t++) {
        const ms_pod_affinity_term *term = &p->pod_anti_affinity.required[t];
        for (uint32_t i = 0; i < ps->nnodes; i++) {
            const ms_node_info *ni = ps->nodes[i];
            if (!same_domain(own, ni, term->topology_key)) continue;
            for (uint32_t k = 0; k < ni->npods; k++) {
                const ms_pod *q = ni->pods[k];
                if (q == p || q->meta.uid_hash == p->meta.uid_hash || ms_pod_is_terminal(q)) continue;
                if (!term_namespace(term, p, q->meta.namespace_) ||
                    !ms_label_selector_matches(&term->selector, &q->meta.labels, ps->in))
                    continue;
                if (!ms_desched_pass_evicted(ps, q)) return true;
            }
        }
    }
    return false;
}

static void run(const void *args, ms_desched_pass *ps) {
    const anti_affinity_args *a = args;
    for (uint32_t i = 0; i < ps->nnodes; i++) {
        ms_node_info *ni = ps->nodes[i];
        ms_pod **pods = malloc(sizeof *pods * (ni->npods ? ni->npods : 1));
        if (!pods) {
            ps->failed = true;
            return;
        }
        uint32_t n = ni->npods;
        if (n) memcpy(pods, ni->pods, sizeof *pods * n);   /* a node without pods has none to copy (NULL) */
        ms_desched_sort_low_priority_first(pods, n);
        ms_evict_result r = MS_EVICTED;
        for (uint32_t k = 0; k < n && r != MS_EVICT_NODE_LIMIT && r != MS_EVICT_TOTAL_LIMIT; k++) {
            ms_pod *p = pods[k];
            if (!p->pod_anti_affinity.nrequired || !conflicts(ps, p, ni) ||
                !ms_desched_pod_filter(ps, &a->scope, p, ni->name))
                continue;
            r = ms_desched_evict(ps, p, ni->name, "pod violates its inter-pod anti-affinity");
        }
        free(pods);
        if (r == MS_EVICT_TOTAL_LIMIT) return;
    }
}

static const char *target_violation(const void *args, const ms_desched_pass *ps, const ms_pod *p,
                                    const ms_node_info *target) {
    (void)args;
    return p->pod_anti_affinity.nrequired && conflicts(ps, p, target)
               ? "it would violate its inter-pod anti-affinity where it lands"
               : NULL;
}

const ms_desched_plugin_def ms_desched_remove_pods_violating_inter_pod_anti_affinity = {
    .name = "RemovePodsViolatingInterPodAntiAffinity",
    .deschedule = true,
    .args_size = sizeof(anti_affinity_args),
    .decode = decode,
    .run = run,
    .target_violation = target_violation,
};
