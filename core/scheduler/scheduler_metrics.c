/* The scheduler thread's metrics. See scheduler/scheduler_metrics.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cache.h"
#include "scheduler/scheduler_metrics.h"
#include "scheduler/scheduler_priv.h"

/* upstream: ExponentialBuckets(0.01, 2, 20) for the SLI,
 * ExponentialBuckets(0.001, 2, 15) for the algorithm. */
static const double sli_le[] = {0.01,  0.02,  0.04,  0.08,  0.16,   0.32,   0.64,   1.28,   2.56,   5.12,
                                10.24, 20.48, 40.96, 81.92, 163.84, 327.68, 655.36, 1310.72, 2621.44, 5242.88};
static const double algorithm_le[] = {0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128,
                                      0.256, 0.512, 1.024, 2.048, 4.096, 8.192, 16.384};
static const ms_prom_bounds sli_bounds = {sli_le, sizeof sli_le / sizeof sli_le[0]};
static const ms_prom_bounds algorithm_bounds = {algorithm_le, sizeof algorithm_le / sizeof algorithm_le[0]};
/* upstream: ExponentialBuckets(0.0001, 2, 12) for event handling */
static const double event_le[] = {0.0001, 0.0002, 0.0004, 0.0008, 0.0016, 0.0032,
                                  0.0064, 0.0128, 0.0256, 0.0512, 0.1024, 0.2048};
static const ms_prom_bounds event_bounds = {event_le, sizeof event_le / sizeof event_le[0]};
static const char *const event_names[MS_SEV_COUNT] = {
    "UnscheduledPodAdd", "UnscheduledPodUpdate", "UnscheduledPodDelete", "AssignedPodAdd", "AssignedPodUpdate",
    "AssignedPodDelete", "NodeAdd",           "NodeUpdate",           "NodeDelete",
};

ms_sched_metrics *ms_sched_metrics_new(uint32_t nprofiles) {
    ms_sched_metrics *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->nprofiles = nprofiles;
    m->recorders = calloc(nprofiles ? nprofiles : 1, sizeof *m->recorders);
    if (!m->recorders) {
        free(m);
        return NULL;
    }
    for (uint32_t i = 0; i < nprofiles; i++)
        if (!(m->recorders[i] = ms_metrics_recorder_new())) {
            ms_sched_metrics_free(m);
            return NULL;
        }
    return m;
}

void ms_sched_metrics_free(ms_sched_metrics *m) {
    if (!m) return;
    for (uint32_t i = 0; i < m->nprofiles; i++) ms_metrics_recorder_free(m->recorders[i]);
    free(m->recorders);
    free(m);
}

void ms_sched_metrics_scheduled(ms_sched_metrics *m, const ms_queued_pod *qp, double now) {
    uint32_t a = qp->attempts < 1 ? 1 : qp->attempts;
    uint32_t k = a >= MS_SLI_ATTEMPT_LABELS ? MS_SLI_ATTEMPT_LABELS - 1 : a - 1;
    double since = qp->initial_attempt > 0 && now > qp->initial_attempt ? now - qp->initial_attempt : 0;
    ms_prom_observe(&m->sli[k], &sli_bounds, since);
}

void ms_sched_metrics_algorithm(ms_sched_metrics *m, double seconds) {
    ms_prom_observe(&m->algorithm, &algorithm_bounds, seconds);
}

void ms_sched_metrics_event(ms_sched_metrics *m, ms_sched_event ev, double seconds) {
    if ((unsigned)ev < MS_SEV_COUNT) ms_prom_observe(&m->events[ev], &event_bounds, seconds);
}

void ms_sched_metrics_permit_wait(ms_sched_metrics *m, ms_code code, double seconds) {
    if ((unsigned)code >= MS_METRICS_NCODES) code = MS_ERROR;
    ms_prom_observe(&m->permit_wait[code], &algorithm_bounds, seconds > 0 ? seconds : 0);
}

/* scheduler_unschedulable_pods: per profile and plugin, the pods waiting
 * among the unschedulable ones that the plugin rejected (a pod counts for
 * each of its plugins). Gated pods were never attempted: left out. */
typedef struct unsched_count {
    ms_scheduler *s;
    uint32_t *n;                   /* [nprofiles][MS_MAX_PLUGINS] */
} unsched_count;

static void count_unschedulable(void *ctx, const ms_queued_pod *qp) {
    unsched_count *u = ctx;
    if (qp->where != MS_QW_UNSCHEDULABLE || qp->gated || !qp->unschedulable_plugins) return;
    int32_t p = ms_scheduler_profile_index(u->s, qp->pod->scheduler_name);
    if (p < 0) return;
    for (uint32_t i = 0; i < MS_MAX_PLUGINS; i++)
        if (qp->unschedulable_plugins >> i & 1) u->n[(uint32_t)p * MS_MAX_PLUGINS + i]++;
}

static void render_unschedulable(ms_scheduler *s, ms_buf *b, const char *const *names) {
    ms_prom_header(b, "scheduler_unschedulable_pods", "gauge",
                   "The number of unschedulable pods broken down by plugin name. A pod will increment the "
                   "gauge for all plugins that caused it to not schedule and so this metric have meaning only "
                   "when broken down by plugin.");
    unsched_count u = {s, calloc((size_t)s->nprofiles * MS_MAX_PLUGINS, sizeof(uint32_t))};
    if (!u.n) return;
    ms_queue_each(s->queue, count_unschedulable, &u);
    char e1[256], e2[256];
    for (uint32_t p = 0; p < s->nprofiles; p++)
        for (uint32_t i = 0; i < MS_MAX_PLUGINS; i++) {
            uint32_t v = u.n[p * MS_MAX_PLUGINS + i];
            if (!v) continue;
            ms_buf_printf(b, "scheduler_unschedulable_pods{plugin=\"%s\",profile=\"%s\"} %u\n",
                          ms_prom_escape(ms_framework_plugin_name(&s->profiles[p], (int32_t)i), e1, sizeof e1),
                          ms_prom_escape(names[p], e2, sizeof e2), v);
        }
    free(u.n);
}

static void put_incoming(void *ctx, const char *queue, const char *event, uint64_t n) {
    ms_buf_printf(ctx, "scheduler_queue_incoming_pods_total{event=\"%s\",queue=\"%s\"} %llu\n", event, queue,
                  (unsigned long long)n);
}

static void render_sli(const ms_sched_metrics *m, ms_buf *b) {
    ms_prom_header(b, "scheduler_pod_scheduling_sli_duration_seconds", "histogram",
                   "E2e latency for a pod being scheduled, from the time the pod enters the scheduling queue "
                   "and might involve multiple scheduling attempts.");
    for (uint32_t k = 0; k < MS_SLI_ATTEMPT_LABELS; k++) {
        if (!m->sli[k].count) continue;
        char labels[32];
        if (k == MS_SLI_ATTEMPT_LABELS - 1) snprintf(labels, sizeof labels, "attempts=\"%u+\"", k + 1);
        else snprintf(labels, sizeof labels, "attempts=\"%u\"", k + 1);
        ms_prom_put_histogram(b, "scheduler_pod_scheduling_sli_duration_seconds", labels, &m->sli[k], &sli_bounds);
    }
    ms_prom_header(b, "scheduler_scheduling_algorithm_duration_seconds", "histogram",
                   "Scheduling algorithm latency in seconds");
    ms_prom_put_histogram(b, "scheduler_scheduling_algorithm_duration_seconds", "", &m->algorithm,
                          &algorithm_bounds);
    char labels[64];
    ms_prom_header(b, "scheduler_event_handling_duration_seconds", "histogram", "Event handling latency in seconds.");
    for (uint32_t k = 0; k < MS_SEV_COUNT; k++) {
        if (!m->events[k].count) continue;
        snprintf(labels, sizeof labels, "event=\"%s\"", event_names[k]);
        ms_prom_put_histogram(b, "scheduler_event_handling_duration_seconds", labels, &m->events[k], &event_bounds);
    }
    /* upstream: ExponentialBuckets(0.001, 2, 15), as the algorithm's */
    ms_prom_header(b, "scheduler_permit_wait_duration_seconds", "histogram", "Duration of waiting on permit.");
    for (uint32_t c = 0; c < MS_METRICS_NCODES; c++) {
        if (!m->permit_wait[c].count) continue;
        snprintf(labels, sizeof labels, "result=\"%s\"", ms_code_str((ms_code)c));
        ms_prom_put_histogram(b, "scheduler_permit_wait_duration_seconds", labels, &m->permit_wait[c],
                              &algorithm_bounds);
    }
}

void ms_scheduler_render_metrics(ms_scheduler *s, ms_buf *b) {
    ms_sched_metrics *m = s->metrics;
    if (!m) return;
    const char **names = calloc(s->nprofiles ? s->nprofiles : 1, sizeof *names);
    if (!names) {
        b->failed = true;
        return;
    }
    for (uint32_t p = 0; p < s->nprofiles; p++) names[p] = ms_str_get(s->in, s->info[p].scheduler_name);
    ms_metrics_recorder_render(b, names, s->profiles, m->recorders, s->nprofiles);
    render_sli(m, b);
    ms_prom_header(b, "scheduler_scheduler_cache_size", "gauge",
                   "Number of nodes, pods, and assumed (bound) pods in the scheduler cache.");
    ms_buf_printf(b, "scheduler_scheduler_cache_size{type=\"assumed_pods\"} %u\n", ms_cache_assumed_count(s->cache));
    ms_buf_printf(b, "scheduler_scheduler_cache_size{type=\"nodes\"} %u\n", ms_cache_node_count(s->cache));
    ms_buf_printf(b, "scheduler_scheduler_cache_size{type=\"pods\"} %u\n", ms_cache_pod_count(s->cache));
    render_unschedulable(s, b, names);
    ms_prom_header(b, "scheduler_queue_incoming_pods_total", "counter",
                   "Number of pods added to scheduling queues by event and queue type.");
    ms_queue_each_incoming(s->queue, put_incoming, b);
    free(names);
}
