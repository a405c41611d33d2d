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
    if (events[o->kind]) ms_queue_move_on_event(s->queue, events[o->kind], now);
    return MS_OK;
}

void ms_scheduler_dra_provided(ms_scheduler *s) { s->handle.dra = s->dra; }

void ms_scheduler_dra_delete(ms_scheduler *s, ms_dra_kind kind, ms_str namespace_, ms_str name) {
    ms_dra_store_delete(s->dra, kind, namespace_, name);
}

const ms_dra_store *ms_scheduler_dra_store(const ms_scheduler *s) { return s->dra; }
