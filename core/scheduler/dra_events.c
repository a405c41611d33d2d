/* resource.k8s.io deltas into the scheduler's store. */
#include "scheduler/dra_events.h"

#include "backend/queue.h"
#include "scheduler/scheduler_priv.h"

static const ms_event_mask events[MS_DK_COUNT] = {
    [MS_DK_DEVICE_CLASS] = MS_EV_DEVICE_CLASS,
    [MS_DK_RESOURCE_SLICE] = MS_EV_RESOURCE_SLICE,
    [MS_DK_RESOURCE_CLAIM] = MS_EV_RESOURCE_CLAIM,
};

ms_rc ms_scheduler_dra_set(ms_scheduler *s, ms_dra_object *o, double now) {
    if (ms_dra_store_set(s->dra, o) < 0) return MS_ENOMEM;
    if (!events[o->kind]) return MS_OK;
    ms_queue_move_on_event(s->queue, events[o->kind], now);
    /* DynamicResources' PreBind waits for its claims written (run) */
    if (s->nprebinding) ms_sched_prebind_events(s, events[o->kind], now);
    return MS_OK;
}

void ms_scheduler_dra_provided(ms_scheduler *s) { s->handle.dra = s->dra; }

void ms_scheduler_dra_delete(ms_scheduler *s, ms_dra_kind kind, ms_str namespace_, ms_str name, double now) {
    if (!ms_dra_store_delete(s->dra, kind, namespace_, name)) return;
    /* a claim a binding cycle waits for is gone: its PreBind says so */
    if (kind == MS_DK_RESOURCE_CLAIM && s->nprebinding) ms_sched_prebind_events(s, MS_EV_RESOURCE_CLAIM, now);
}

void ms_scheduler_claim_write_failed(ms_scheduler *s, const ms_pod *pod, const char *message, double now) {
    ms_sched_prebind_write_failed(s, pod, message, now);
}

const ms_dra_store *ms_scheduler_dra_store(const ms_scheduler *s) { return s->dra; }
