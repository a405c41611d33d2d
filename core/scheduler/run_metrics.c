/* The scheduler's metric set in `run` and its Prometheus text. See
 * scheduler/run_metrics.h. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "scheduler/run_metrics.h"
#include "base/buf.h"
#include "base/prom.h"
#include "moonsched/config.h"

enum { NAME_MAX_LEN = 128 };

/* upstream's buckets: ExponentialBuckets(0.001, 2, 15) for latencies,
 * ExponentialBuckets(1, 2, 5) for attempts, ExponentialBuckets(1, 2, 7)
 * for victims (LinearBuckets(5, 5, 10) until 1.22). */
static const double duration_le[] = {0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128,
                                     0.256, 0.512, 1.024, 2.048, 4.096, 8.192, 16.384};
static const double attempts_le[] = {1, 2, 4, 8, 16};
static const double victims_le[] = {1, 2, 4, 8, 16, 32, 64};

#define BOUNDS(a) {(a), (uint32_t)(sizeof(a) / sizeof(a)[0])}
static const ms_prom_bounds duration_bounds = BOUNDS(duration_le);
static const ms_prom_bounds attempts_bounds = BOUNDS(attempts_le);
static const ms_prom_bounds victims_bounds = BOUNDS(victims_le);

typedef ms_prom_histogram histogram;

typedef struct profile_metrics {
    char name[NAME_MAX_LEN];
    uint64_t attempts[MS_ATTEMPT_NRESULTS];
    histogram attempt_duration[MS_ATTEMPT_NRESULTS];
} profile_metrics;

struct ms_metrics {
    pthread_mutex_t mu;
    uint32_t nprofiles;
    profile_metrics *profiles;
    histogram pod_attempts, victims;
    uint64_t preemption_attempts;
    uint32_t pending[4];
    uint64_t bindings[MS_BIND_NRESULTS];
    uint64_t conflicts[MS_BIND_CONFLICT_COUNT];
    uint32_t binds_in_flight;      /* scheduler_goroutines{operation="binding"} */
    /* What the scheduler thread rendered of its own families
     * (ms_scheduler_render_metrics), replaced whole. */
    char *scheduler_text;
    size_t scheduler_len;
};

static const char *const result_names[] = {"scheduled", "unschedulable", "error"};
static const char *const bind_names[] = {"ok", "failed", "gone", "conflict"};
static const char *const conflict_names[] = {
    [MS_BIND_CONFLICT_OTHER] = "other",
    [MS_BIND_CONFLICT_ALREADY_BOUND] = "already_bound",
    [MS_BIND_CONFLICT_GATED] = "gated",
    [MS_BIND_CONFLICT_UID_CHANGED] = "uid_changed",
    [MS_BIND_CONFLICT_BEING_DELETED] = "being_deleted",
};

ms_metrics *ms_metrics_new(const char *const *profiles, uint32_t nprofiles) {
    ms_metrics *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->nprofiles = nprofiles ? nprofiles : 1;
    m->profiles = calloc(m->nprofiles, sizeof *m->profiles);
    if (!m->profiles) {
        free(m);
        return NULL;
    }
    for (uint32_t i = 0; i < nprofiles; i++)
        snprintf(m->profiles[i].name, sizeof m->profiles[i].name, "%s", profiles[i] ? profiles[i] : "");
    if (!nprofiles)
        snprintf(m->profiles[0].name, sizeof m->profiles[0].name, "%s", MS_DEFAULT_SCHEDULER_NAME);
    pthread_mutex_init(&m->mu, NULL);
    return m;
}

void ms_metrics_free(ms_metrics *m) {
    if (!m) return;
    pthread_mutex_destroy(&m->mu);
    free(m->profiles);
    free(m->scheduler_text);
    free(m);
}

static profile_metrics *profile_of(ms_metrics *m, uint32_t profile) {
    return &m->profiles[profile < m->nprofiles ? profile : 0];
}

void ms_metrics_attempt(ms_metrics *m, uint32_t profile, ms_attempt_result result, double seconds) {
    if (!m || result >= MS_ATTEMPT_NRESULTS) return;
    pthread_mutex_lock(&m->mu);
    profile_metrics *p = profile_of(m, profile);
    p->attempts[result]++;
    if (seconds >= 0) ms_prom_observe(&p->attempt_duration[result], &duration_bounds, seconds);
    pthread_mutex_unlock(&m->mu);
}

void ms_metrics_pod_scheduled(ms_metrics *m, uint32_t attempts) {
    if (!m) return;
    pthread_mutex_lock(&m->mu);
    ms_prom_observe(&m->pod_attempts, &attempts_bounds, attempts);
    pthread_mutex_unlock(&m->mu);
}

void ms_metrics_preemption(ms_metrics *m, uint32_t nvictims) {
    if (!m) return;
    pthread_mutex_lock(&m->mu);
    m->preemption_attempts++;
    if (nvictims > 0) ms_prom_observe(&m->victims, &victims_bounds, nvictims);
    pthread_mutex_unlock(&m->mu);
}

void ms_metrics_set_pending(ms_metrics *m, uint32_t active, uint32_t backoff, uint32_t unschedulable,
                           uint32_t gated) {
    if (!m) return;
    pthread_mutex_lock(&m->mu);
    m->pending[0] = active;
    m->pending[1] = backoff;
    m->pending[2] = unschedulable;
    m->pending[3] = gated;
    pthread_mutex_unlock(&m->mu);
}

const char *ms_metrics_conflict_name(ms_bind_conflict why) {
    return (unsigned)why < MS_BIND_CONFLICT_COUNT ? conflict_names[why] : "other";
}

void ms_metrics_bind_conflict(ms_metrics *m, ms_bind_conflict why) {
    if (!m) return;
    if ((unsigned)why >= MS_BIND_CONFLICT_COUNT) why = MS_BIND_CONFLICT_OTHER;
    pthread_mutex_lock(&m->mu);
    m->conflicts[why]++;
    pthread_mutex_unlock(&m->mu);
}

void ms_metrics_binding(ms_metrics *m, ms_bind_result result) {
    if (!m || result >= MS_BIND_NRESULTS) return;
    pthread_mutex_lock(&m->mu);
    m->bindings[result]++;
    pthread_mutex_unlock(&m->mu);
}

void ms_metrics_set_scheduler_text(ms_metrics *m, char *text, size_t len) {
    if (!m) {
        free(text);
        return;
    }
    pthread_mutex_lock(&m->mu);
    char *old = m->scheduler_text;
    m->scheduler_text = text;
    m->scheduler_len = text ? len : 0;
    pthread_mutex_unlock(&m->mu);
    free(old);
}

void ms_metrics_set_binds_in_flight(ms_metrics *m, uint32_t n) {
    if (!m) return;
    pthread_mutex_lock(&m->mu);
    m->binds_in_flight = n;
    pthread_mutex_unlock(&m->mu);
}

/* ---- rendering ---------------------------------------------------------- */


static void render_profiles(ms_buf *b, const ms_metrics *m) {
    char e[2 * NAME_MAX_LEN + 4], labels[3 * NAME_MAX_LEN];
    ms_prom_header(b, "scheduler_schedule_attempts_total", "counter",
           "Number of attempts to schedule pods, by the result. 'unschedulable' means a pod could "
           "not be scheduled, while 'error' means an internal scheduler problem.");
    for (uint32_t p = 0; p < m->nprofiles; p++)
        for (int r = 0; r < MS_ATTEMPT_NRESULTS; r++)
            ms_buf_printf(b, "scheduler_schedule_attempts_total{profile=\"%s\",result=\"%s\"} %llu\n",
                          ms_prom_escape(m->profiles[p].name, e, sizeof e), result_names[r],
                          (unsigned long long)m->profiles[p].attempts[r]);
    ms_prom_header(b, "scheduler_scheduling_attempt_duration_seconds", "histogram",
           "Scheduling attempt latency in seconds (scheduling algorithm + binding)");
    for (uint32_t p = 0; p < m->nprofiles; p++)
        for (int r = 0; r < MS_ATTEMPT_NRESULTS; r++) {
            snprintf(labels, sizeof labels, "profile=\"%s\",result=\"%s\"", ms_prom_escape(m->profiles[p].name, e, sizeof e),
                     result_names[r]);
            ms_prom_put_histogram(b, "scheduler_scheduling_attempt_duration_seconds", labels,
                                  &m->profiles[p].attempt_duration[r], &duration_bounds);
        }
}

void ms_metrics_collect(void *ctx, ms_buf *b) {
    ms_metrics *m = ctx;
    pthread_mutex_lock(&m->mu);
    render_profiles(b, m);

    ms_prom_header(b, "scheduler_pending_pods", "gauge",
           "Number of pending pods, by the queue type. 'active' means number of pods in activeQ; "
           "'backoff' means number of pods in backoffQ; 'unschedulable' means number of pods in "
           "unschedulablePods that the scheduler attempted to schedule and failed; 'gated' is the "
           "number of unschedulable pods that the scheduler never attempted to schedule because "
           "they are gated.");
    static const char *const queues[] = {"active", "backoff", "unschedulable", "gated"};
    for (int i = 0; i < 4; i++)
        ms_buf_printf(b, "scheduler_pending_pods{queue=\"%s\"} %u\n", queues[i], m->pending[i]);

    ms_prom_header(b, "scheduler_pod_scheduling_attempts", "histogram",
           "Number of attempts to successfully schedule a pod.");
    ms_prom_put_histogram(b, "scheduler_pod_scheduling_attempts", "", &m->pod_attempts, &attempts_bounds);
    ms_prom_header(b, "scheduler_preemption_attempts_total", "counter",
           "Total preemption attempts in the cluster till now");
    ms_buf_printf(b, "scheduler_preemption_attempts_total %llu\n",
                  (unsigned long long)m->preemption_attempts);
    ms_prom_header(b, "scheduler_preemption_victims", "histogram", "Number of selected preemption victims");
    ms_prom_put_histogram(b, "scheduler_preemption_victims", "", &m->victims, &victims_bounds);
    ms_prom_header(b, "scheduler_goroutines", "gauge",
           "Number of running goroutines split by the work they do such as binding. Here: binds in "
           "flight on the binder's connection (upstream runs one goroutine per bind).");
    ms_buf_printf(b, "scheduler_goroutines{operation=\"binding\"} %u\n", m->binds_in_flight);

    ms_prom_header(b, "moonsched_bindings_total", "counter", "Binding requests by their outcome.");
    for (int i = 0; i < MS_BIND_NRESULTS; i++)
        ms_buf_printf(b, "moonsched_bindings_total{result=\"%s\"} %llu\n", bind_names[i],
                      (unsigned long long)m->bindings[i]);
    ms_prom_header(b, "moonsched_binding_conflicts_total", "counter",
           "Binds the API server refused with 409 Conflict, by what the refusal meant.");
    for (int i = 0; i < MS_BIND_CONFLICT_COUNT; i++)
        ms_buf_printf(b, "moonsched_binding_conflicts_total{reason=\"%s\"} %llu\n", conflict_names[i],
                      (unsigned long long)m->conflicts[i]);
    pthread_mutex_unlock(&m->mu);
}

void ms_metrics_collect_scheduler_text(void *ctx, ms_buf *b) {
    ms_metrics *m = ctx;
    pthread_mutex_lock(&m->mu);
    if (m->scheduler_text) ms_buf_append(b, m->scheduler_text, m->scheduler_len);
    pthread_mutex_unlock(&m->mu);
}
