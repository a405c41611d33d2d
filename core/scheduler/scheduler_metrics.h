/* upstream's scheduler metrics that the scheduler thread records: the
 * framework's (per profile, framework/metrics_recorder.h), the SLI and
 * algorithm latencies, and the gauges read from the cache and the queue
 * (scheduler_scheduler_cache_size, scheduler_unschedulable_pods,
 * scheduler_queue_incoming_pods_total).
 *
 * One owner: the scheduler thread writes and renders them, without a lock;
 * `run` hands the rendered text to the HTTP thread (cmd/metrics.h). */
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

typedef struct ms_sched_metrics {
    uint32_t nprofiles;
    ms_metrics_recorder **recorders;   /* per profile */
    ms_prom_histogram sli[MS_SLI_ATTEMPT_LABELS];
    ms_prom_histogram algorithm;
} ms_sched_metrics;

ms_sched_metrics *ms_sched_metrics_new(uint32_t nprofiles);
void ms_sched_metrics_free(ms_sched_metrics *m);
/* A pod bound: scheduler_pod_scheduling_sli_duration_seconds, from its
 * first attempt (upstream's InitialAttemptTimestamp) to now. */
void ms_sched_metrics_scheduled(ms_sched_metrics *m, const ms_queued_pod *qp, double now);
/* scheduler_scheduling_algorithm_duration_seconds: a cycle that found a node. */
void ms_sched_metrics_algorithm(ms_sched_metrics *m, double seconds);

/* Every family above, appended to b in the text format; nothing when the
 * scheduler records no metrics (ms_scheduler_options.record_metrics). */
void ms_scheduler_render_metrics(ms_scheduler *s, ms_buf *b);

#endif
