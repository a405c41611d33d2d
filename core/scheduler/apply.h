/* The one entry point through which cluster changes reach the scheduler:
 * run's informer deltas (off the delta queue) and simulate's objects (its
 * cluster files, its binds and evictions) take the same path to the event
 * handlers, so both commands see an object kind handled the same way. */
#ifndef MOONSCHED_SCHEDULER_APPLY_H
#define MOONSCHED_SCHEDULER_APPLY_H

#include "api/delta.h"
#include "moonsched/scheduler.h"

/* Dispatches d by kind and type to the event handlers (pods, nodes,
 * namespaces, PodDisruptionBudgets, storage and resource.k8s.io objects).
 * The delta keeps its reference: a handler that keeps the object takes its
 * own. A namespace's update replaces it as an add does; a resource.k8s.io
 * object marks the group provided (ms_scheduler_dra_provided);
 * MS_DELTA_SYNCED and MS_KIND_OTHER are not the scheduler's and change
 * nothing. MS_ENOMEM when a resource.k8s.io object could not be kept. Scheduler thread only. */
ms_rc ms_scheduler_apply(ms_scheduler *s, const ms_delta *d, double now);

#endif
