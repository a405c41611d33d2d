/* The API writes of `run` that the scheduler asked for, and their Events:
 * moonsched_api_requests_total{code} (binds, volume and claim writes,
 * events, status patches, the taint eviction controller's deletions;
 * recorded by the binder, the volume binder, the claim writer and the
 * poster of this folder, and by the controller through its `answered`
 * callback) and moonsched_events_total{result}. Fixed series: HTTP status
 * codes, never objects. One mutex between the threads that record and
 * the HTTP thread that renders. */
#ifndef MOONSCHED_RUN_API_METRICS_H
#define MOONSCHED_RUN_API_METRICS_H

#include <stdint.h>

#include "base/buf.h"

typedef struct ms_api_metrics ms_api_metrics;

/* NULL when out of memory. */
ms_api_metrics *ms_api_metrics_new(void);
void ms_api_metrics_free(ms_api_metrics *m);
/* One answer; status 0: no answer. m NULL: not counted. */
void ms_api_metrics_request(ms_api_metrics *m, long status);
/* The same, as a callback (ctx: the metrics). */
void ms_api_metrics_answered(void *ctx, long status);
/* moonsched_events_total{result="posted|failed|suppressed"}: the poster's
 * totals, replaced. */
void ms_api_metrics_events(ms_api_metrics *m, uint64_t posted, uint64_t failed, uint64_t suppressed);
/* ms_metrics_collector (ctx: the metrics). */
void ms_api_metrics_collect(void *ctx, ms_buf *b);

#endif
