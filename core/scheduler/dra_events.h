/* resource.k8s.io object deltas into the scheduler's DRA store
 * (backend/dra_store.h), on the scheduler thread: run's informers and
 * simulate's files reach them through ms_scheduler_apply (scheduler/apply.h). */
#ifndef MOONSCHED_DRA_EVENTS_H
#define MOONSCHED_DRA_EVENTS_H

#include "api/dra.h"
#include "backend/dra_store.h"
#include "moonsched/scheduler.h"

/* Add and update both insert or replace by kind/namespace/name; the store
 * holds its own reference. The queued pods that a plugin registered the
 * kind's event for move (MS_EV_RESOURCE_CLAIM, _SLICE, MS_EV_DEVICE_CLASS);
 * a template changes nothing a pod waits for. Returns MS_ENOMEM when the
 * object could not be kept. */
ms_rc ms_scheduler_dra_set(ms_scheduler *s, ms_dra_object *o, double now);
/* The objects are provided (simulate's files; run's informers when they
 * come): plugins see the store from now on, and a claim it lacks does not
 * exist. */
void ms_scheduler_dra_provided(ms_scheduler *s);
/* A deletion moves no pod: it frees nothing a pod can use that an update
 * of the claim (its deallocation) did not already say. A binding cycle
 * waiting for a deleted claim in PreBind fails. */
void ms_scheduler_dra_delete(ms_scheduler *s, ms_dra_kind kind, ms_str namespace_, ms_str name, double now);
/* A claim write that DynamicResources' PreBind asked the claim writer for
 * failed (framework/claim_writer.h): the pod's binding cycle fails with
 * `message` (Unreserve, back to the queue with backoff), as upstream's
 * bindClaim returns its error. Ignored when the pod is not waiting in
 * PreBind. */
void ms_scheduler_claim_write_failed(ms_scheduler *s, const ms_pod *pod, const char *message, double now);
/* The store, for reports; NULL never. */
const ms_dra_store *ms_scheduler_dra_store(const ms_scheduler *s);

#endif
