/* What the metrics port answers, as kube-scheduler's
 * newHealthEndpointsAndMetricsHandler: /metrics renders the command's
 * registry (base/metrics_registry.h) and nothing else; /healthz and
 * /livez from the scheduler loop's heartbeat, /readyz from the informers'
 * sync and a reason not to be ready, /configz the configuration. `run`
 * sets the state from its scheduler thread; the HTTP threads read it: one
 * mutex. `deschedule` serves its registry with health always ok
 * (ms_endpoints_serve_registry). */
#ifndef MOONSCHED_SERVING_ENDPOINTS_H
#define MOONSCHED_SERVING_ENDPOINTS_H

#include <stdbool.h>

#include "base/metrics_registry.h"
#include "serving/http_server.h"

typedef struct ms_endpoints ms_endpoints;

/* registry: borrowed, outlives the endpoints. NULL when out of memory. */
ms_endpoints *ms_endpoints_new(const ms_metrics_registry *registry);
void ms_endpoints_free(ms_endpoints *e);

/* Health. healthy: the scheduler loop came round at `now` (monotonic
 * seconds); ms_endpoints_healthy says whether it did within `max_age`.
 * ready: the informers have synced. */
void ms_endpoints_heartbeat(ms_endpoints *e, double now);
bool ms_endpoints_healthy(ms_endpoints *e, double now, double max_age);
void ms_endpoints_set_ready(ms_endpoints *e, bool ready);
/* Why the scheduler is not ready although synced (a policy that did not
 * load: its profile places no pod); NULL or "": nothing. /readyz says it. */
void ms_endpoints_set_unready_reason(ms_endpoints *e, const char *why);
/* What /configz answers (upstream's configz: {"componentconfig":{...}}),
 * copied; false when out of memory. */
bool ms_endpoints_set_configz(ms_endpoints *e, const char *json);

/* ms_http_handler (ctx: the endpoints): /metrics renders the registry,
 * /healthz (and /livez) answers 200 while the heartbeat is at most 10 s
 * old (ms_clock_monotonic) and 500 after, /readyz 200 once ready and 503
 * before, or while an unready reason is set (the body says why), /configz
 * the configuration set by ms_endpoints_set_configz (404 before);
 * anything else 404. */
void ms_endpoints_serve(void *ctx, const char *path, ms_http_answer *out);
/* ms_http_handler (ctx: a registry): /metrics renders it; /healthz,
 * /livez, /readyz answer "ok"; anything else 404. */
void ms_endpoints_serve_registry(void *ctx, const char *path, ms_http_answer *out);

#endif
