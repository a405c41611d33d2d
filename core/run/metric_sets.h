/* Every metric set of `moonsched run`, each beside what it measures, and
 * the one registry /metrics renders: the order of the families in the
 * exposition is decided here, by the order of registration (the order
 * `run` has always served them in):
 *   the scheduler's families (scheduler/run_metrics.h),
 *   the secure port's authentications (serving/authn_metrics.h),
 *   the API writes and Events (run/api_metrics.h),
 *   the leader election gauge (client/leader_metrics.h),
 *   the policies and shadows (policy/policy_metrics.h),
 *   the taint eviction controller's, when it runs
 *     (controllers/taint_eviction_metrics.h),
 *   the kube clients' requests (client/rest_client_metrics.h),
 *   the scheduler thread's own text (per extension point and plugin),
 *   the process's (serving/process_metrics.h).
 * Each set has its own lock (or atomics), taken only to record and to
 * render it; the registry itself is read-only once built. */
#ifndef MOONSCHED_RUN_METRIC_SETS_H
#define MOONSCHED_RUN_METRIC_SETS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/metrics_registry.h"
#include "client/leader_metrics.h"
#include "client/rest_client_metrics.h"
#include "controllers/taint_eviction_metrics.h"
#include "policy/policy_metrics.h"
#include "run/api_metrics.h"
#include "scheduler/run_metrics.h"
#include "serving/authn_metrics.h"

typedef struct ms_metric_sets {
    ms_metrics *scheduler;
    ms_authn_metrics *authn;
    ms_api_metrics *api;
    ms_leader_metrics *leader;
    ms_policy_metrics *policies;
    ms_taint_eviction_metrics *taint_eviction;   /* NULL: the controller does not run */
    ms_rest_client_metrics *rest;
    ms_metrics_registry *registry;
} ms_metric_sets;

/* profiles: the schedulerNames (copied); taint_eviction: the controller
 * runs, its families are served. NULL when out of memory. */
ms_metric_sets *ms_metric_sets_new(const char *const *profiles, uint32_t nprofiles, bool taint_eviction);
void ms_metric_sets_free(ms_metric_sets *s);

#endif
