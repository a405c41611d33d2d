/* Placing cycles kept whole (cycle_trace.h). Read after the cycle's Filter
 * pass and Score, before the assume: s->statuses holds the pass's verdicts
 * for the nodes it reached (those beyond it keep an older cycle's, so
 * they are never read), s->feasible the nodes that passed, in the pass's
 * order, and s->per_plugin and s->totals their scores. All of it once per
 * traced cycle, never per node of an untraced one. */
#include "scheduler/cycle_trace.h"

#include <stdlib.h>

#include "backend/queue.h"
#include "scheduler/cycle_observer.h"
#include "scheduler/explain.h"
#include "scheduler/scheduler_priv.h"

/* A feasible node's entry: its weighted score per plugin (the extenders'
 * last, as in the JSON output) and total, when the cycle scored. */
static void add_scores(const ms_scheduler *s, const ms_profile_info *info, cJSON *e, uint32_t k,
                       uint32_t nfeasible, bool scored, const int64_t *ext_scores) {
    if (!scored) return;
    cJSON *sc = cJSON_AddObjectToObject(e, "scores");
    for (uint32_t p = 0; p < info->nscore; p++)
        cJSON_AddNumberToObject(sc, info->score_names[p], (double)s->per_plugin[(size_t)p * nfeasible + k]);
    for (uint32_t p = info->nscore; ext_scores && p < info->nreport; p++)
        cJSON_AddNumberToObject(sc, info->score_names[p],
                                (double)ext_scores[(size_t)(p - info->nscore) * nfeasible + k]);
    cJSON_AddNumberToObject(e, "total", (double)s->totals[k]);
}

/* Kept when the pod has a trace already (a later cycle replaces it) or
 * fewer than trace_pods pods do. */
static void selected_cycle(ms_scheduler *s, const ms_inflight *r, const ms_cycle_choice *ch) {
    uint32_t nfeasible = ch->nfeasible, evaluated = ch->evaluated, selected = ch->selected;
    bool scored = ch->scored;
    const int64_t *ext_scores = ch->ext_scores;
    uint64_t uid = r->qp->pod->meta.uid_hash;
    cJSON *old = ms_map_get(&s->traces, uid);
    if (!old && s->ntraces >= s->trace_pods) return;
    const ms_framework *fw = &s->profiles[r->profile];
    const ms_profile_info *info = &s->info[r->profile];
    uint32_t n = s->snap.nnodes;
    /* Snapshot index -> feasible index + 1, 0: rejected; UINT32_MAX: not reached. */
    uint32_t *seen = malloc((n ? n : 1) * sizeof *seen);
    cJSON *t = cJSON_CreateObject();
    cJSON *arr = t ? cJSON_AddArrayToObject(t, "nodeResults") : NULL;
    if (!seen || !arr) {
        free(seen);
        cJSON_Delete(t);
        return;
    }
    for (uint32_t i = 0; i < n; i++) seen[i] = UINT32_MAX;
    if (s->pass_nominated) {
        for (uint32_t i = 0; i < n; i++)
            if (s->snap.nodes[i] == s->feasible[0]) seen[i] = 1;
    } else {
        for (uint32_t p = 0, k = 0; p < evaluated; p++) {
            uint32_t i = (uint32_t)(((uint64_t)s->pass_start + p) % n);
            seen[i] = k < nfeasible && s->feasible[k] == s->snap.nodes[i] ? ++k : 0;
        }
    }
    cJSON_AddNumberToObject(t, "nodes", n);
    cJSON_AddNumberToObject(t, "evaluatedNodes", evaluated);
    cJSON_AddNumberToObject(t, "feasibleNodes", nfeasible);
    cJSON_AddStringToObject(t, "selectedNode", ms_str_get(s->in, s->feasible[selected]->name));
    for (uint32_t i = 0; i < n; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "node", ms_str_get(s->in, s->snap.nodes[i]->name));
        if (seen[i] == UINT32_MAX) {
            cJSON_AddStringToObject(e, "notEvaluated", s->pass_nominated ? "nominatedNode" : "percentageOfNodesToScore");
        } else if (seen[i] == 0 && s->statuses[i].code != MS_SUCCESS) {
            cJSON_AddItemToObject(e, "filter", ms_explain_status_json(fw, &s->statuses[i]));
        } else if (seen[i] > 0) {
            add_scores(s, info, e, seen[i] - 1, nfeasible, scored, ext_scores);
            if (seen[i] - 1 == selected) cJSON_AddTrueToObject(e, "selected");
        }
        cJSON_AddItemToArray(arr, e);
    }
    free(seen);
    if (ms_map_put(&s->traces, uid, t) < 0) {
        cJSON_Delete(t);
        return;
    }
    if (old) cJSON_Delete(old);
    else s->ntraces++;
}

void ms_sched_traces_free(ms_scheduler *s) {
    uint64_t key;
    void *val;
    for (size_t it = 0; ms_map_next(&s->traces, &it, &key, &val);) cJSON_Delete(val);
    ms_map_free(&s->traces);
}

const cJSON *ms_scheduler_cycle_trace(const ms_scheduler *s, uint64_t uid_hash) {
    return ms_map_get(&s->traces, uid_hash);
}

const ms_cycle_observer ms_cycle_trace_observer = {.selected = selected_cycle};
