/* The kube clients' request counts and latencies. See
 * client/rest_client_metrics.h. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/prom.h"
#include "client/rest_client_metrics.h"

enum { MAX_RESULTS = 48 };

/* component-base/metrics/prometheus/restclient's request latency */
static const double latency_le[] = {0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60};
static const ms_prom_bounds latency_bounds = {latency_le, (uint32_t)(sizeof latency_le / sizeof latency_le[0])};

/* rest_client_request_duration_seconds is per verb: the methods the
 * client uses, then anything else. */
static const char *const verbs[] = {"GET", "POST", "PUT", "PATCH", "DELETE", "other"};
enum { NVERBS = sizeof verbs / sizeof verbs[0] };

struct ms_rest_client_metrics {
    pthread_mutex_t mu;
    char host[256];
    struct {
        uint8_t verb;
        long code;
        uint64_t n;
    } results[MAX_RESULTS];
    uint32_t nresults;
    ms_prom_histogram latency[NVERBS];
};

ms_rest_client_metrics *ms_rest_client_metrics_new(void) {
    ms_rest_client_metrics *m = calloc(1, sizeof *m);
    if (m) pthread_mutex_init(&m->mu, NULL);
    return m;
}

void ms_rest_client_metrics_free(ms_rest_client_metrics *m) {
    if (!m) return;
    pthread_mutex_destroy(&m->mu);
    free(m);
}

void ms_rest_client_metrics_set_host(ms_rest_client_metrics *m, const char *server) {
    if (!m) return;
    /* client-go's host label: the URL's host[:port] */
    const char *h = server ? strstr(server, "://") : NULL;
    h = h ? h + 3 : server ? server : "";
    size_t n = strcspn(h, "/");
    pthread_mutex_lock(&m->mu);
    snprintf(m->host, sizeof m->host, "%.*s", (int)n, h);
    pthread_mutex_unlock(&m->mu);
}

static uint8_t verb_of(const char *method) {
    for (uint8_t i = 0; i + 1 < NVERBS; i++)
        if (method && strcmp(method, verbs[i]) == 0) return i;
    return NVERBS - 1;
}

void ms_rest_client_metrics_observe(void *ctx, const char *method, long status, double seconds) {
    ms_rest_client_metrics *m = ctx;
    if (!m) return;
    uint8_t verb = verb_of(method);
    pthread_mutex_lock(&m->mu);
    uint32_t i = 0;
    while (i < m->nresults && (m->results[i].verb != verb || m->results[i].code != status)) i++;
    if (i < m->nresults) {
        m->results[i].n++;
    } else if (i < MAX_RESULTS) {
        m->results[i].verb = verb;
        m->results[i].code = status;
        m->results[i].n = 1;
        m->nresults++;
    }
    if (seconds >= 0) ms_prom_observe(&m->latency[verb], &latency_bounds, seconds);
    pthread_mutex_unlock(&m->mu);
}

void ms_rest_client_metrics_collect(void *ctx, ms_buf *b) {
    ms_rest_client_metrics *m = ctx;
    char host[2 * sizeof m->host + 4], labels[sizeof host + 64];
    pthread_mutex_lock(&m->mu);
    ms_prom_escape(m->host, host, sizeof host);
    ms_prom_header(b, "rest_client_requests_total", "counter",
           "Number of HTTP requests, partitioned by status code, method, and host.");
    for (uint32_t i = 0; i < m->nresults; i++) {
        char code[24];
        if (m->results[i].code) snprintf(code, sizeof code, "%ld", m->results[i].code);
        else snprintf(code, sizeof code, "<error>");   /* client-go's label for no answer */
        ms_buf_printf(b, "rest_client_requests_total{code=\"%s\",host=\"%s\",method=\"%s\"} %llu\n", code, host,
                      verbs[m->results[i].verb], (unsigned long long)m->results[i].n);
    }
    ms_prom_header(b, "rest_client_request_duration_seconds", "histogram",
           "Request latency in seconds. Broken down by verb, and host.");
    for (int v = 0; v < NVERBS; v++) {
        if (!m->latency[v].count) continue;
        snprintf(labels, sizeof labels, "host=\"%s\",verb=\"%s\"", host, verbs[v]);
        ms_prom_put_histogram(b, "rest_client_request_duration_seconds", labels, &m->latency[v], &latency_bounds);
    }
    pthread_mutex_unlock(&m->mu);
}
