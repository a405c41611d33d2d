/* resource.k8s.io deltas into the scheduler's store. */
#include "scheduler/dra_events.h"

#include "scheduler/scheduler_priv.h"

ms_rc ms_scheduler_dra_set(ms_scheduler *s, ms_dra_object *o) {
    return ms_dra_store_set(s->dra, o) < 0 ? MS_ENOMEM : MS_OK;
}

void ms_scheduler_dra_provided(ms_scheduler *s) { s->handle.dra = s->dra; }

void ms_scheduler_dra_delete(ms_scheduler *s, ms_dra_kind kind, ms_str namespace_, ms_str name) {
    ms_dra_store_delete(s->dra, kind, namespace_, name);
}

const ms_dra_store *ms_scheduler_dra_store(const ms_scheduler *s) { return s->dra; }
