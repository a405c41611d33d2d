/* The scheduler: owns the cache, the queue, the profiles and the snapshot,
 * applies cluster deltas and runs scheduling cycles. One thread drives it
 * (the "scheduler thread"); informers and binders talk to it through
 * ms_scheduler_* calls made on that thread. Same code for `run` and
 * `simulate`: only the binder, the reporter and the clock differ. */
#ifndef MOONSCHED_SCHEDULER_H
#define MOONSCHED_SCHEDULER_H

#include <stdbool.h>
#include <stdint.h>

#include "moonsched/cache.h"
#include "moonsched/config.h"
#include "moonsched/error.h"
#include "moonsched/framework.h"
#include "moonsched/intern.h"
#include "moonsched/node.h"
#include "moonsched/pod.h"
#include "moonsched/queue.h"

/* Where binds go. bind() must not block: the result comes back later through
 * ms_scheduler_bind_done (the in-memory binder calls it at once). */
typedef struct ms_binder {
    void *ctx;
    ms_rc (*bind)(void *ctx, const ms_pod *pod, ms_str node);
} ms_binder;

/* What the scheduler tells the world (events, status patches, simulate's
 * output). All optional. Called on the scheduler thread. */
typedef struct ms_score_report {
    uint32_t nplugins;
    const char *const *names;      /* score plugin names */
    const int64_t *scores;         /* weighted scores of the chosen node, per plugin */
    int64_t total;
    uint32_t feasible;             /* feasible nodes found */
    uint32_t evaluated;            /* nodes evaluated */
} ms_score_report;

typedef struct ms_reporter {
    void *ctx;
    void (*scheduled)(void *ctx, const ms_pod *pod, ms_str node, const ms_score_report *why);
    void (*unschedulable)(void *ctx, const ms_pod *pod, const char *message, uint32_t attempts);
    void (*bind_failed)(void *ctx, const ms_pod *pod, ms_str node, const char *message);
    void (*nominated)(void *ctx, const ms_pod *pod, ms_str node);
} ms_reporter;

typedef struct ms_scheduler ms_scheduler;

typedef struct ms_scheduler_options {
    const ms_config *config;       /* copied where needed; must outlive the call only */
    ms_interner *in;
    ms_binder binder;
    ms_reporter reporter;
    uint64_t seed;                 /* random choice among equal top scores */
} ms_scheduler_options;

ms_rc ms_scheduler_new(const ms_scheduler_options *o, ms_scheduler **out, ms_error *err);
void ms_scheduler_free(ms_scheduler *s);

/* Cluster deltas (from informers or a file loader). They take references. */
void ms_scheduler_node_add(ms_scheduler *s, ms_node *node, double now);
void ms_scheduler_node_update(ms_scheduler *s, ms_node *node, double now);
void ms_scheduler_node_delete(ms_scheduler *s, ms_str name, double now);
/* Pods: bound pods feed the cache; pending pods whose schedulerName matches
 * a profile enter the queue; others are ignored. */
void ms_scheduler_pod_add(ms_scheduler *s, ms_pod *pod, double now);
void ms_scheduler_pod_update(ms_scheduler *s, ms_pod *pod, double now);
void ms_scheduler_pod_delete(ms_scheduler *s, const ms_pod *pod, double now);

/* One scheduling cycle. Returns true when a pod was popped. */
bool ms_scheduler_schedule_one(ms_scheduler *s, double now);
/* Bind outcome for a pod previously handed to the binder. ok=false:
 * Unreserve, forget, requeue with backoff (unless `gone`: already bound
 * elsewhere or deleted). */
void ms_scheduler_bind_done(ms_scheduler *s, const ms_pod *pod, bool ok, bool gone,
                            const char *message, double now);
/* Periodic housekeeping: queue flush, assumed-pod expiry. */
void ms_scheduler_tick(ms_scheduler *s, double now);

ms_queue *ms_scheduler_queue(ms_scheduler *s);
ms_cache *ms_scheduler_cache(ms_scheduler *s);
uint32_t ms_scheduler_nprofiles(const ms_scheduler *s);
const ms_framework *ms_scheduler_profile(const ms_scheduler *s, uint32_t i);

#endif
