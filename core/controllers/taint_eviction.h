/* The taint eviction controller's state, without threads or I/O: the
 * nodes' NoExecute taints with the time each one's countdown starts, the
 * bound pods by node, and the scheduled deletions in one heap ordered by
 * deadline (upstream's NoExecuteTaintManager with its TimedWorkerQueue,
 * minus the goroutine per pod).
 *
 * Fed with node and pod changes (nodes before pods, as upstream); each
 * change re-decides the pods it concerns (controllers/taint_eviction_decide.h):
 *   - delete now, or at a deadline: scheduled (an existing deadline is
 *     kept, as upstream keeps the first worker for a pod);
 *   - untainted, tolerated for ever, the pod gone or Terminating: a
 *     scheduled deletion is cancelled (the sink hears of it, except for a
 *     Terminating pod, which is going anyway).
 * ms_taint_manager_fire hands the due deletions to the sink; a fired pod
 * is not scheduled again until ms_taint_manager_retry (its deletion
 * failed) or until it goes.
 *
 * Times are wall-clock seconds (deadlines derive from timeAdded, which
 * another replica reads the same). One owner thread. */
#ifndef MOONSCHED_CONTROLLERS_TAINT_EVICTION_H
#define MOONSCHED_CONTROLLERS_TAINT_EVICTION_H

#include <stdbool.h>
#include <stdint.h>

#include "moonsched/node.h"
#include "moonsched/pod.h"

typedef struct ms_te_sink {
    void *ctx;
    /* pod is due (fire_at: its deadline); the callee takes its own
     * reference when it keeps it. */
    void (*evict)(void *ctx, ms_pod *pod, double fire_at);
    /* A scheduled deletion of pod was cancelled. */
    void (*cancelled)(void *ctx, const ms_pod *pod);
} ms_te_sink;

typedef struct ms_taint_manager ms_taint_manager;

/* NULL when out of memory. The sink is copied. */
ms_taint_manager *ms_taint_manager_new(const ms_te_sink *sink);
void ms_taint_manager_free(ms_taint_manager *m);

/* A node added or changed (the manager takes its own reference); its
 * pods are re-decided when its NoExecute taints changed. A taint keeps
 * the start of its countdown while its key and effect stay (timeAdded
 * when present, else when first seen here, `now`). */
void ms_taint_manager_node_update(ms_taint_manager *m, ms_node *node, double now);
/* A node gone: its taints are forgotten; deletions already scheduled for
 * its pods stay (as upstream's). */
void ms_taint_manager_node_delete(ms_taint_manager *m, ms_str name, double now);
/* A pod added or changed; unbound pods are ignored. */
void ms_taint_manager_pod_update(ms_taint_manager *m, ms_pod *pod, double now);
void ms_taint_manager_pod_delete(ms_taint_manager *m, const ms_pod *pod, double now);
/* The deletion handed out for pod (by uid) failed: decide it again now,
 * and when it is still to go, not before `not_before` (a server that
 * keeps refusing is not asked again at once). */
void ms_taint_manager_retry(ms_taint_manager *m, ms_pod *pod, double now, double not_before);

/* The earliest deadline scheduled, or a negative value when none. */
double ms_taint_manager_next(const ms_taint_manager *m);
/* Hands every deletion due at `now` to the sink, earliest first, at most
 * max (0: all); returns how many. */
uint32_t ms_taint_manager_fire(ms_taint_manager *m, double now, uint32_t max);

typedef struct ms_taint_manager_stats {
    uint32_t nodes;                /* nodes with NoExecute taints */
    uint32_t pods;                 /* bound pods tracked */
    uint32_t scheduled;            /* deletions waiting for their deadline */
    uint64_t fired, cancelled;
} ms_taint_manager_stats;

void ms_taint_manager_stats_get(const ms_taint_manager *m, ms_taint_manager_stats *out);
/* The deadline scheduled for the pod (by uid), or a negative value. */
double ms_taint_manager_deadline(const ms_taint_manager *m, const ms_pod *pod);

#endif
