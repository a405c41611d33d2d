/* RemoveDuplicates: pods of the same owners with the same images are
 * duplicates; where a node runs more of them than an even spread over the
 * nodes they could run on allows (upstream's ceil(count / targets)), the
 * extra ones go. Pods owned by excludeOwnerKinds are left alone. */
#include <stdlib.h>
#include <string.h>

#include "api/toleration.h"
#include "descheduler/pass.h"
#include "descheduler/plugin.h"

typedef struct duplicates_args {
    ms_desched_pod_scope scope;
    ms_desched_strs exclude_owner_kinds;
} duplicates_args;

static ms_rc decode(ms_desched_args_ctx *c, const cJSON *args, void *out) {
    duplicates_args *a = out;
    ms_rc rc;
    if (args && ((rc = ms_desched_args_namespaces(c, args, "namespaces", &a->scope)) != MS_OK ||
                 (rc = ms_desched_args_strs(c, args, "excludeOwnerKinds", &a->exclude_owner_kinds)) != MS_OK))
        return rc;
    return MS_OK;
}

typedef struct entry {
    uint64_t key;            /* namespace, owners and images */
    uint32_t node;           /* index in the pass's nodes */
    uint32_t order;          /* the pod's place on its node */
    ms_pod *pod;
} entry;

/* Order-independent over owners and images (upstream sorts both): a sum
 * of per-item hashes, mixed. */
static uint64_t mix(uint64_t h) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

static uint64_t pod_key(const ms_pod *p) {
    uint64_t owners = 0, images = 0;
    for (uint32_t i = 0; i < p->meta.nowners; i++)
        owners += mix(((uint64_t)p->meta.owners[i].kind << 32) ^ p->meta.owners[i].name);
    for (uint32_t i = 0; i < p->nimages; i++) images += mix(p->images[i] + 0x9e3779b97f4a7c15ULL);
    return mix(mix(p->meta.namespace_) ^ owners) ^ mix(images + 1);
}

static int by_key(const void *x, const void *y) {
    const entry *a = x, *b = y;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    if (a->node != b->node) return a->node < b->node ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

static bool excluded_owner(const duplicates_args *a, const ms_pod *p) {
    for (uint32_t i = 0; i < p->meta.nowners; i++)
        if (ms_desched_strs_has(&a->exclude_owner_kinds, p->meta.owners[i].kind)) return true;
    return false;
}

/* upstream's getTargetNodes for one pod: nodes whose NoSchedule taints it
 * tolerates and whose labels match its node selector and affinity. */
static uint32_t target_nodes(const ms_desched_pass *ps, const ms_pod *p) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < ps->nnodes; i++) {
        const ms_node *node = ps->nodes[i]->node;
        if (ms_find_untolerated_taint(node->taints, node->ntaints, p->tolerations, p->ntolerations,
                                      MS_EFFECT_BIT(MS_EFFECT_NO_SCHEDULE)))
            continue;
        if (!ms_labels_subset(&p->node_selector, &node->meta.labels)) continue;
        if (p->has_node_affinity_required &&
            !ms_node_selector_matches(&p->node_affinity_required, &node->meta.labels, node->meta.name, ps->in))
            continue;
        n++;
    }
    return n;
}

/* One owner key, entries [from, to): evicts the surplus of each node.
 * false when the total limit was reached. */
static bool balance_group(ms_desched_pass *ps, const entry *e, uint32_t from, uint32_t to) {
    uint32_t targets = target_nodes(ps, e[from].pod);
    if (targets < 2) return true;
    uint32_t upper = (to - from + targets - 1) / targets;
    for (uint32_t i = from; i < to;) {
        uint32_t j = i;
        while (j < to && e[j].node == e[i].node) j++;
        /* e[i] is the node's first pod, the rest its duplicates */
        for (uint32_t k = i + (upper ? upper : 1); k < j; k++) {
            ms_evict_result r = ms_desched_evict(ps, e[k].pod, ps->nodes[e[k].node]->name,
                                                 "pod is a duplicate of others on its node");
            if (r == MS_EVICT_TOTAL_LIMIT) return false;
            if (r == MS_EVICT_NODE_LIMIT) break;
        }
        i = j;
    }
    return true;
}

static void run(const void *args, ms_desched_pass *ps) {
    const duplicates_args *a = args;
    uint32_t total = 0, n = 0;
    for (uint32_t i = 0; i < ps->nnodes; i++) total += ps->nodes[i]->npods;
    entry *e = malloc(sizeof *e * (total ? total : 1));
    if (!e) {
        ps->failed = true;
        return;
    }
    for (uint32_t i = 0; i < ps->nnodes; i++) {
        ms_node_info *ni = ps->nodes[i];
        for (uint32_t k = 0; k < ni->npods; k++) {
            ms_pod *p = ni->pods[k];
            if (!p->meta.nowners || excluded_owner(a, p) || ms_pod_is_terminal(p)) continue;
            if (ms_desched_pod_filter(ps, &a->scope, p, ni->name)) e[n++] = (entry){pod_key(p), i, k, p};
        }
    }
    qsort(e, n, sizeof *e, by_key);
    for (uint32_t i = 0; i < n;) {
        uint32_t j = i;
        bool dup = false;
        while (j < n && e[j].key == e[i].key) {
            dup |= j > i && e[j].node == e[j - 1].node;
            j++;
        }
        if (dup && !balance_group(ps, e, i, j)) break;
        i = j;
    }
    free(e);
}

const ms_desched_plugin_def ms_desched_remove_duplicates = {
    .name = "RemoveDuplicates",
    .balance = true,
    .args_size = sizeof(duplicates_args),
    .decode = decode,
    .run = run,
};
