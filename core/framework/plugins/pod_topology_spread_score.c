/* PodTopologySpread PreScore, Score and NormalizeScore: the ScheduleAnyway
 * constraints (or the default ones). A node's raw score is, per constraint
 * whose key it has, the matching pods of its domain times the constraint's
 * weight log(domains + 2), plus maxSkew - 1; fewer pods score higher after
 * NormalizeScore. Upstream's arithmetic, float64 included. */
#include <math.h>
#include <string.h>

#include "pod_topology_spread.h"
#include "backend/cache_snapshot.h"

struct pts_score_state {
    pts_set set;
    pts_table *t;
    double *weight;                /* per constraint */
    uint8_t *ignored;              /* per node given to PreScore: lacks a required key */
    int32_t *node;                 /* per node given to PreScore: its position in the table, or -1 */
    uint32_t n;
};

static ms_code oom(ms_status *st) { return ms_status_set(st, MS_ERROR, "out of memory"); }

/* Distinct values among the nodes: an open-addressing set of ids (0 never
 * occurs: a missing label is the empty value). For values not in the
 * table. */
static bool set_insert(ms_str *set, uint32_t cap, ms_str v) {
    for (uint32_t h = (v * 2654435761u) & (cap - 1);; h = (h + 1) & (cap - 1)) {
        if (set[h] == v) return false;
        if (set[h] == MS_STR_NONE) {
            set[h] = v;
            return true;
        }
    }
}

/* upstream's initPreScoreState over the candidate nodes: which nodes lack
 * a required key (ignored), and per constraint how many domains the others
 * make, which sets its weight. Nodes the table has seen answer from it. */
static bool init_state(pts_score_state *ss, ms_arena *a, ms_node_info *const *nodes, uint32_t n) {
    const pts_table *t = ss->t;
    uint32_t nc = ss->set.n, nignored = 0;
    int32_t *num = MS_ARENA_NEW(a, int32_t, n ? n : 1);
    if (!num) return false;
    for (uint32_t i = 0; i < n; i++) {
        const ms_node *node = nodes[i]->node;
        /* Only the snapshot's own NodeInfo, at its position, answers. */
        uint32_t at = nodes[i]->index;
        num[i] = t && at < t->nnodes && t->ni[at] == nodes[i] ? (int32_t)at : -1;
        bool keys = num[i] >= 0 ? t->has_keys[num[i]] : node && pts_node_has_keys(&ss->set, node);
        if (!node || (ss->set.require_all && !keys)) {
            ss->ignored[i] = 1;
            nignored++;
        }
    }
    ms_str *set = NULL;
    uint32_t cap = 16;
    while (cap < 2 * n) cap *= 2;
    for (uint32_t k = 0; k < nc; k++) {
        const pts_constraint *pc = &ss->set.c[k];
        uint32_t size = n - nignored;
        if (!pc->per_node) {
            /* Each domain once: marked with this pass, or in the set. */
            pts_domains *ds = &ss->t->dom[k];
            uint32_t pass = ++ss->t->pass;
            if (pass == 0) {
                /* Wrapped: forget every mark. */
                for (uint32_t j = 0; j < nc; j++)
                    if (!ss->set.c[j].per_node)
                        memset(ss->t->dom[j].mark, 0, ss->t->dom[j].n * sizeof *ds->mark);
                pass = ss->t->pass = 1;
            }
            size = 0;
            if (set) memset(set, 0, cap * sizeof *set);
            for (uint32_t i = 0; i < n; i++) {
                if (ss->ignored[i]) continue;
                int32_t d = num[i] >= 0 ? pts_node_domain(t, num[i], k) : -1;
                ms_str v = MS_STR_NONE;
                if (d < 0) {
                    v = ms_labels_get(&nodes[i]->node->meta.labels, pc->key);
                    if (v == MS_STR_NONE) v = MS_STR_EMPTY;
                    d = pts_domain(t, k, v);
                }
                if (d >= 0) {
                    if (ds->mark[d] != pass) {
                        ds->mark[d] = pass;
                        size++;
                    }
                    continue;
                }
                if (!set && !(set = MS_ARENA_NEW(a, ms_str, cap))) return false;
                size += set_insert(set, cap, v);
            }
        }
        ss->weight[k] = log((double)size + 2);
    }
    ss->node = num;
    return true;
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
    if (!cs || !ss->weight || !ss->ignored) return oom(st);
    ss->n = n;
    /* The table also knows which nodes have every key: sync it first. */
    if (!(ss->t = pts_tables_sync(&pl->tables, &ss->set, c->snap, pl->in))) return oom(st);
    if (!init_state(ss, c->arena, nodes, n)) return oom(st);
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
        int32_t node = ss->node[i];
        const int32_t *dc = node >= 0 ? &t->dc[(size_t)node * nc * 2] : NULL;
        const uint8_t *missing = node >= 0 ? &t->missing[(size_t)node * nc] : NULL;
        double score = 0;
        for (uint32_t k = 0; k < nc; k++) {
            const pts_constraint *pc = &ss->set.c[k];
            int64_t cnt = 0;
            if (dc && missing[k]) continue;
            if (dc && pc->per_node) {
                cnt = dc[2 * k + 1];
            } else if (dc && dc[2 * k] >= 0) {
                cnt = t->dom[k].count[dc[2 * k]];
            } else {
                /* Not counted by the table (policies), or not in it. */
                ms_str value = ms_labels_get(labels, pc->key);
                if (value == MS_STR_NONE) continue;
                if (pc->per_node) {
                    cnt = pts_count_matching(ni, &pc->sel, ss->set.ns, pl->in);
                } else {
                    int32_t d = pts_domain(t, k, value);
                    if (d >= 0) cnt = t->dom[k].count[d];
                }
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
