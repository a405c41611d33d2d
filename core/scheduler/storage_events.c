/* Storage-object deltas: into the volume store, then the queue moves the
 * pods whose rejecting plugins registered the event (upstream's
 * addAllEventHandlers for the storage resources). */
#include "scheduler/storage_events.h"

#include "backend/queue.h"
#include "scheduler/scheduler_priv.h"

static const ms_event_mask add_events[MS_SK_COUNT] = {
    [MS_SK_PV] = MS_EV_PV_ADD,
    [MS_SK_PVC] = MS_EV_PVC_ADD,
    [MS_SK_STORAGE_CLASS] = MS_EV_STORAGE_CLASS_ADD,
    [MS_SK_CSI_NODE] = MS_EV_CSI_NODE_ADD,
    [MS_SK_CSI_DRIVER] = MS_EV_CSI_DRIVER_ADD,
    [MS_SK_CSI_CAPACITY] = MS_EV_CSI_CAPACITY_ADD,
};

static const ms_event_mask update_events[MS_SK_COUNT] = {
    [MS_SK_PV] = MS_EV_PV_UPDATE,
    [MS_SK_PVC] = MS_EV_PVC_UPDATE,
    [MS_SK_STORAGE_CLASS] = MS_EV_STORAGE_CLASS_UPDATE,
    [MS_SK_CSI_NODE] = MS_EV_CSI_NODE_UPDATE,
    [MS_SK_CSI_DRIVER] = MS_EV_CSI_DRIVER_UPDATE,
    [MS_SK_CSI_CAPACITY] = MS_EV_CSI_CAPACITY_UPDATE,
};

ms_event_mask ms_storage_event(ms_storage_kind kind, bool existed) {
    if ((unsigned)kind >= MS_SK_COUNT) return 0;
    return existed ? update_events[kind] : add_events[kind];
}

/* The event moves the queued pods it may help, and asks the binding
 * cycles waiting in PreBind for it again (VolumeBinding's claims bound). */
static void storage_event(ms_scheduler *s, ms_event_mask ev, double now) {
    ms_queue_move_on_event(s->queue, ev, now);
    if (s->nprebinding) ms_sched_prebind_events(s, ev, now);
}

void ms_scheduler_storage_set(ms_scheduler *s, ms_storage_object *o, double now) {
    bool existed = false;
    if (ms_volume_store_set(s->volumes, o, &existed) != MS_OK) return;
    storage_event(s, ms_storage_event((ms_storage_kind)o->kind, existed), now);
}

void ms_scheduler_storage_delete(ms_scheduler *s, ms_storage_kind kind, ms_str namespace_,
                                 ms_str name, double now) {
    if (ms_volume_store_remove(s->volumes, kind, namespace_, name) != MS_OK) return;
    storage_event(s, MS_EV_STORAGE_DELETE, now);
}

void ms_scheduler_volume_write_failed(ms_scheduler *s, const ms_pod *pod, const char *message,
                                      double now) {
    ms_sched_prebind_write_failed(s, pod, message, now);
}

ms_volume_store *ms_scheduler_volume_store(ms_scheduler *s) { return s->volumes; }
