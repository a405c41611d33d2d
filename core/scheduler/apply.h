/* The one entry point through which cluster changes reach the scheduler:
 * run's informer deltas (off the delta queue) and simulate's objects (its
 * cluster files, its binds and evictions) take the same path to the event
 * handlers, so both commands see an object kind handled the same way. */
#ifndef MOONSCHED_SCHEDULER_APPLY_H
#define MOONSCHED_SCHEDULER_APPLY_H

#include "api/delta.h"
#include "moonsched/scheduler.h"

/* Dispatches d by kind and type to the event handlers (pods, nodes,
 * namespaces, PodDisruptionBudgets, storage objects). The delta keeps its
 * reference: a handler that keeps the object takes its own. A namespace's
 * update replaces it as an add does; MS_DELTA_SYNCED and MS_KIND_OTHER are
 * not the scheduler's and change nothing. Scheduler thread only. */
void ms_scheduler_apply(ms_scheduler *s, const ms_delta *d, double now);

#endif
