/* upstream's scheduler metrics that the scheduler thread records: the
 * framework's (per profile, framework/metrics_recorder.h), the SLI and
 * algorithm latencies, and the gauges read from the cache and the queue
 * (scheduler_scheduler_cache_size, scheduler_unschedulable_pods,
 * scheduler_queue_incoming_pods_total).
 *
 * One owner: the scheduler thread writes and renders them, without a lock;
 * `run` hands the rendered text to the HTTP thread (scheduler/run_metrics.h). */
#ifndef MOONSCHED_SCHEDULER_METRICS_H
#define MOONSCHED_SCHEDULER_METRICS_H

#include <stdint.h>

#include "backend/queue.h"
#include "base/buf.h"
#include "base/prom.h"
#include "framework/metrics_recorder.h"
#include "moonsched/scheduler.h"

/* upstream getAttemptsLabel: "1" .. "14", then "15+". */
#define MS_SLI_ATTEMPT_LABELS 15

/* scheduler_event_handling_duration_seconds's event label: upstream's
 * cluster event labels for the deltas the scheduler handles. */
typedef enum ms_sched_event {
    MS_SEV_UNSCHEDULED_POD_ADD = 0,
    MS_SEV_UNSCHEDULED_POD_UPDATE,
    MS_SEV_UNSCHEDULED_POD_DELETE,
    MS_SEV_ASSIGNED_POD_ADD,
    MS_SEV_ASSIGNED_POD_UPDATE,
    MS_SEV_ASSIGNED_POD_DELETE,
    MS_SEV_NODE_ADD,
    MS_SEV_NODE_UPDATE,
    MS_SEV_NODE_DELETE,
    MS_SEV_COUNT,
} ms_sched_event;

typedef struct ms_sched_metrics {
    uint32_t nprofiles;
    ms_metrics_recorder **recorders;   /* per profile */
    ms_prom_histogram sli[MS_SLI_ATTEMPT_LABELS];
    ms_prom_histogram algorithm;
    ms_prom_histogram events[MS_SEV_COUNT];
    ms_prom_histogram permit_wait[MS_METRICS_NCODES];
} ms_sched_metrics;

ms_sched_metrics *ms_sched_metrics_new(uint32_t nprofiles);
void ms_sched_metrics_free(ms_sched_metrics *m);
/* A pod bound: scheduler_pod_scheduling_sli_duration_seconds, from its
 * first attempt (upstream's InitialAttemptTimestamp) to now. */
void ms_sched_metrics_scheduled(ms_sched_metrics *m, const ms_queued_pod *qp, double now);
/* scheduler_scheduling_algorithm_duration_seconds: a cycle that found a node. */
void ms_sched_metrics_algorithm(ms_sched_metrics *m, double seconds);

/* A delta handled in `seconds`. */
void ms_sched_metrics_event(ms_sched_metrics *m, ms_sched_event ev, double seconds);
/* scheduler_permit_wait_duration_seconds: a Permit wait that ended with
 * `code` (Success: let through) after `seconds`. */
void ms_sched_metrics_permit_wait(ms_sched_metrics *m, ms_code code, double seconds);

/* Every family above, appended to b in the text format; nothing when the
 * scheduler records no metrics (ms_scheduler_options.record_metrics). */
void ms_scheduler_render_metrics(ms_scheduler *s, ms_buf *b);

#endif
