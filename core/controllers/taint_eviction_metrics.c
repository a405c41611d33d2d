/* The taint eviction controller's deletions. See
 * controllers/taint_eviction_metrics.h. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/prom.h"
#include "controllers/taint_eviction_metrics.h"

static const double deletion_le[] = {0.005, 0.025, 0.1, 0.5, 1, 2.5, 10, 30, 60, 120, 180, 240};
static const ms_prom_bounds deletion_bounds = {deletion_le, (uint32_t)(sizeof deletion_le / sizeof deletion_le[0])};

struct ms_taint_eviction_metrics {
    pthread_mutex_t mu;
    uint64_t deletions;
    ms_prom_histogram latency;
};

ms_taint_eviction_metrics *ms_taint_eviction_metrics_new(void) {
    ms_taint_eviction_metrics *m = calloc(1, sizeof *m);
    if (m) pthread_mutex_init(&m->mu, NULL);
    return m;
}

void ms_taint_eviction_metrics_free(ms_taint_eviction_metrics *m) {
    if (!m) return;
    pthread_mutex_destroy(&m->mu);
    free(m);
}

void ms_taint_eviction_metrics_deleted(void *ctx, double latency) {
    ms_taint_eviction_metrics *m = ctx;
    if (!m) return;
    pthread_mutex_lock(&m->mu);
    m->deletions++;
    ms_prom_observe(&m->latency, &deletion_bounds, latency > 0 ? latency : 0);
    pthread_mutex_unlock(&m->mu);
}

void ms_taint_eviction_metrics_collect(void *ctx, ms_buf *b) {
    ms_taint_eviction_metrics *m = ctx;
    pthread_mutex_lock(&m->mu);
    ms_prom_header(b, "taint_eviction_controller_pod_deletions_total", "counter",
           "Total number of Pods deleted by TaintEvictionController since its start.");
    ms_buf_printf(b, "taint_eviction_controller_pod_deletions_total %llu\n", (unsigned long long)m->deletions);
    ms_prom_header(b, "taint_eviction_controller_pod_deletion_duration_seconds", "histogram",
           "Latency, in seconds, between the time when a taint effect has been activated for the Pod and "
           "its deletion via TaintEvictionController.");
    ms_prom_put_histogram(b, "taint_eviction_controller_pod_deletion_duration_seconds", "", &m->latency,
                          &deletion_bounds);
    pthread_mutex_unlock(&m->mu);
}
