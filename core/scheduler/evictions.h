/* What an evictor that deletes later (run's, through the API server)
 * reports back about the deletions preemption handed it. Scheduler thread
 * only. */
#ifndef MOONSCHED_SCHEDULER_EVICTIONS_H
#define MOONSCHED_SCHEDULER_EVICTIONS_H

#include <stdint.h>

#include "moonsched/scheduler.h"

/* The deletion of the pod with this metadata.uid hash failed: the pod is
 * no longer counted as terminating, and preemption may choose it again. */
void ms_scheduler_eviction_failed(ms_scheduler *s, uint64_t uid_hash);

#endif
