/* InterPodAffinity Filter: the pod's required affinity and anti-affinity
 * terms, and the existing pods' required anti-affinity terms, read from
 * PreFilter's counts with a working copy's difference applied. */
#include "inter_pod_affinity.h"

#define ERR_EXISTING_ANTI "node(s) didn't satisfy existing pods anti-affinity rules"
#define ERR_AFFINITY "node(s) didn't match pod affinity rules"
#define ERR_ANTI_AFFINITY "node(s) didn't match pod anti-affinity rules"

/* A count as the copy sees it. */
static inline int64_t count_at(const ipa_plugin *p, const ipa_node_delta *nd, uint32_t which,
                               ms_str key, ms_str value) {
    int64_t v = ipa_pc_get(&p->counts[which], key, value);
    return nd->n ? v + ipa_delta_of(nd, which, key) : v;
}

/* How many pairs of a map are not 0 once the copy's delta is applied
 * (upstream deletes a pair whose count drops to 0: len(map)). */
static uint32_t nonzero_with_delta(const ipa_plugin *p, const ipa_node_delta *nd, uint32_t which,
                                   const ms_labels *nl);

/* Filter runs on the snapshot's NodeInfos, without a delta, for nearly
 * every node: that case stays a load. */
static inline uint32_t nonzero_at(const ipa_plugin *p, const ipa_node_delta *nd, uint32_t which,
                                  const ms_labels *nl) {
    return nd->n ? nonzero_with_delta(p, nd, which, nl) : p->counts[which].nonzero;
}

/* The node's value for a topology key, remembering the last one: the
 * pod's anti-affinity terms and the existing pods' terms usually share
 * their key (kubernetes.io/hostname), so the second lookup is free. */
typedef struct node_value_memo {
    ms_str key, value;
} node_value_memo;

static inline ms_str node_value(const ms_labels *nl, ms_str key, node_value_memo *m) {
    if (m->key != key) *m = (node_value_memo){key, ms_labels_get(nl, key)};
    return m->value;
}

static uint32_t nonzero_with_delta(const ipa_plugin *p, const ipa_node_delta *nd, uint32_t which,
                           const ms_labels *nl) {
    int64_t n = p->counts[which].nonzero;
    for (uint32_t i = 0; i < nd->n; i++) {
        if (nd->v[i].which != which || nd->v[i].d == 0) continue;
        int64_t old = ipa_pc_get(&p->counts[which], nd->v[i].key, ms_labels_get(nl, nd->v[i].key));
        n += (old + nd->v[i].d != 0) - (old != 0);
    }
    return n > 0 ? (uint32_t)n : 0;
}

/* Filter from the counts: pod affinity, a working copy's difference, or
 * a node the verdicts do not cover. Apart, so that the common case below
 * stays a leaf that saves no registers. */
static __attribute__((noinline)) ms_code filter_from_counts(ipa_plugin *p, ms_cycle *c, const ipa_filter_state *s,
                                                            const ms_node_info *ni, ms_status *st) {
    const ms_labels *nl = &ni->node->meta.labels;
    node_value_memo memo = {MS_STR_NONE, MS_STR_NONE};
    ipa_node_delta nd = {0, NULL};
    if ((ni->scratch || ni == p->h->scratch) && ipa_node_difference(p, c, s, ni, &nd) != 0)
        return ipa_oom(st);

    /* satisfyPodAffinity */
    if (s->naff) {
        bool pods_exist = true;
        for (uint32_t t = 0; t < s->naff; t++) {
            ms_str key = s->aff[t].topology_key, v = ms_labels_get(nl, key);
            if (v == MS_STR_NONE)
                return ms_status_set(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_AFFINITY);
            if (count_at(p, &nd, C_AFFINITY, key, v) <= 0) pods_exist = false;
        }
        /* The first pod of a group whose terms select itself may go anywhere
         * its topology keys exist. */
        if (!pods_exist && !(s->self_match && nonzero_at(p, &nd, C_AFFINITY, nl) == 0))
            return ms_status_set(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_AFFINITY);
    }

    /* The snapshot's own NodeInfo: both verdicts kept per node. */
    bool anti, existing;
    if (!nd.n && ipa_verdicts_of(&p->verdicts, ni, &anti, &existing)) {
        if (anti) return ms_status_set(st, MS_UNSCHEDULABLE, ERR_ANTI_AFFINITY);
        if (existing) return ms_status_set(st, MS_UNSCHEDULABLE, ERR_EXISTING_ANTI);
        return MS_SUCCESS;
    }

    /* satisfyPodAntiAffinity */
    if (s->nanti && nonzero_at(p, &nd, C_ANTI, nl))
        for (uint32_t t = 0; t < s->nanti; t++) {
            ms_str key = s->anti[t].topology_key, v = node_value(nl, key, &memo);
            if (v != MS_STR_NONE && count_at(p, &nd, C_ANTI, key, v) > 0)
                return ms_status_set(st, MS_UNSCHEDULABLE, ERR_ANTI_AFFINITY);
        }

    /* satisfyExistingPodsAntiAffinity: only the keys that have counts can
     * match one of the node's labels (an added pod's key is in the delta). */
    const ipa_pair_counts *ea = &p->counts[C_EXISTING_ANTI];
    for (uint32_t k = 0; ea->nonzero && k < ea->nkeys; k++) {
        ms_str v = node_value(nl, ea->keys[k], &memo);
        if (v != MS_STR_NONE && count_at(p, &nd, C_EXISTING_ANTI, ea->keys[k], v) > 0)
            return ms_status_set(st, MS_UNSCHEDULABLE, ERR_EXISTING_ANTI);
    }
    for (uint32_t i = 0; i < nd.n; i++)
        if (nd.v[i].which == C_EXISTING_ANTI && nd.v[i].d > 0 &&
            count_at(p, &nd, C_EXISTING_ANTI, nd.v[i].key, ms_labels_get(nl, nd.v[i].key)) > 0)
            return ms_status_set(st, MS_UNSCHEDULABLE, ERR_EXISTING_ANTI);
    return MS_SUCCESS;
}

ms_code ipa_filter(void *self, ms_cycle *c, const ms_node_info *ni, ms_status *st) {
    ipa_plugin *p = self;
    const ipa_filter_state *s = c->state[c->current];
    if (!s) return ms_status_set(st, MS_ERROR, IPA_NAME ": PreFilter state missing");
    if (s->serial != p->filter_serial)
        return ms_status_set(st, MS_ERROR, IPA_NAME ": PreFilter state of another cycle");
    if (!ni->node) return ms_status_set(st, MS_ERROR, "node not found");
    /* Without affinity terms, the snapshot's own NodeInfo (no difference
     * to apply) is answered by its verdicts. */
    bool anti, existing;
    if (!s->naff && !ni->scratch && ni != p->h->scratch && ipa_verdicts_of(&p->verdicts, ni, &anti, &existing)) {
        if (anti) return ms_status_set(st, MS_UNSCHEDULABLE, ERR_ANTI_AFFINITY);
        if (existing) return ms_status_set(st, MS_UNSCHEDULABLE, ERR_EXISTING_ANTI);
        return MS_SUCCESS;
    }
    return filter_from_counts(p, c, s, ni, st);
}
