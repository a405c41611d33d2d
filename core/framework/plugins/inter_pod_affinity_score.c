/* InterPodAffinity PreScore, Score and NormalizeScore: the pod's
 * preferred terms, and the existing pods' preferred terms and required
 * affinity terms (hardPodAffinityWeight), summed per topology pair. */
#include "inter_pod_affinity.h"

#include "moonsched/namespaces.h"
#include "backend/cache_snapshot.h"

typedef struct prescore_terms {
    uint32_t n;                    /* preferred affinity then anti-affinity terms */
    ipa_cterm *terms;
    ms_str *vals;                  /* per term: the current node's topology value */
    const ms_labels *ns_labels;
} prescore_terms;

/* What one node adds to the topology scores (upstream processExistingPod
 * for each of its pods). Without preferred terms of its own the pod is
 * scored only by existing pods that have affinity terms. */
static int count_score_node(ipa_plugin *p, const prescore_terms *pt, const ms_pod *pod,
                            const ms_node_info *ni, bool has_constraints) {
    ipa_tracker *tr = &p->score_tracker;
    ipa_node_rec *r = ipa_retract(p, tr, ni->name);
    if (ni->npods == 0 || !ni->node || ni->node->meta.labels.n == 0) return 0;
    if (!has_constraints && ni->npods_with_affinity == 0) return 0;
    const ms_labels *nl = &ni->node->meta.labels;
    ms_str name = ni->name;
    for (uint32_t t = 0; t < pt->n; t++) pt->vals[t] = ms_labels_get(nl, pt->terms[t].topology_key);
    for (uint32_t k = 0; k < ni->npods; k++) {
        const ms_pod *e = ni->pods[k];
        if (!has_constraints && !ms_pod_has_affinity(e)) continue;
        for (uint32_t t = 0; t < pt->n; t++)
            if (pt->vals[t] != MS_STR_NONE && ipa_cterm_matches(&pt->terms[t], e, p->in) &&
                ipa_emit(p, tr, &r, name, C_SCORE, pt->terms[t].topology_key, pt->vals[t],
                     (int32_t)pt->terms[t].weight) != 0)
                return -1;
        if (p->hard_pod_affinity_weight > 0)
            for (uint32_t t = 0; t < e->pod_affinity.nrequired; t++) {
                const ms_pod_affinity_term *term = &e->pod_affinity.required[t];
                ms_str v = ms_labels_get(nl, term->topology_key);
                if (v != MS_STR_NONE && ipa_term_matches(term, e, pod, pt->ns_labels, p->in) &&
                    ipa_emit(p, tr, &r, name, C_SCORE, term->topology_key, v,
                         (int32_t)p->hard_pod_affinity_weight) != 0)
                    return -1;
            }
        for (int anti = 0; anti < 2; anti++) {
            const ms_pod_affinity *pa = anti ? &e->pod_anti_affinity : &e->pod_affinity;
            for (uint32_t t = 0; t < pa->npreferred; t++) {
                const ms_weighted_pod_affinity_term *wt = &pa->preferred[t];
                ms_str v = ms_labels_get(nl, wt->term.topology_key);
                if (v != MS_STR_NONE && ipa_term_matches(&wt->term, e, pod, pt->ns_labels, p->in) &&
                    ipa_emit(p, tr, &r, name, C_SCORE, wt->term.topology_key, v,
                         anti ? -wt->weight : wt->weight) != 0)
                    return -1;
            }
        }
    }
    return 0;
}

static int compile_preferred(ms_arena *a, const ms_pod *pod, const ms_namespaces *nss,
                             const ms_interner *in, prescore_terms *pt) {
    const ms_pod_affinity *aff = &pod->pod_affinity, *anti = &pod->pod_anti_affinity;
    uint32_t n = aff->npreferred + anti->npreferred;
    pt->n = n;
    if (n == 0) return 0;
    pt->terms = MS_ARENA_NEW(a, ipa_cterm, n);
    pt->vals = MS_ARENA_NEW(a, ms_str, n);
    if (!pt->terms || !pt->vals) return -1;
    for (uint32_t i = 0; i < n; i++) {
        bool is_anti = i >= aff->npreferred;
        const ms_weighted_pod_affinity_term *wt =
            is_anti ? &anti->preferred[i - aff->npreferred] : &aff->preferred[i];
        if (ipa_compile_term(a, pod, &wt->term, is_anti ? -(int64_t)wt->weight : wt->weight, nss, in,
                         &pt->terms[i]) != 0)
            return -1;
    }
    return 0;
}

static int count_scores(ipa_plugin *p, ms_cycle *c, const prescore_terms *pt,
                        bool has_constraints) {
    ipa_tracker *tr = &p->score_tracker;
    const ms_snapshot *snap = ipa_snapshot_of(c);
    uint64_t nsgen = ipa_ns_generation_of(p->h);
    bool current = ipa_tracker_current(tr, snap, c->pod, nsgen, false);
    tr->valid = false;
    if (current) {
        if (snap->update_seq != tr->seq)
            for (uint32_t i = 0; i < snap->nupdated; i++)
                if (count_score_node(p, pt, c->pod, snap->updated[i], has_constraints) != 0) return -1;
    } else {
        ipa_pc_clear(&p->counts[C_SCORE]);
        ipa_tracker_reset(tr, snap);
        ms_node_info *const *list = has_constraints ? snap->nodes : snap->have_pods_with_affinity;
        uint32_t n = has_constraints ? snap->nnodes : snap->nhave_affinity;
        for (uint32_t i = 0; i < n; i++)
            if (count_score_node(p, pt, c->pod, list[i], has_constraints) != 0) return -1;
    }
    ipa_tracker_commit(tr, snap, c->pod, nsgen);
    return 0;
}

ms_code ipa_pre_score(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n,
                             ms_status *st) {
    (void)nodes;
    (void)n;
    ipa_plugin *p = self;
    const ms_pod *pod = c->pod;
    p->score_serial++;
    bool has_constraints = pod->pod_affinity.npreferred || pod->pod_anti_affinity.npreferred;
    if (p->ignore_preferred_terms_of_existing_pods && !has_constraints)
        return ms_status_set(st, MS_SKIP, NULL);
    score_state *ss = MS_ARENA_NEW(c->arena, score_state, 1);
    prescore_terms pt = {0};
    if (!ss || compile_preferred(c->arena, pod, p->h->namespaces, p->in, &pt) != 0) return ipa_oom(st);
    pt.ns_labels = ipa_namespace_labels(p->h, pod->meta.namespace_);
    if (pt.n == 0 && !(pt.vals = MS_ARENA_NEW(c->arena, ms_str, 1))) return ipa_oom(st);
    if (count_scores(p, c, &pt, has_constraints) != 0) return ipa_oom(st);
    /* upstream: nothing matched anywhere, nothing to score. */
    if (p->score_tracker.entries == 0) return ms_status_set(st, MS_SKIP, NULL);
    ss->serial = p->score_serial;
    c->state[c->current] = ss;
    return MS_SUCCESS;
}

static ms_code check_score_state(const ipa_plugin *p, const ms_cycle *c, ms_status *st) {
    const score_state *ss = c->state[c->current];
    if (!ss) return ms_status_set(st, MS_ERROR, IPA_NAME ": PreScore state missing");
    if (ss->serial != p->score_serial)
        return ms_status_set(st, MS_ERROR, IPA_NAME ": PreScore state of another cycle");
    return MS_SUCCESS;
}

ms_code ipa_score(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n,
                         int64_t *scores, ms_status *st) {
    const ipa_plugin *p = self;
    if (check_score_state(p, c, st) != MS_SUCCESS) return MS_ERROR;
    const ipa_pair_counts *sc = &p->counts[C_SCORE];
    for (uint32_t i = 0; i < n; i++) {
        int64_t s = 0;
        const ms_node *node = nodes[i]->node;
        if (node)
            for (uint32_t k = 0; k < sc->nkeys; k++) {
                ms_str v = ms_labels_get(&node->meta.labels, sc->keys[k]);
                if (v != MS_STR_NONE) s += ipa_pc_lookup(sc, sc->keys[k], v);
            }
        scores[i] = s;
    }
    return MS_SUCCESS;
}

/* Min-max to 0..MaxNodeScore: anti-affinity makes raw scores negative. */
ms_code ipa_normalize(void *self, ms_cycle *c, int64_t *scores, uint32_t n, ms_status *st) {
    if (check_score_state(self, c, st) != MS_SUCCESS) return MS_ERROR;
    if (n == 0) return MS_SUCCESS;
    int64_t min = scores[0], max = scores[0];
    for (uint32_t i = 1; i < n; i++) {
        if (scores[i] < min) min = scores[i];
        if (scores[i] > max) max = scores[i];
    }
    int64_t diff = max - min;
    for (uint32_t i = 0; i < n; i++) {
        double f = 0;
        if (diff > 0) f = (double)MS_MAX_NODE_SCORE * ((double)(scores[i] - min) / (double)diff);
        scores[i] = (int64_t)f;
    }
    return MS_SUCCESS;
}

