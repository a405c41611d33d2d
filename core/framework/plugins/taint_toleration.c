/* TaintToleration: NoSchedule/NoExecute taints must be tolerated; nodes with
 * fewer untolerated PreferNoSchedule taints score higher. */
#include "builtin.h"
#include "api/toleration.h"

/* PreScore: the pod's tolerations that can tolerate PreferNoSchedule. */
typedef struct prescore_state {
    uint32_t n;
    ms_toleration *tolerations;
} prescore_state;

static ms_code taint_toleration_filter(void *self, ms_cycle *c, const ms_node_info *ni,
                                       ms_status *st) {
    (void)self;
    const ms_node *node = ni->node;
    if (!node) return ms_status_set(st, MS_ERROR, "invalid nodeInfo");
    if (node->ntaints == 0) return MS_SUCCESS;
    const ms_pod *pod = c->pod;
    const ms_taint *t = ms_find_untolerated_taint(node->taints, node->ntaints, pod->tolerations,
                                                  pod->ntolerations, MS_DO_NOT_SCHEDULE_EFFECTS);
    if (!t) return MS_SUCCESS;
    return ms_status_set(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE,
                         t->reason ? t->reason : "node(s) had taints that the pod didn't tolerate");
}

static ms_code taint_toleration_pre_score(void *self, ms_cycle *c, ms_node_info *const *nodes,
                                          uint32_t n, ms_status *st) {
    (void)self;
    (void)nodes;
    (void)n;
    const ms_pod *pod = c->pod;
    prescore_state *s = MS_ARENA_NEW(c->arena, prescore_state, 1);
    ms_toleration *tols = pod->ntolerations ? MS_ARENA_NEW(c->arena, ms_toleration, pod->ntolerations)
                                            : NULL;
    if (!s || (pod->ntolerations && !tols)) return ms_status_set(st, MS_ERROR, "out of memory");
    for (uint32_t i = 0; i < pod->ntolerations; i++) {
        uint8_t e = pod->tolerations[i].effect;
        if (e == MS_EFFECT_NONE || e == MS_EFFECT_PREFER_NO_SCHEDULE)
            tols[s->n++] = pod->tolerations[i];
    }
    s->tolerations = tols;
    c->state[c->current] = s;
    return MS_SUCCESS;
}

static ms_code taint_toleration_score(void *self, ms_cycle *c, ms_node_info *const *nodes,
                                      uint32_t n, int64_t *scores, ms_status *st) {
    (void)self;
    const prescore_state *s = c->state[c->current];
    if (!s) return ms_status_set(st, MS_ERROR, "reading \"PreScoreTaintToleration\" from cycleState");
    for (uint32_t i = 0; i < n; i++) {
        const ms_node *node = nodes[i]->node;
        int64_t count = 0;
        for (uint32_t j = 0; node && j < node->ntaints; j++) {
            const ms_taint *t = &node->taints[j];
            if (t->effect == MS_EFFECT_PREFER_NO_SCHEDULE &&
                !ms_tolerations_tolerate_taint(s->tolerations, s->n, t))
                count++;
        }
        scores[i] = count;
    }
    return MS_SUCCESS;
}

static ms_code taint_toleration_normalize(void *self, ms_cycle *c, int64_t *scores, uint32_t n,
                                          ms_status *st) {
    (void)self;
    (void)c;
    (void)st;
    ms_default_normalize_score(MS_MAX_NODE_SCORE, true, scores, n);
    return MS_SUCCESS;
}

const ms_plugin_ops ms_plugin_taint_toleration = {
    .name = "TaintToleration",
    .events = MS_EV_NODE_ADD | MS_EV_NODE_TAINT,
    .filter = taint_toleration_filter,
    .pre_score = taint_toleration_pre_score,
    .score = taint_toleration_score,
    .normalize_score = taint_toleration_normalize,
    .node_local = true,
};
