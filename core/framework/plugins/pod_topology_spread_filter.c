/* PodTopologySpread PreFilter and Filter: the DoNotSchedule constraints.
 * A node fits when, for every constraint, the pods matching it in the
 * node's domain, plus the incoming pod if it matches too, exceed the least
 * loaded domain by at most maxSkew. */
#include "pod_topology_spread.h"

#define ERR_REASON_CONSTRAINTS "node(s) didn't match pod topology spread constraints"
#define ERR_REASON_LABEL ERR_REASON_CONSTRAINTS " (missing required label)"

struct pts_filter_state {
    pts_set set;
    pts_table *t;                  /* NULL: a cycle without a snapshot sees no node */
    int64_t *min;                  /* per constraint: the global minimum, minDomains applied */
    bool *few_domains;             /* fewer domains than minDomains: the minimum is 0 */
    bool *self_match;
    /* Per constraint: a node whose domain counts more than this fails
     * (maxSkew + minimum - self match), and the domains' counts. */
    int64_t *limit;
    const int64_t **count;
};

static ms_code oom(ms_status *st) { return ms_status_set(st, MS_ERROR, "out of memory"); }

ms_code pts_pre_filter(void *self, ms_cycle *c, ms_status *st) {
    pts_plugin *pl = self;
    pts_filter_state *fs = MS_ARENA_NEW(c->arena, pts_filter_state, 1);
    if (!fs || !pts_constraints(pl, c->arena, c->pod, MS_DO_NOT_SCHEDULE, &fs->set)) return oom(st);
    uint32_t nc = fs->set.n;
    if (nc == 0) return ms_status_set(st, MS_SKIP, NULL);
    pts_cycle_state *cs = pts_cycle_state_of(c);
    fs->min = MS_ARENA_NEW(c->arena, int64_t, nc);
    fs->few_domains = MS_ARENA_NEW(c->arena, bool, nc);
    fs->self_match = MS_ARENA_NEW(c->arena, bool, nc);
    fs->limit = MS_ARENA_NEW(c->arena, int64_t, nc);
    fs->count = MS_ARENA_NEW(c->arena, const int64_t *, nc);
    if (!cs || !fs->min || !fs->few_domains || !fs->self_match || !fs->limit || !fs->count)
        return oom(st);
    if (c->snap && !(fs->t = pts_tables_sync(&pl->tables, &fs->set, c->snap, pl->in)))
        return oom(st);
    for (uint32_t k = 0; k < nc; k++) {
        const pts_constraint *pc = &fs->set.c[k];
        fs->self_match[k] = ms_label_selector_matches(&pc->sel, &c->pod->meta.labels, pl->in);
        uint32_t domains = fs->t ? fs->t->dom[k].live : 0;
        /* minDomains: with fewer eligible domains the global minimum is 0. */
        fs->few_domains[k] = domains < (uint32_t)pc->min_domains;
        fs->min[k] = fs->few_domains[k] ? 0 : pts_min(fs->t, k);
        fs->limit[k] = pc->max_skew + fs->min[k] - fs->self_match[k];
        fs->count[k] = fs->t ? fs->t->dom[k].count : NULL;
    }
    cs->filter = fs;
    return MS_SUCCESS;
}

/* The general case of Filter: a node that does not count for some
 * constraint, or a NodeInfo that is not the snapshot's (nominated pods
 * added, or victims removed by preemption), whose difference is counted in
 * its domain as upstream's AddPod / RemovePod would. */
__attribute__((noinline)) static ms_code filter_node(const pts_plugin *pl, const pts_filter_state *fs, const ms_node_info *ni,
                           int32_t i, const ms_node_info *seen, ms_status *st) {
    const pts_table *t = fs->t;
    for (uint32_t k = 0; k < fs->set.n; k++) {
        const pts_constraint *pc = &fs->set.c[k];
        int32_t d = seen ? pts_node_domain(t, i, k) : -1;
        int64_t count = 0, min = fs->min[k];
        if (d >= 0) {
            count = t->dom[k].count[d];
            if (seen != ni) {
                int64_t delta = pts_count_matching(ni, &pc->sel, fs->set.ns, pl->in) -
                                pts_node_count(t, i, k);
                count += delta;
                if (delta && !fs->few_domains[k]) min = pts_min_with(t, k, d, delta);
            }
        } else {
            /* A node that does not count (policies) still needs the label. */
            ms_str value = ms_labels_get(&ni->node->meta.labels, pc->key);
            if (value == MS_STR_NONE)
                return ms_status_set(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_LABEL);
            int32_t dd = t ? pts_domain(t, k, value) : -1;
            if (dd >= 0) count = t->dom[k].count[dd];
        }
        if (count + fs->self_match[k] - min > pc->max_skew)
            return ms_status_set(st, MS_UNSCHEDULABLE, ERR_REASON_CONSTRAINTS);
    }
    return MS_SUCCESS;
}

/* Filter reads what PreFilter synced: for a node of the snapshot that
 * counts for every constraint, its position, then one array read and one
 * comparison per constraint. */
ms_code pts_filter(void *self, ms_cycle *c, const ms_node_info *ni, ms_status *st) {
    const pts_cycle_state *cs = c->state[c->current];
    const pts_filter_state *fs = cs ? cs->filter : NULL;
    if (!fs)
        return ms_status_set(st, MS_ERROR,
                             "reading \"PreFilterPodTopologySpread\" from cycleState: not found");
    if (!ni->node) return ms_status_set(st, MS_ERROR, "node not found");
    const pts_table *t = fs->t;
    if (!t) return filter_node(self, fs, ni, -1, NULL, st);
    uint32_t at = ni->index;
    if (at < t->nnodes && t->ni[at] == ni) {
        uint32_t nc = fs->set.n;
        const int32_t *dc = &t->dc[(size_t)at * nc * 2];
        uint32_t k = 0;
        for (; k < nc && dc[2 * k] >= 0; k++)
            if (fs->count[k][dc[2 * k]] > fs->limit[k])
                return ms_status_set(st, MS_UNSCHEDULABLE, ERR_REASON_CONSTRAINTS);
        if (k == nc) return MS_SUCCESS;
        return filter_node(self, fs, ni, (int32_t)at, ni, st);
    }
    int32_t i = pts_node(t, ni);
    return filter_node(self, fs, ni, i, pts_node_info(t, i), st);
}
