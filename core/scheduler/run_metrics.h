/* The scheduler's metrics in `moonsched run`, in Prometheus text format
 * 0.0.4 with upstream kube-scheduler's names (docs/run.md lists them):
 * attempts and their durations per profile, pending pods, preemption,
 * binds in flight and their outcomes. The other layers' families live
 * beside what they measure and register into the same registry
 * (run/metric_sets.h wires them).
 *
 * Fixed series only: labels are results, profiles (a handful) and
 * queues, never pods, so the set's size does not grow with the cluster.
 *
 * Threads: the scheduler thread updates it; the HTTP server's thread
 * renders it. Every update and the rendering take one mutex (uncontended
 * in practice: a few updates per pod, never per node), so a scrape sees
 * each histogram whole. The families recorded inside the scheduling cycle
 * (per extension point and plugin) are not here: the scheduler thread
 * owns them and hands over their rendered text about once a second
 * (ms_metrics_set_scheduler_text). */
#ifndef MOONSCHED_SCHEDULER_RUN_METRICS_H
#define MOONSCHED_SCHEDULER_RUN_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "moonsched/scheduler.h"

typedef struct ms_metrics ms_metrics;

typedef enum ms_attempt_result {
    MS_ATTEMPT_SCHEDULED = 0,
    MS_ATTEMPT_UNSCHEDULABLE,
    MS_ATTEMPT_ERROR,
    MS_ATTEMPT_NRESULTS,
} ms_attempt_result;

typedef enum ms_bind_result {
    MS_BIND_OK = 0,
    MS_BIND_FAILED,                /* the server refused or could not be reached */
    MS_BIND_GONE,                  /* 404: the pod was deleted meanwhile */
    MS_BIND_CONFLICT,              /* 409: see ms_metrics_bind_conflict */
    MS_BIND_NRESULTS,
} ms_bind_result;

/* profiles: the schedulerNames (copied). NULL when out of memory. */
ms_metrics *ms_metrics_new(const char *const *profiles, uint32_t nprofiles);
void ms_metrics_free(ms_metrics *m);

/* One attempt's end: scheduler_schedule_attempts_total{result,profile},
 * and with seconds >= 0 its duration into
 * scheduler_scheduling_attempt_duration_seconds{result,profile}. Like
 * upstream, "scheduled" is counted when the binding succeeded and its time
 * runs from the start of the attempt to the end of the binding. An
 * out-of-range profile counts under the first. */
void ms_metrics_attempt(ms_metrics *m, uint32_t profile, ms_attempt_result result, double seconds);
/* scheduler_pod_scheduling_attempts: attempts a pod needed, once bound. */
void ms_metrics_pod_scheduled(ms_metrics *m, uint32_t attempts);
/* scheduler_preemption_attempts_total, and when victims were chosen
 * (nvictims > 0) scheduler_preemption_victims (upstream's buckets since
 * 1.23: 1, 2, 4 .. 64). */
void ms_metrics_preemption(ms_metrics *m, uint32_t nvictims);
/* scheduler_pending_pods{queue}: gated pods (held back by PreEnqueue) are
 * not among the unschedulable ones, as upstream counts them. */
void ms_metrics_set_pending(ms_metrics *m, uint32_t active, uint32_t backoff, uint32_t unschedulable,
                           uint32_t gated);
/* moonsched_bindings_total{result}. */
void ms_metrics_binding(ms_metrics *m, ms_bind_result result);
/* moonsched_binding_conflicts_total{reason}: what a 409 on a bind meant
 * (already_bound, gated, uid_changed, being_deleted, other). */
void ms_metrics_bind_conflict(ms_metrics *m, ms_bind_conflict why);
/* The reason label of a conflict, also what the logs say. */
const char *ms_metrics_conflict_name(ms_bind_conflict why);

/* The families the scheduler thread renders itself
 * (scheduler/scheduler_metrics.h), replacing the previous text; takes the
 * malloc'd text. */
void ms_metrics_set_scheduler_text(ms_metrics *m, char *text, size_t len);
/* scheduler_goroutines{operation="binding"}: binds in flight. */
void ms_metrics_set_binds_in_flight(ms_metrics *m, uint32_t n);

/* ms_metrics_collector (ctx: the metrics): every family above. */
void ms_metrics_collect(void *ctx, ms_buf *b);
/* ms_metrics_collector (ctx: the metrics): the scheduler thread's text as
 * last handed over; registered apart, as the last of the scheduler's
 * families are rendered after the other layers'. */
void ms_metrics_collect_scheduler_text(void *ctx, ms_buf *b);

#endif
