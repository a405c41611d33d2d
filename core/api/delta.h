/* A change to one cluster object, as the informers see it (add, update,
 * delete, or "the first LIST is in"): what run's informers queue for the
 * scheduler thread and what simulate feeds from its files, so that both
 * reach the scheduler through one entry point (scheduler/apply.h). */
#ifndef MOONSCHED_API_DELTA_H
#define MOONSCHED_API_DELTA_H

#include <stdbool.h>
#include <stdint.h>

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
    /* The objects that select pods for the default topology spreading
     * (ms_workload, api/workload.h), in the order of ms_workload_kind:
     * MS_KIND_SERVICE + kind. */
    MS_KIND_SERVICE,
    MS_KIND_REPLICATION_CONTROLLER,
    MS_KIND_REPLICA_SET,
    MS_KIND_STATEFUL_SET,
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
        struct ms_workload *workload;        /* MS_KIND_SERVICE ... MS_KIND_STATEFUL_SET */
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

#endif
