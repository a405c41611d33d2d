/* The taint eviction controller of `moonsched run` (--controllers=
 * taint-eviction): pods bound to nodes with NoExecute taints they do not
 * tolerate are deleted, at once or when their tolerationSeconds have run
 * out, as upstream's taint eviction controller does (docs/taint-eviction.md).
 *
 * Work is sharded by node name over `workers` threads, each with its own
 * state and timer heap (controllers/taint_eviction.h) and two inboxes,
 * node changes drained before pod changes; one node with many pods keeps
 * its own shard busy, not the others. Deletions go out through one
 * asynchronous engine (many in flight over shared connections), so a
 * shard never waits on the network either:
 *   Event TaintManagerEviction "Marking for deletion Pod NS/NAME";
 *   where the server has pod disruption conditions (1.26+, decided from
 *   GET /version at start), a strategic merge patch of pods/NAME/status
 *   with DisruptionTarget=True, reason DeletionByTaintManager;
 *   DELETE pods/NAME with the pod's uid as precondition (404 and 409: the
 *   pod is gone or another one took its name: done).
 * A scheduled deletion that is cancelled posts "Cancelling deletion of Pod
 * NS/NAME". Events are core/v1, source taint-eviction-controller, as
 * upstream records them.
 *
 * Every replica keeps its state from the informers; only the leader
 * (options.leading) fires deletions, so a standby that takes over fires
 * what is due with the deadlines it computed itself. */
#ifndef MOONSCHED_CONTROLLERS_TAINT_EVICTION_CONTROLLER_H
#define MOONSCHED_CONTROLLERS_TAINT_EVICTION_CONTROLLER_H

#include <stdbool.h>
#include <stdint.h>

#include "client/delta_queue.h"
#include "client/kube_client.h"
#include "moonsched/error.h"
#include "moonsched/intern.h"
#include "moonsched/log.h"

#define MS_TAINT_EVICTION_CONTROLLER "taint-eviction-controller"

typedef struct ms_taint_eviction_options {
    ms_kube_client *client;        /* must outlive the controller */
    const ms_interner *in;         /* resolves the objects' names */
    const ms_logger *log;          /* NULL: ms_log_default */
    uint32_t workers;              /* shards; 0: 8, as upstream's UpdateWorkerSize */
    uint32_t max_in_flight;        /* requests on the wire at once; 0: 64 */
    /* DisruptionTarget condition before the DELETE: 0 when the server is
     * 1.26 or newer (GET /version; when that fails: tried, and a refusal
     * does not stop the deletion), 1 always, -1 never. */
    int disruption_condition;
    /* Whether this replica may delete now (any thread); NULL: always. */
    bool (*leading)(void *ctx);
    void *leading_ctx;
    /* A pod deleted (2xx), `latency` seconds after its deadline: for
     * taint_eviction_controller_pod_deletion_duration_seconds. Any thread. */
    void (*deleted)(void *ctx, double latency);
    void *deleted_ctx;
    /* Every answer to its requests (status 0: none came). Any thread. */
    void (*answered)(void *ctx, long status);
    void *answered_ctx;
} ms_taint_eviction_options;

typedef struct ms_taint_eviction ms_taint_eviction;

/* Starts the shards; the options' pointers must stay valid until stop. */
ms_rc ms_taint_eviction_start(const ms_taint_eviction_options *o, ms_taint_eviction **out, ms_error *err);
/* Stops the shards, gives requests in flight up to `drain` seconds, frees. */
void ms_taint_eviction_stop(ms_taint_eviction *c, double drain);

/* A pod or node change for the controller (from the informers' consumer);
 * the controller takes its own reference to the object. Other kinds and
 * unbound pods are ignored. */
void ms_taint_eviction_observe(ms_taint_eviction *c, const ms_delta *d);

typedef struct ms_taint_eviction_stats {
    uint32_t nodes, pods, scheduled;   /* over the shards (approximate while running) */
    uint64_t deletions, gone, failures, cancelled;
} ms_taint_eviction_stats;

void ms_taint_eviction_stats_get(ms_taint_eviction *c, ms_taint_eviction_stats *out);

#endif
