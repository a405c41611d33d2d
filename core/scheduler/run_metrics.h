/* Metrics of `moonsched run` in Prometheus text format 0.0.4, with
 * upstream kube-scheduler's names where upstream has the metric
 * (docs/run.md lists them).
 *
 * Fixed series only: labels are results, profiles (a handful), queues,
 * policies and HTTP status codes, never pods, so the set's size does
 * not grow with the cluster.
 *
 * Threads: the scheduler thread, the binder thread and the poster update it;
 * the HTTP server's thread renders it. Every update and the rendering take
 * one mutex (uncontended in practice: a few updates per pod, never per
 * node), so a scrape sees each histogram whole. The families recorded
 * inside the scheduling cycle (per extension point and plugin) are not
 * here: the scheduler thread owns them and hands over their rendered text
 * about once a second (ms_metrics_set_scheduler_text). The set registers
 * into `run`'s registry (ms_metrics_collect); process_* are read from
 * /proc at each scrape (serving/process_metrics.h). */
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

/* How the secure port authenticated a request. */
typedef enum ms_authn_result {
    MS_AUTHN_SUCCESS = 0,          /* a user (anonymous included) */
    MS_AUTHN_FAILURE,              /* a token or certificate refused: 401 */
    MS_AUTHN_ERROR,                /* the TokenReview failed: 401 */
    MS_AUTHN_THROTTLED,            /* too many failures from the address: 401 without a review */
    MS_AUTHN_NRESULTS,
} ms_authn_result;

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
/* moonsched_authentication_attempts_total{result}. */
void ms_metrics_authentication(ms_metrics *m, ms_authn_result result);
/* moonsched_bindings_total{result}. */
void ms_metrics_binding(ms_metrics *m, ms_bind_result result);
/* moonsched_binding_conflicts_total{reason}: what a 409 on a bind meant
 * (already_bound, gated, uid_changed, being_deleted, other). */
void ms_metrics_bind_conflict(ms_metrics *m, ms_bind_conflict why);
/* The reason label of a conflict, also what the logs say. */
const char *ms_metrics_conflict_name(ms_bind_conflict why);
/* moonsched_api_requests_total{code}: requests `run` made for binds,
 * events, status patches and evictions; status 0: no answer. */
void ms_metrics_api_request(ms_metrics *m, long status);
/* moonsched_events_total{result="posted|failed|suppressed"}. */
void ms_metrics_events(ms_metrics *m, uint64_t posted, uint64_t failed, uint64_t suppressed);

/* The policies' counters, replaced whole (copied): moonsched_policy_*
 * series, one per (profile, plugin). */
typedef struct ms_metrics_policy {
    const char *profile;
    const char *plugin;
    uint64_t calls, failures, budget_kills, reloads_ok, reloads_failed;
    bool disabled;
} ms_metrics_policy;
void ms_metrics_set_policies(ms_metrics *m, const ms_metrics_policy *p, uint32_t n);

/* The shadow policies' decisions, replaced whole (copied):
 * moonsched_shadow_decisions_total{policy,profile,agree}. */
typedef struct ms_metrics_shadow {
    const char *profile;
    const char *policy;
    uint64_t agree, disagree;
    uint64_t skipped;              /* cycles sat out while disabled (not decisions) */
} ms_metrics_shadow;
void ms_metrics_set_shadows(ms_metrics *m, const ms_metrics_shadow *p, uint32_t n);

/* A pod the taint eviction controller deleted, `latency` seconds after
 * its deadline: taint_eviction_controller_pod_deletions_total and
 * taint_eviction_controller_pod_deletion_duration_seconds (rendered only
 * once the controller runs, i.e. after ms_metrics_taint_eviction_enable). */
void ms_metrics_taint_eviction_enable(ms_metrics *m);
void ms_metrics_taint_eviction_deletion(ms_metrics *m, double latency);

/* The families the scheduler thread renders itself
 * (scheduler/scheduler_metrics.h), replacing the previous text; takes the
 * malloc'd text. */
void ms_metrics_set_scheduler_text(ms_metrics *m, char *text, size_t len);
/* scheduler_goroutines{operation="binding"}: binds in flight. */
void ms_metrics_set_binds_in_flight(ms_metrics *m, uint32_t n);
/* rest_client_requests_total{code,host,method} and
 * rest_client_request_duration_seconds{host,verb}: the observer of every
 * kube client of `run` (ms_kube_client_options.observe; ctx: the
 * metrics); seconds < 0: a stream, counted without a latency. The host
 * label comes from the server URL. */
void ms_metrics_rest_request(void *ctx, const char *method, long status, double seconds);
void ms_metrics_set_rest_host(ms_metrics *m, const char *server);

/* leader_election_master_status{name}: 1 while this replica holds the
 * lease, 0 on standby; not rendered until first set (no election). */
void ms_metrics_set_leader(ms_metrics *m, const char *name, bool leading);

/* ms_metrics_collector (ctx: the metrics): every family above, then the
 * scheduler thread's text, appended to b. */
void ms_metrics_collect(void *ctx, ms_buf *b);

#endif
