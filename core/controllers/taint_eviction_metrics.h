/* The taint eviction controller's families, as upstream's
 * pkg/controller/tainteviction/metrics:
 * taint_eviction_controller_pod_deletions_total and
 * taint_eviction_controller_pod_deletion_duration_seconds (its buckets).
 * `run` registers them only when it starts the controller, so a scheduler
 * without controllers serves neither. One mutex between the controller's
 * thread and the HTTP thread. */
#ifndef MOONSCHED_CONTROLLERS_TAINT_EVICTION_METRICS_H
#define MOONSCHED_CONTROLLERS_TAINT_EVICTION_METRICS_H

#include "base/buf.h"

typedef struct ms_taint_eviction_metrics ms_taint_eviction_metrics;

/* NULL when out of memory. */
ms_taint_eviction_metrics *ms_taint_eviction_metrics_new(void);
void ms_taint_eviction_metrics_free(ms_taint_eviction_metrics *m);
/* ms_taint_eviction_options.deleted (ctx: the metrics): a pod deleted,
 * `latency` seconds after its deadline. */
void ms_taint_eviction_metrics_deleted(void *ctx, double latency);
/* ms_metrics_collector (ctx: the metrics). */
void ms_taint_eviction_metrics_collect(void *ctx, ms_buf *b);

#endif
