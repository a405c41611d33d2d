/* An informer keeps a consumer's view of one resource (pods, nodes, ...)
 * in step with the API server, on a thread of its own:
 *
 *   LIST (paginated: limit, continue) -> deltas, then "synced" once
 *   WATCH from the list's resourceVersion (allowWatchBookmarks, a jittered
 *   timeoutSeconds) -> ADDED/MODIFIED/DELETED as deltas, BOOKMARK moves the
 *   resourceVersion; when the server ends the watch, watch again from the
 *   last resourceVersion; on failure (a line that is not an event
 *   included: the watch resumes after the last event read whole), again
 *   after a jittered backoff (client/backoff.h: 0.8 s doubling to 30 s,
 *   a Retry-After waited for as it says; the spell ends with a LIST
 *   answered in full, a watch that held for a second, or two minutes
 *   without a failure);
 *   410 Gone (HTTP status, or an ERROR event with code 410): relist and
 *   emit the deltas that turn the consumer's view into the new list (at
 *   once; after the backoff when the watch that follows a relist meets
 *   410 again).
 *
 * JSON is decoded on the informer thread; the consumer receives decoded,
 * reference-counted objects through an ms_delta_queue. An object that does
 * not decode is logged (one line naming it) and skipped. */
#ifndef MOONSCHED_INFORMER_H
#define MOONSCHED_INFORMER_H

#include <stdbool.h>
#include <stdint.h>

#include "client/delta_queue.h"
#include "client/kube_client.h"
#include "moonsched/decode.h"
#include "moonsched/error.h"
#include "moonsched/log.h"

typedef struct cJSON cJSON;

/* What is watched and how its objects are decoded. */
typedef struct ms_informer_resource {
    uint8_t kind;                  /* ms_object_kind, copied into deltas */
    const char *path;              /* collection path: "/api/v1/pods" */
    /* Tried when the server answers 404 for `path` before the first LIST
     * succeeded (an older API version of the resource); the version is
     * decided then and kept for the informer's life. NULL: none. */
    const char *fallback_path;
    const char *field_selector;    /* NULL: none */
    /* A 403 on the first LIST, or a 404 (the resource not served, in
     * any of its versions), counts as synced with no objects (logged once,
     * as a warning naming the resource); the LIST is retried on the
     * backoff (quietly), so the objects arrive once access is granted or
     * the resource served.
     * For what scheduling can do without, where waiting for a grant would
     * stop it altogether. */
    bool optional;
    /* Decodes one object; *out gets a reference the informer owns. kind
     * is the resource's, so that one decoder serves a family of kinds
     * (storage objects, resource.k8s.io objects). */
    ms_rc (*decode)(const void *ctx, ms_object_kind kind, const cJSON *obj, void **out, ms_error *err);
    void *(*ref)(void *obj);       /* takes a reference, returns obj */
    void (*unref)(void *obj);
} ms_informer_resource;

/* Pods as kube-scheduler watches them (terminal pods are excluded by the
 * field selector status.phase!=Succeeded,status.phase!=Failed) and nodes;
 * the decode context is an ms_decoder *. */
extern const ms_informer_resource ms_informer_pods;
extern const ms_informer_resource ms_informer_nodes;
/* Namespaces (their labels, for pod affinity's namespaceSelector) and
 * PodDisruptionBudgets (policy/v1, falling back to policy/v1beta1 on
 * servers older than 1.21); decode context: an ms_decoder *. */
extern const ms_informer_resource ms_informer_namespaces;
extern const ms_informer_resource ms_informer_pdbs;
/* Storage objects for the volume plugins (ms_storage_object, api/storage.h;
 * client/storage_informers.c); decode context: an ms_decoder *. CSIDrivers
 * and CSIStorageCapacities are optional (absent before 1.21, or not
 * readable by 1.20's system:kube-scheduler). */
extern const ms_informer_resource ms_informer_pvs;
extern const ms_informer_resource ms_informer_pvcs;
extern const ms_informer_resource ms_informer_storage_classes;
extern const ms_informer_resource ms_informer_csi_nodes;
extern const ms_informer_resource ms_informer_csi_drivers;
extern const ms_informer_resource ms_informer_csi_capacities;
/* resource.k8s.io/v1 objects for DynamicResources (ms_dra_object,
 * api/dra.h; client/dra_informers.c), all optional (a 404: no DRA on the
 * server); decode context: an ms_decoder *. */
extern const ms_informer_resource ms_informer_device_classes;
extern const ms_informer_resource ms_informer_resource_slices;
extern const ms_informer_resource ms_informer_resource_claims;
extern const ms_informer_resource ms_informer_resource_claim_templates;
/* Services, ReplicationControllers, ReplicaSets and StatefulSets for the
 * default topology spreading (ms_workload, api/workload.h;
 * client/workload_informers.c), all optional (a 403: a role without them);
 * decode context: an ms_decoder *. */
extern const ms_informer_resource ms_informer_services;
extern const ms_informer_resource ms_informer_replication_controllers;
extern const ms_informer_resource ms_informer_replica_sets;
extern const ms_informer_resource ms_informer_stateful_sets;

typedef struct ms_informer_options {
    ms_kube_client *client;        /* shared; must outlive the informer */
    const ms_informer_resource *resource;
    const void *decode_ctx;        /* passed to resource->decode (pods, nodes: an ms_decoder, e.g. ms_scheduler_decoder) */
    ms_delta_queue *queue;         /* must outlive the informer */
    const ms_logger *log;          /* NULL: ms_log_default; must outlive the informer */
    const char *label_selector;    /* NULL: none */
    uint32_t page_size;            /* LIST limit; 0: 500 */
    /* The watch asks the server to end it after timeoutSeconds, a random
     * value in [watch_timeout, 2 * watch_timeout). 0: 300 (5 minutes). */
    uint32_t watch_timeout;
    double backoff_initial;        /* seconds; 0: 0.8 */
    double backoff_max;            /* 0: 30 */
    double backoff_reset;          /* this long without a failure resets the backoff; 0: 120 */
    uint64_t seed;                 /* jitter; 0: from the clock */
    /* For tests: called on the informer thread before each WATCH with the
     * resourceVersion it resumes from (rv, rv_size bytes); it may rewrite
     * it, e.g. to a compacted one to make the server answer 410 Gone. */
    void (*before_watch)(void *ctx, char *rv, size_t rv_size);
    void *before_watch_ctx;
} ms_informer_options;

typedef struct ms_informer ms_informer;

/* Starts the thread. The options' pointers must stay valid until stop. */
ms_rc ms_informer_start(const ms_informer_options *o, ms_informer **out, ms_error *err);
/* Stops the thread (at once: requests in flight are cancelled) and frees
 * the informer with its references to the objects it knew. Deltas already
 * queued stay in the queue. */
void ms_informer_stop(ms_informer *inf);

/* True once the first LIST has been delivered (the MS_DELTA_SYNCED delta
 * follows the last of its deltas in the queue). */
bool ms_informer_has_synced(const ms_informer *inf);

/* The collection path in use: the resource's path, or its fallback_path
 * once the server answered 404 for the path. */
const char *ms_informer_path(const ms_informer *inf);

typedef struct ms_informer_stats {
    uint64_t lists;                /* complete LISTs (the first one and relists) */
    uint64_t pages;                /* LIST requests that returned a page */
    uint64_t relists_gone;         /* relists caused by 410 Gone */
    uint64_t watches;              /* WATCH requests that got a 2xx answer */
    uint64_t watch_ends;           /* watches the server ended normally */
    uint64_t failures;             /* failed requests (each followed by a backoff) */
    uint64_t events;               /* watch events received (bookmarks included) */
    uint64_t bookmarks;
    uint64_t decode_errors;        /* objects skipped */
    uint64_t deltas;               /* deltas pushed, synced markers included */
    uint64_t objects;              /* objects known now */
    char resource_version[64];     /* where the next watch resumes */
    bool fallback;                 /* the resource's fallback_path is in use */
} ms_informer_stats;

void ms_informer_stats_get(ms_informer *inf, ms_informer_stats *out);

/* Numeric comparison of resourceVersions (etcd revisions): < 0, 0, > 0.
 * Values that are not decimal integers compare equal, so that they are
 * never treated as older. */
int ms_resource_version_compare(const char *a, const char *b);

#endif
