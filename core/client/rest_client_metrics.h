/* client-go's rest_client_requests_total{code,host,method} and
 * rest_client_request_duration_seconds{host,verb} (component-base's
 * restclient metrics, its buckets), for every kube client of a command:
 * each reports its requests through ms_kube_client_options.observe
 * (ms_rest_client_metrics_observe). One host: the label comes from the
 * server URL. Fixed series: verbs and status codes. One mutex between the
 * clients' threads and the HTTP thread that renders. */
#ifndef MOONSCHED_CLIENT_REST_CLIENT_METRICS_H
#define MOONSCHED_CLIENT_REST_CLIENT_METRICS_H

#include "base/buf.h"

typedef struct ms_rest_client_metrics ms_rest_client_metrics;

/* NULL when out of memory. */
ms_rest_client_metrics *ms_rest_client_metrics_new(void);
void ms_rest_client_metrics_free(ms_rest_client_metrics *m);
/* The host label: server's host[:port]. */
void ms_rest_client_metrics_set_host(ms_rest_client_metrics *m, const char *server);
/* ms_kube_client_options.observe (ctx: the metrics); seconds < 0: a
 * stream, counted without a latency. */
void ms_rest_client_metrics_observe(void *ctx, const char *method, long status, double seconds);
/* ms_metrics_collector (ctx: the metrics). */
void ms_rest_client_metrics_collect(void *ctx, ms_buf *b);

#endif
