/* `run`'s API requests and Events. See run/api_metrics.h. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/prom.h"
#include "run/api_metrics.h"

enum { MAX_CODES = 24 };

struct ms_api_metrics {
    pthread_mutex_t mu;
    struct {
        long code;
        uint64_t n;
    } codes[MAX_CODES];
    uint32_t ncodes;
    uint64_t codes_other;
    uint64_t events[3];
};

ms_api_metrics *ms_api_metrics_new(void) {
    ms_api_metrics *m = calloc(1, sizeof *m);
    if (m) pthread_mutex_init(&m->mu, NULL);
    return m;
}

void ms_api_metrics_free(ms_api_metrics *m) {
    if (!m) return;
    pthread_mutex_destroy(&m->mu);
    free(m);
}

void ms_api_metrics_request(ms_api_metrics *m, long status) {
    if (!m) return;
    pthread_mutex_lock(&m->mu);
    uint32_t i = 0;
    while (i < m->ncodes && m->codes[i].code != status) i++;
    if (i < m->ncodes) {
        m->codes[i].n++;
    } else if (m->ncodes < MAX_CODES) {
        /* Kept sorted so that the series come out in a stable order. */
        uint32_t at = 0;
        while (at < m->ncodes && m->codes[at].code < status) at++;
        memmove(&m->codes[at + 1], &m->codes[at], (m->ncodes - at) * sizeof m->codes[0]);
        m->codes[at].code = status;
        m->codes[at].n = 1;
        m->ncodes++;
    } else {
        m->codes_other++;
    }
    pthread_mutex_unlock(&m->mu);
}

void ms_api_metrics_answered(void *ctx, long status) { ms_api_metrics_request(ctx, status); }

void ms_api_metrics_events(ms_api_metrics *m, uint64_t posted, uint64_t failed, uint64_t suppressed) {
    if (!m) return;
    pthread_mutex_lock(&m->mu);
    m->events[0] = posted;
    m->events[1] = failed;
    m->events[2] = suppressed;
    pthread_mutex_unlock(&m->mu);
}

void ms_api_metrics_collect(void *ctx, ms_buf *b) {
    ms_api_metrics *m = ctx;
    pthread_mutex_lock(&m->mu);
    ms_prom_header(b, "moonsched_api_requests_total", "counter",
           "API requests for binds, events, status patches and evictions, by HTTP status "
           "(0: no answer).");
    for (uint32_t i = 0; i < m->ncodes; i++)
        ms_buf_printf(b, "moonsched_api_requests_total{code=\"%ld\"} %llu\n", m->codes[i].code,
                      (unsigned long long)m->codes[i].n);
    if (m->codes_other)
        ms_buf_printf(b, "moonsched_api_requests_total{code=\"other\"} %llu\n",
                      (unsigned long long)m->codes_other);
    ms_prom_header(b, "moonsched_events_total", "counter",
           "Kubernetes Events posted, failed, or suppressed by aggregation and the rate limit.");
    static const char *const ev[] = {"posted", "failed", "suppressed"};
    for (int i = 0; i < 3; i++)
        ms_buf_printf(b, "moonsched_events_total{result=\"%s\"} %llu\n", ev[i],
                      (unsigned long long)m->events[i]);
    pthread_mutex_unlock(&m->mu);
}
