/* leader_election_master_status{name}, as client-go's leaderelection
 * metrics provider: 1 while this replica holds the lease, 0 on standby.
 * Not rendered until first set: upstream registers it with the elector,
 * so a command without an election has no series. The elector's
 * `leading_changed` callback sets it (ms_leader_metrics_changed); `run`
 * and `deschedule` register it in their registries. */
#ifndef MOONSCHED_CLIENT_LEADER_METRICS_H
#define MOONSCHED_CLIENT_LEADER_METRICS_H

#include <stdbool.h>

#include "base/buf.h"

typedef struct ms_leader_metrics ms_leader_metrics;

/* NULL when out of memory. */
ms_leader_metrics *ms_leader_metrics_new(void);
void ms_leader_metrics_free(ms_leader_metrics *m);
/* ms_leader_elector_options.leading_changed (ctx: the metrics); lease
 * copied. */
void ms_leader_metrics_changed(void *ctx, const char *lease, bool leading);
/* ms_metrics_collector (ctx: the metrics). */
void ms_leader_metrics_collect(void *ctx, ms_buf *b);

#endif
