/* resource.k8s.io deltas into the scheduler's store. */
#include "scheduler/dra_events.h"

#include "backend/queue.h"
#include "framework/runners.h"
#include "scheduler/scheduler_priv.h"

static const ms_event_mask events[MS_DK_COUNT] = {
    [MS_DK_DEVICE_CLASS] = MS_EV_DEVICE_CLASS,
    [MS_DK_RESOURCE_SLICE] = MS_EV_RESOURCE_SLICE,
    [MS_DK_RESOURCE_CLAIM] = MS_EV_RESOURCE_CLAIM,
};

typedef struct change {
    ms_scheduler *s;
    ms_event_mask ev;
    const ms_dra_object *old_obj, *new_obj;
} change;

/* The hints of the plugins that rejected the pod, in its own profile. */
static bool helps(void *ctx, const ms_queued_pod *qp) {
    const change *ch = ctx;
    int32_t i = ms_scheduler_profile_index(ch->s, qp->pod->scheduler_name);
    if (i < 0) return true;
    return ms_framework_queueing_hint(&ch->s->profiles[i], qp->unschedulable_plugins, qp->pod, ch->ev, ch->old_obj,
                                      ch->new_obj);
}

ms_rc ms_scheduler_dra_set(ms_scheduler *s, ms_dra_object *o, double now) {
    /* The old object, for the hints: the store drops its reference. */
    const ms_dra_object *prev = ms_dra_store_get(s->dra, (ms_dra_kind)o->kind, o->meta.namespace_, o->meta.name);
    ms_dra_object *old_obj = prev ? ms_dra_ref((ms_dra_object *)prev) : NULL;
    if (ms_dra_store_set(s->dra, o) < 0) {
        ms_dra_unref(old_obj);
        return MS_ENOMEM;
    }
    if (events[o->kind]) {
        change ch = {s, events[o->kind], old_obj, o};
        ms_queue_move_on_event_if(s->queue, ch.ev, now, helps, &ch);
        /* DynamicResources' PreBind waits for its claims written (run) */
        if (s->nprebinding) ms_sched_prebind_events(s, events[o->kind], now);
    }
    ms_dra_unref(old_obj);
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
