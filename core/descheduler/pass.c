/* The state of one descheduling pass: the nodes considered, the eviction
 * limits with upstream's order of checks (total, then node, then
 * namespace), and the planned evictions and skips. */
#include "descheduler/pass.h"

#include <stdlib.h>
#include <string.h>

#include "api/toleration.h"
#include "base/array.h"

bool ms_desched_node_ready(const ms_node *n, const ms_interner *in) {
    /* upstream's IsReady: a node without a Ready condition counts as ready. */
    for (uint32_t i = 0; i < n->nconditions; i++)
        if (strcmp(ms_str_get(in, n->conditions[i].type), "Ready") == 0 &&
            n->conditions[i].status != MS_COND_TRUE)
            return false;
    return true;
}

static uint64_t owner_key(const ms_owner_ref *o) {
    return o->uid && *o->uid ? ms_hash_bytes(o->uid, strlen(o->uid)) : ((uint64_t)o->kind << 32 | o->name);
}

/* DefaultEvictor's minReplicas: the pods an owner has on the pass's
 * nodes (upstream counts its informer's pods by owner UID). */
static uint32_t owner_pods(void *ctx, const ms_owner_ref *o) {
    return (uint32_t)(uintptr_t)ms_map_get(&((ms_desched_pass *)ctx)->owners, owner_key(o));
}

static int count_owners(ms_desched_pass *ps) {
    for (uint32_t i = 0; i < ps->nnodes; i++)
        for (uint32_t k = 0; k < ps->nodes[i]->npods; k++) {
            const ms_pod *p = ps->nodes[i]->pods[k];
            if (!p->meta.nowners) continue;
            uint64_t key = owner_key(&p->meta.owners[0]);
            uintptr_t n = (uintptr_t)ms_map_get(&ps->owners, key);
            if (ms_map_put(&ps->owners, key, (void *)(n + 1)) != 0) return -1;
        }
    ps->env.owner_pods = owner_pods;
    ps->env.owner_ctx = ps;
    return 0;
}

int ms_desched_pass_init(ms_desched_pass *ps, const ms_desched_policy *policy, ms_interner *in,
                         ms_node_info *const *nodes, uint32_t nnodes, double now) {
    memset(ps, 0, sizeof *ps);
    ps->policy = policy;
    ps->in = in;
    ps->now = now;
    ms_resource_names_init(&ps->rn, in);
    ps->env.in = in;
    ps->env.now = now;
    ms_map_init(&ps->evicted);
    ms_map_init(&ps->owners);
    ms_arena_init(&ps->reasons, 1024);
    ps->nids = ms_interner_count(in) + 1;
    ps->per_node = calloc(ps->nids, sizeof *ps->per_node);
    ps->per_namespace = calloc(ps->nids, sizeof *ps->per_namespace);
    ps->nodes = calloc(nnodes ? nnodes : 1, sizeof *ps->nodes);
    if (!ps->per_node || !ps->per_namespace || !ps->nodes) return -1;
    for (uint32_t i = 0; i < nnodes; i++) {
        const ms_node *n = nodes[i]->node;
        if (!n || !ms_desched_node_ready(n, in)) continue;
        if (policy->has_node_selector &&
            !ms_label_selector_matches(&policy->node_selector, &n->meta.labels, in))
            continue;
        ps->nodes[ps->nnodes++] = nodes[i];
    }
    return count_owners(ps);
}

void ms_desched_pass_free(ms_desched_pass *ps) {
    free(ps->per_node);
    free(ps->per_namespace);
    free(ps->nodes);
    free(ps->evictions);
    free(ps->skips);
    ms_map_free(&ps->evicted);
    ms_map_free(&ps->owners);
    ms_arena_free(&ps->reasons);
    memset(ps, 0, sizeof *ps);
}

const ms_node_info *ms_desched_live_node(const ms_desched_pass *ps, uint32_t i) {
    const ms_node_info *ni = ps->live ? ps->live(ps->live_ctx, ps->nodes[i]->name) : NULL;
    return ni && ni->node ? ni : ps->nodes[i];
}

bool ms_desched_pass_evicted(const ms_desched_pass *ps, const ms_pod *p) {
    return ms_map_has(&ps->evicted, p->meta.uid_hash);
}

static void add_skip(ms_desched_pass *ps, ms_pod *p, ms_str node, const char *reason) {
    if (!ms_array_grow((void **)&ps->skips, &ps->skipcap, ps->nskips + 1, sizeof *ps->skips)) {
        ps->failed = true;
        return;
    }
    ps->skips[ps->nskips++] = (ms_desched_skip){p, node, ps->strategy, reason};
}

/* Pod requests against what is left on the node (upstream's fitsRequest):
 * cpu, memory, ephemeral-storage, one more pod, extended resources. */
static bool fits_resources(const ms_pod *p, const ms_node_info *ni) {
    const ms_resources *alloc = &ni->node->allocatable, *used = &ni->requested;
    if (used->v[MS_RES_PODS] + 1 > alloc->v[MS_RES_PODS]) return false;
    for (int r = 0; r < MS_RES_NBUILTIN; r++) {
        if (r == MS_RES_PODS || !p->requests.v[r]) continue;
        if (p->requests.v[r] > alloc->v[r] - used->v[r]) return false;
    }
    for (uint32_t i = 0; i < p->requests.nscalar; i++) {
        const ms_scalar *s = &p->requests.scalar[i];
        if (s->value && s->value > ms_resources_scalar(alloc, s->name) - ms_resources_scalar(used, s->name))
            return false;
    }
    return true;
}

bool ms_desched_pod_fits_node(const ms_desched_pass *ps, const ms_pod *p, const ms_node_info *ni,
                              bool check_resources) {
    const ms_node *n = ni->node;
    if (!n || n->unschedulable) return false;
    if (!ms_labels_subset(&p->node_selector, &n->meta.labels)) return false;
    if (p->has_node_affinity_required &&
        !ms_node_selector_matches(&p->node_affinity_required, &n->meta.labels, n->meta.name, ps->in))
        return false;
    if (ms_find_untolerated_taint(n->taints, n->ntaints, p->tolerations, p->ntolerations,
                                  MS_DO_NOT_SCHEDULE_EFFECTS))
        return false;
    return !check_resources || fits_resources(p, ni);
}

bool ms_desched_pod_fits_other_node(const ms_desched_pass *ps, const ms_pod *p, ms_str node) {
    for (uint32_t i = 0; i < ps->nnodes; i++)
        if (ps->nodes[i]->name != node && ms_desched_pod_fits_node(ps, p, ps->nodes[i], true))
            return true;
    return false;
}

static bool node_selected(const ms_default_evictor_args *a, const ms_node_info *ni,
                          const ms_interner *in) {
    return !a->has_node_selector || ms_label_selector_matches(&a->node_selector, &ni->node->meta.labels, in);
}

/* DefaultEvictor's PreEvictionFilter: with nodeFit, the pod must fit some
 * other ready node (of the evictor's nodeSelector); with a
 * namespaceLabelSelector, its namespace must be known and match. */
static const char *pre_eviction_filter(const ms_desched_pass *ps, const ms_pod *p, ms_str node) {
    const ms_default_evictor_args *a = &ps->profile->evictor;
    if (a->node_fit) {
        bool fits = false;
        for (uint32_t i = 0; i < ps->nnodes && !fits; i++)
            fits = ps->nodes[i]->name != node && node_selected(a, ps->nodes[i], ps->in) &&
                   ms_desched_pod_fits_node(ps, p, ps->nodes[i], true);
        if (!fits)
            return "pod does not fit on any other node because of nodeSelector(s), Taint(s), or nodes "
                   "marked as unschedulable";
    }
    if (!a->has_namespace_selector) return NULL;
    const ms_labels *ns = ps->env.namespace_labels ? ps->env.namespace_labels(ps->env.ns_ctx, p->meta.namespace_) : NULL;
    if (!ns || !ms_label_selector_matches(&a->namespace_selector, ns, ps->in))
        return "pod namespace do not match the namespaceLabelSelector filter in the policy parameter";
    return NULL;
}

const char *ms_desched_pod_evictable(ms_desched_pass *ps, const ms_pod *p, ms_str node) {
    char buf[1024];
    const char *why = ms_default_evictor_filter(&ps->profile->evictor, p, &ps->env, buf, sizeof buf);
    if (why == buf && !(why = ms_arena_strdup(&ps->reasons, buf))) ps->failed = true;
    if (!why && ps->profile->nevictable) why = ps->policy->ext->evictable(ps->profile, p);
    return why ? why : pre_eviction_filter(ps, p, node);
}

bool ms_desched_pod_filter(ms_desched_pass *ps, const ms_desched_pod_scope *scope, ms_pod *p,
                           ms_str node) {
    if (scope && !ms_desched_scope_matches(scope, p, ps->in)) return false;
    if (ms_desched_pass_evicted(ps, p)) return false;
    const char *why = ms_desched_pod_evictable(ps, p, node);
    if (why) add_skip(ps, p, node, why);
    return why == NULL;
}

/* A name interned after the pass began has no count yet: it gets the
 * pass's spare slot, zeroed. */
static uint32_t *slot(ms_desched_pass *ps, uint32_t *counts, ms_str id) {
    if (id < ps->nids) return &counts[id];
    ps->spare = 0;
    return &ps->spare;
}

ms_evict_result ms_desched_evict(ms_desched_pass *ps, ms_pod *p, ms_str node, const char *reason) {
    const ms_desched_policy *pol = ps->policy;
    if (ms_desched_pass_evicted(ps, p)) return MS_EVICT_SKIPPED;
    if (pol->max_total.set && ps->total + 1 > pol->max_total.value) {
        add_skip(ps, p, node, "maximum number of evicted pods per a descheduling cycle reached");
        return MS_EVICT_TOTAL_LIMIT;
    }
    uint32_t *on_node = slot(ps, ps->per_node, node);
    uint32_t *in_ns = slot(ps, ps->per_namespace, p->meta.namespace_);
    if (pol->max_per_node.set && *on_node + 1 > pol->max_per_node.value) {
        add_skip(ps, p, node, "maximum number of evicted pods per node reached");
        return MS_EVICT_NODE_LIMIT;
    }
    if (pol->max_per_namespace.set && *in_ns + 1 > pol->max_per_namespace.value) {
        add_skip(ps, p, node, "maximum number of evicted pods per namespace reached");
        return MS_EVICT_NAMESPACE_LIMIT;
    }
    ms_str dest = MS_STR_NONE;
    if (ps->place) {
        const char *why = ps->place(ps->place_ctx, ps, p, node, &dest);
        if (why) {
            add_skip(ps, p, node, why);
            return MS_EVICT_SKIPPED;
        }
    }
    if (!ms_array_grow((void **)&ps->evictions, &ps->evcap, ps->nevictions + 1, sizeof *ps->evictions) ||
        ms_map_put(&ps->evicted, p->meta.uid_hash, (void *)(uintptr_t)(ps->nevictions + 1)) != 0) {
        ps->failed = true;
        return MS_EVICT_SKIPPED;
    }
    ps->evictions[ps->nevictions++] =
        (ms_desched_eviction){p, node, dest, ps->profile->name, ps->strategy, reason};
    (*on_node)++;
    (*in_ns)++;
    ps->total++;
    return MS_EVICTED;
}

void ms_desched_evict_violating(ms_desched_pass *ps, const void *args, const ms_desched_pod_scope *scope,
                                ms_desched_violates_fn violates, const char *reason) {
    for (uint32_t i = 0; i < ps->nnodes; i++) {
        ms_node_info *ni = ps->nodes[i];
        for (uint32_t k = 0; k < ni->npods; k++) {
            ms_pod *p = ni->pods[k];
            if (!violates(args, ps, p, ni) || !ms_desched_pod_filter(ps, scope, p, ni->name)) continue;
            ms_evict_result r = ms_desched_evict(ps, p, ni->name, reason);
            if (r == MS_EVICT_TOTAL_LIMIT) return;
            if (r == MS_EVICT_NODE_LIMIT) break;
        }
    }
}

/* upstream's SortPodsBasedOnPriorityLowToHigh: no priority first, then by
 * priority, then BestEffort, Burstable, Guaranteed. */
static bool evicted_before(const ms_pod *a, const ms_pod *b) {
    if (a->has_priority != b->has_priority) return !a->has_priority;
    if (a->priority != b->priority) return a->priority < b->priority;
    return a->qos < b->qos;
}

/* Stable (upstream's order among equals is the informer's, arbitrary;
 * here it is the node's), in place: a node's pods are few. */
void ms_desched_sort_low_priority_first(ms_pod **pods, uint32_t n) {
    for (uint32_t i = 1; i < n; i++) {
        ms_pod *x = pods[i];
        uint32_t j = i;
        for (; j > 0 && evicted_before(x, pods[j - 1]); j--) pods[j] = pods[j - 1];
        pods[j] = x;
    }
}
