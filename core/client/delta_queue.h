/* Changes to cluster objects on their way from the informers (one thread
 * each) to the scheduler thread: multi-producer, single-consumer, FIFO,
 * unbounded. The consumer blocks on it with a timeout, or polls its
 * eventfd together with other file descriptors. */
#ifndef MOONSCHED_DELTA_QUEUE_H
#define MOONSCHED_DELTA_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "moonsched/error.h"
#include "moonsched/node.h"
#include "moonsched/pod.h"

typedef enum ms_delta_type {
    MS_DELTA_ADD = 0,
    MS_DELTA_UPDATE,
    MS_DELTA_DELETE,
    MS_DELTA_SYNCED,      /* the informer's first LIST has been delivered; no object */
} ms_delta_type;

typedef enum ms_object_kind {
    MS_KIND_POD = 0,
    MS_KIND_NODE,
    MS_KIND_OTHER,        /* a generic informer's objects: see `unref` */
    MS_KIND_NAMESPACE,    /* ms_namespace */
    MS_KIND_PDB,          /* ms_pdb */
    /* Storage objects (ms_storage_object, api/storage.h), one kind per
     * informer, in the order of ms_storage_kind: MS_KIND_PV + kind. */
    MS_KIND_PV,
    MS_KIND_PVC,
    MS_KIND_STORAGE_CLASS,
    MS_KIND_CSI_NODE,
    MS_KIND_CSI_DRIVER,
    MS_KIND_CSI_CAPACITY,
    /* resource.k8s.io objects (ms_dra_object, api/dra.h), one kind per
     * informer, in the order of ms_dra_kind: MS_KIND_DEVICE_CLASS + kind. */
    MS_KIND_DEVICE_CLASS,
    MS_KIND_RESOURCE_SLICE,
    MS_KIND_RESOURCE_CLAIM,
    MS_KIND_RESOURCE_CLAIM_TEMPLATE,
    MS_KIND_COUNT,
} ms_object_kind;

typedef struct ms_delta {
    uint8_t type;                  /* ms_delta_type */
    uint8_t kind;                  /* ms_object_kind */
    /* A delete found by a relist rather than seen on the watch: obj is the
     * last state the informer had (upstream's DeletedFinalStateUnknown). */
    bool final_state_unknown;
    union {
        void *obj;
        ms_pod *pod;               /* MS_KIND_POD */
        ms_node *node;             /* MS_KIND_NODE */
        struct ms_namespace *ns;   /* MS_KIND_NAMESPACE */
        struct ms_pdb *pdb;        /* MS_KIND_PDB */
        struct ms_storage_object *storage;   /* MS_KIND_PV ... MS_KIND_CSI_CAPACITY */
        struct ms_dra_object *dra;           /* MS_KIND_DEVICE_CLASS ... MS_KIND_RESOURCE_CLAIM_TEMPLATE */
    };
    /* Drops the delta's reference to obj (ms_pod_unref, ms_node_unref...). */
    void (*unref)(void *obj);
} ms_delta;

/* Releases the delta's reference (the consumer calls it when done). */
static inline void ms_delta_release(ms_delta *d) {
    if (d->obj && d->unref) d->unref(d->obj);
    d->obj = NULL;
}

const char *ms_delta_type_name(ms_delta_type t);    /* "add", "update", ... */
/* "Pod", "Node", "Object", "Namespace", "PodDisruptionBudget",
 * "PersistentVolume", ... */
const char *ms_object_kind_name(ms_object_kind k);

typedef struct ms_delta_queue ms_delta_queue;

/* NULL when out of memory or when no eventfd can be made. */
ms_delta_queue *ms_delta_queue_new(void);
/* Releases the deltas still queued. No producer may use it any more. */
void ms_delta_queue_free(ms_delta_queue *q);

/* The queue takes over the deltas' references. MS_ESTATE after close (the
 * references are released), MS_ENOMEM when the queue cannot grow (the
 * caller keeps them). */
ms_rc ms_delta_queue_push(ms_delta_queue *q, const ms_delta *d);
ms_rc ms_delta_queue_push_many(ms_delta_queue *q, const ms_delta *d, size_t n);

/* Moves up to max deltas into out, oldest first. Waits up to timeout
 * seconds for the first one (< 0: without limit, 0: not at all). Returns
 * the number moved; 0 on timeout, or at once when the queue is closed and
 * empty. Only one thread may pop. */
size_t ms_delta_queue_pop(ms_delta_queue *q, ms_delta *out, size_t max, double timeout);

/* Readable (poll/epoll) while the queue holds deltas or is closed. */
int ms_delta_queue_fd(const ms_delta_queue *q);

/* Wakes the consumer; later pushes are refused. Pops still drain what is
 * queued. */
void ms_delta_queue_close(ms_delta_queue *q);

size_t ms_delta_queue_len(ms_delta_queue *q);

#endif
