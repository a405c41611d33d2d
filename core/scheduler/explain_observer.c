/* Explain as an observer of the cycle: the record of the cycle running
 * (s->explain_cur, taken from the ring at begin, NULL between cycles)
 * filled from what the cycle reports. */
#include "backend/queue.h"
#include "framework/plugins/preemption.h"
#include "scheduler/cycle_observer.h"
#include "scheduler/scheduler_priv.h"

static void begin(ms_scheduler *s, const ms_inflight *r, double now) {
    const ms_pod *pod = r->qp->pod;
    ms_explain_record *rec = s->explain_cur =
        ms_explain_ring_begin(&s->explain, pod->meta.namespace_, pod->meta.name);
    if (!rec) return;
    rec->cycle = r->cycle.cycle;
    rec->time = now;
    rec->uid_hash = pod->meta.uid_hash;
    rec->profile = r->profile;
    rec->attempts = r->qp->attempts;
    rec->policy_generation = s->policy_generation;
}

/* The selected node and what the cycle knew of it; later steps (Reserve,
 * Permit) may still turn the result into a rejection. */
static void selected(ms_scheduler *s, const ms_inflight *r, const ms_cycle_choice *ch) {
    (void)r;
    ms_explain_record *rec = s->explain_cur;
    if (!rec) return;
    const ms_score_report *report = ch->report;
    rec->result = MS_EXPLAIN_SCHEDULED;
    rec->node = s->feasible[ch->selected]->name;
    rec->scored = ch->scored;
    rec->total = report->total;
    rec->feasible = report->feasible;
    rec->evaluated = report->evaluated;
    rec->num_all_nodes = report->num_all_nodes;
    if (report->nplugins) ms_explain_set_scores(rec, report->scores, report->nplugins);
}

/* What PostFilter's preemption found: the candidates are read from
 * DefaultPreemption's own account of the cycle. */
static void post_filter(ms_scheduler *s, const ms_framework *fw, ms_str nominated) {
    ms_explain_record *rec = s->explain_cur;
    if (!rec) return;
    rec->nominated = nominated;
    const ms_preemption_result *p = ms_default_preemption_last(fw);
    if (!p || !p->attempted) return;
    rec->preemption_attempted = true;
    rec->ncandidates = p->ncandidates;
    for (uint32_t i = 0; i < p->ncandidates && i < MS_EXPLAIN_MAX_CANDIDATES; i++)
        rec->candidates[i] = (ms_explain_candidate){.node = p->candidates[i].node,
                                                     .nvictims = p->candidates[i].nvictims,
                                                     .pdb_violations = p->candidates[i].num_pdb_violations};
}

static void victim(ms_scheduler *s, const ms_pod *v) {
    if (s->explain_cur) ms_explain_add_victim(&s->explain, s->explain_cur, v->meta.namespace_, v->meta.name);
}

static void result(ms_scheduler *s, ms_explain_result res, const char *message) {
    ms_explain_record *rec = s->explain_cur;
    if (!rec) return;
    if (message) ms_explain_set_result(rec, res, message);
    else rec->result = (uint8_t)res;
}

static void end(ms_scheduler *s) { s->explain_cur = NULL; }

const ms_cycle_observer ms_explain_observer = {
    .begin = begin,
    .selected = selected,
    .post_filter = post_filter,
    .victim = victim,
    .result = result,
    .end = end,
};
