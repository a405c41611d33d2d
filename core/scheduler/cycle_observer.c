#include "scheduler/cycle_observer.h"

#include "scheduler/scheduler_priv.h"

static void add(ms_scheduler *s, const ms_cycle_observer *o) {
    if (s->nobservers < MS_MAX_CYCLE_OBSERVERS) s->observers[s->nobservers++] = o;
}

void ms_sched_observers_init(ms_scheduler *s) {
    s->nobservers = 0;
    /* The order of the features before this split: the trace and the
     * shadows read the cycle's scores before explain copies them. */
    if (s->trace_pods) add(s, &ms_cycle_trace_observer);
    if (s->nshadows) add(s, &ms_shadow_observer);
    if (s->explain.cap) add(s, &ms_explain_observer);
}

void ms_sched_observe_begin(ms_scheduler *s, const ms_inflight *r, double now) {
    for (uint32_t i = 0; i < s->nobservers; i++)
        if (s->observers[i]->begin) s->observers[i]->begin(s, r, now);
}

void ms_sched_observe_selected(ms_scheduler *s, const ms_inflight *r, const ms_cycle_choice *choice) {
    for (uint32_t i = 0; i < s->nobservers; i++)
        if (s->observers[i]->selected) s->observers[i]->selected(s, r, choice);
}

void ms_sched_observe_post_filter(ms_scheduler *s, const ms_framework *fw, ms_str nominated) {
    for (uint32_t i = 0; i < s->nobservers; i++)
        if (s->observers[i]->post_filter) s->observers[i]->post_filter(s, fw, nominated);
}

void ms_sched_observe_victim(ms_scheduler *s, const ms_pod *victim) {
    for (uint32_t i = 0; i < s->nobservers; i++)
        if (s->observers[i]->victim) s->observers[i]->victim(s, victim);
}

void ms_sched_observe_result(ms_scheduler *s, ms_explain_result result, const char *message) {
    for (uint32_t i = 0; i < s->nobservers; i++)
        if (s->observers[i]->result) s->observers[i]->result(s, result, message);
}

void ms_sched_observe_end(ms_scheduler *s) {
    for (uint32_t i = 0; i < s->nobservers; i++)
        if (s->observers[i]->end) s->observers[i]->end(s);
}
