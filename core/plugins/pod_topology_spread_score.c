/* PodTopologySpread PreScore, Score and NormalizeScore: the ScheduleAnyway
 * constraints (or the default ones). A node's raw score is, per constraint
 * whose key it has, the matching pods of its domain times the constraint's
 * weight log(domains + 2), plus maxSkew - 1; fewer pods score higher after
 * NormalizeScore. Upstream's arithmetic, float64 included. */
#include <math.h>
#include <string.h>

#include "pod_topology_spread.h"

struct pts_score_state {
    pts_set set;
    pts_table *t;                  /* NULL when every constraint is per node */
    double *weight;                /* per constraint */
    uint8_t *ignored;              /* per node given to PreScore: lacks a required key */
    uint32_t n;
};

static ms_code oom(ms_status *st) { return ms_status_set(st, MS_ERROR, "out of memory"); }

/* Distinct values among the nodes: an open-addressing set of ids (0 never
 * occurs: a missing label is the empty value). */
static uint32_t count_distinct(ms_str *set, uint32_t cap, ms_node_info *const *nodes, uint32_t n,
                               const uint8_t *ignored, ms_str key) {
    memset(set, 0, cap * sizeof *set);
    uint32_t distinct = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (ignored[i]) continue;
        ms_str v = ms_labels_get(&nodes[i]->node->meta.labels, key);
        if (v == MS_STR_NONE) v = MS_STR_EMPTY;
        for (uint32_t h = (v * 2654435761u) & (cap - 1);; h = (h + 1) & (cap - 1)) {
            if (set[h] == v) break;
            if (set[h] == MS_STR_NONE) {
                set[h] = v;
                distinct++;
                break;
            }
        }
    }
    return distinct;
}

ms_code pts_pre_score(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n,
                      ms_status *st) {
    pts_plugin *pl = self;
    /* upstream: no node in the cluster, nothing to score. */
    if (!c->snap || c->snap->nnodes == 0) return ms_status_set(st, MS_SKIP, NULL);
    pts_score_state *ss = MS_ARENA_NEW(c->arena, pts_score_state, 1);
    if (!ss || !pts_constraints(pl, c->arena, c->pod, MS_SCHEDULE_ANYWAY, &ss->set)) return oom(st);
    uint32_t nc = ss->set.n;
    if (nc == 0) return ms_status_set(st, MS_SKIP, NULL);
    pts_cycle_state *cs = pts_cycle_state_of(c);
    ss->weight = MS_ARENA_NEW(c->arena, double, nc);
    ss->ignored = MS_ARENA_NEW(c->arena, uint8_t, n ? n : 1);
    uint32_t cap = 16;
    while (cap < 2 * n) cap *= 2;
    ms_str *set = MS_ARENA_NEW(c->arena, ms_str, cap);
    if (!cs || !ss->weight || !ss->ignored || !set) return oom(st);
    ss->n = n;

    uint32_t nignored = 0;
    for (uint32_t i = 0; i < n; i++) {
        const ms_node *node = nodes[i]->node;
        if (!node || (ss->set.require_all && !pts_node_has_keys(&ss->set, node))) {
            ss->ignored[i] = 1;
            nignored++;
        }
    }
    bool tracked = false;
    for (uint32_t k = 0; k < nc; k++) {
        const pts_constraint *pc = &ss->set.c[k];
        /* Domains among the candidate nodes; per node: the candidates. */
        uint32_t size = pc->per_node ? n - nignored
                                     : count_distinct(set, cap, nodes, n, ss->ignored, pc->key);
        ss->weight[k] = log((double)size + 2);
        tracked |= !pc->per_node;
    }
    if (tracked && !(ss->t = pts_tables_sync(&pl->tables, &ss->set, c->snap, pl->in))) return oom(st);
    cs->score = ss;
    return MS_SUCCESS;
}

static const pts_score_state *score_state(ms_cycle *c) {
    const pts_cycle_state *cs = c->state[c->current];
    return cs ? cs->score : NULL;
}

#define ERR_NO_STATE "error reading \"PreScorePodTopologySpread\" from cycleState: not found"

ms_code pts_score(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n, int64_t *scores,
                  ms_status *st) {
    const pts_plugin *pl = self;
    const pts_score_state *ss = score_state(c);
    if (!ss) return ms_status_set(st, MS_ERROR, ERR_NO_STATE);
    if (n != ss->n) return ms_status_set(st, MS_ERROR, "PodTopologySpread: nodes differ from PreScore's");
    const pts_table *t = ss->t;
    uint32_t nc = ss->set.n;
    for (uint32_t i = 0; i < n; i++) {
        if (ss->ignored[i]) {
            scores[i] = 0;
            continue;
        }
        const ms_node_info *ni = nodes[i];
        const ms_labels *labels = &ni->node->meta.labels;
        int32_t slot = t ? pts_slot(t, ni->name) : -1;
        double score = 0;
        for (uint32_t k = 0; k < nc; k++) {
            const pts_constraint *pc = &ss->set.c[k];
            ms_str value = ms_labels_get(labels, pc->key);
            if (value == MS_STR_NONE) continue;
            int64_t cnt = 0;
            if (pc->per_node) {
                cnt = pts_count_matching(ni, &pc->sel, ss->set.ns, pl->in);
            } else {
                int32_t d = slot >= 0 ? t->slot_dom[(size_t)slot * nc + k] : -1;
                if (d < 0) d = pts_domain(t, k, value);
                if (d >= 0) cnt = t->dom[k].count[d];
            }
            /* scoreForCount, in upstream's order of operations. */
            double f = (double)cnt * ss->weight[k] + (double)(pc->max_skew - 1);
            score += f;
        }
        scores[i] = (int64_t)round(score);
    }
    return MS_SUCCESS;
}

ms_code pts_normalize_score(void *self, ms_cycle *c, int64_t *scores, uint32_t n, ms_status *st) {
    (void)self;
    const pts_score_state *ss = score_state(c);
    if (!ss) return ms_status_set(st, MS_ERROR, ERR_NO_STATE);
    if (n != ss->n) return ms_status_set(st, MS_ERROR, "PodTopologySpread: nodes differ from PreScore's");
    int64_t min = INT64_MAX, max = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (ss->ignored[i]) continue;
        if (scores[i] < min) min = scores[i];
        if (scores[i] > max) max = scores[i];
    }
    for (uint32_t i = 0; i < n; i++) {
        if (ss->ignored[i]) scores[i] = 0;
        else if (max == 0) scores[i] = MS_MAX_NODE_SCORE;
        else scores[i] = MS_MAX_NODE_SCORE * (max + min - scores[i]) / max;
    }
    return MS_SUCCESS;
}
