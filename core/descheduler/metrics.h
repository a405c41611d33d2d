/* The metrics of `moonsched deschedule`, as upstream's descheduler names
 * them: descheduler_pods_evicted_total{result,strategy,profile,namespace,
 * node}, descheduler_loop_duration_seconds and
 * descheduler_strategy_duration_seconds{strategy,profile} (upstream's
 * buckets). Updated by the pass, rendered through `deschedule`'s registry
 * by the serving thread (after it, the leader election gauge of
 * client/leader_metrics.h): one mutex. */
#ifndef MOONSCHED_DESCHEDULER_METRICS_H
#define MOONSCHED_DESCHEDULER_METRICS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"

typedef struct ms_desched_metrics ms_desched_metrics;

ms_desched_metrics *ms_desched_metrics_new(void);
void ms_desched_metrics_free(ms_desched_metrics *m);

/* result: "success" or "error", as upstream counts them. */
void ms_desched_metrics_evicted(ms_desched_metrics *m, const char *result, const char *strategy,
                                const char *profile, const char *ns, const char *node);
void ms_desched_metrics_loop(ms_desched_metrics *m, double seconds);
void ms_desched_metrics_strategy(ms_desched_metrics *m, const char *strategy, const char *profile,
                                 double seconds);
/* A new version of the policy's files loaded (ok) or was refused:
 * moonsched_policy_reloads_total{plugin="DeschedulerPolicy",profile="",
 * result="ok|refused"}, as `run` counts its policies' reloads; a --policy
 * file's as plugin="lua:<its file name without .lua>". */
void ms_desched_metrics_reload(ms_desched_metrics *m, const char *plugin, bool ok);

/* ms_metrics_collector (ctx: the metrics): the families, appended to b. */
void ms_desched_metrics_collect(void *ctx, ms_buf *b);

#endif
