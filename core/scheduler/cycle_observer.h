/* What the features that watch a scheduling cycle are told: explain's
 * ring of recent cycles, the HTML report's cycle traces, shadow policies.
 * None of them decides anything, so the cycle knows them only as
 * observers: it checks one count (s->nobservers) at each event and, when
 * nothing watches, does nothing more. Scheduler thread only. */
#ifndef MOONSCHED_SCHEDULER_CYCLE_OBSERVER_H
#define MOONSCHED_SCHEDULER_CYCLE_OBSERVER_H

#include <stdbool.h>
#include <stdint.h>

#include "moonsched/intern.h"
#include "moonsched/pod.h"
#include "scheduler/explain.h"

typedef struct ms_scheduler ms_scheduler;
typedef struct ms_inflight ms_inflight;
typedef struct ms_framework ms_framework;
typedef struct ms_score_report ms_score_report;

#define MS_MAX_CYCLE_OBSERVERS 3

/* The node a cycle chose: s->feasible[selected] among nfeasible feasible
 * nodes after a Filter pass over `evaluated` nodes (scored: the Score
 * plugins ran and s->totals holds the totals; ext_scores: the extenders'
 * weighted scores, one row of nfeasible per prioritizer, or NULL). */
typedef struct ms_cycle_choice {
    uint32_t nfeasible, evaluated, selected;
    bool scored;
    const int64_t *ext_scores;
    const ms_score_report *report;
} ms_cycle_choice;

/* Every hook may be NULL. */
typedef struct ms_cycle_observer {
    void (*begin)(ms_scheduler *s, const ms_inflight *r, double now);
    /* Before the assume changes the chosen node. */
    void (*selected)(ms_scheduler *s, const ms_inflight *r, const ms_cycle_choice *choice);
    /* PostFilter ran; nominated: the node it nominated, or MS_STR_NONE. */
    void (*post_filter)(ms_scheduler *s, const ms_framework *fw, ms_str nominated);
    /* This cycle's preemption evicted a victim. */
    void (*victim)(ms_scheduler *s, const ms_pod *victim);
    /* How the cycle ended when it placed nothing, or that the pod waits in
     * Permit; message NULL: the message stays. */
    void (*result)(ms_scheduler *s, ms_explain_result result, const char *message);
    void (*end)(ms_scheduler *s);
} ms_cycle_observer;

extern const ms_cycle_observer ms_explain_observer;      /* explain_observer.c */
extern const ms_cycle_observer ms_cycle_trace_observer;  /* cycle_trace.c */
extern const ms_cycle_observer ms_shadow_observer;       /* shadow.c */

/* Registers the observers of the features the scheduler was built with
 * (trace_pods, shadow policies, an explain ring), in that order. */
void ms_sched_observers_init(ms_scheduler *s);

void ms_sched_observe_begin(ms_scheduler *s, const ms_inflight *r, double now);
void ms_sched_observe_selected(ms_scheduler *s, const ms_inflight *r, const ms_cycle_choice *choice);
void ms_sched_observe_post_filter(ms_scheduler *s, const ms_framework *fw, ms_str nominated);
void ms_sched_observe_victim(ms_scheduler *s, const ms_pod *victim);
void ms_sched_observe_result(ms_scheduler *s, ms_explain_result result, const char *message);
void ms_sched_observe_end(ms_scheduler *s);

#endif
