/* The objects that select pods by label and that upstream's
 * helper.DefaultSelector reads for the default topology spreading:
 * Services and ReplicationControllers (spec.selector, a map), ReplicaSets
 * and StatefulSets (spec.selector, a metav1.LabelSelector). Only the
 * selector is kept. One reference-counted container with a kind tag, as
 * the storage objects; the set the scheduler keeps is api/workload_set.h. */
#ifndef MOONSCHED_API_WORKLOAD_H
#define MOONSCHED_API_WORKLOAD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "moonsched/arena.h"
#include "moonsched/labels.h"
#include "moonsched/meta.h"
#include "moonsched/pod.h"
#include "moonsched/selector.h"

typedef enum ms_workload_kind {
    MS_WK_SERVICE = 0,             /* v1 Service */
    MS_WK_REPLICATION_CONTROLLER,  /* v1 ReplicationController */
    MS_WK_REPLICA_SET,             /* apps/v1 ReplicaSet */
    MS_WK_STATEFUL_SET,            /* apps/v1 StatefulSet */
    MS_WK_COUNT,
} ms_workload_kind;

typedef struct ms_workload {
    _Atomic int32_t refs;
    ms_arena arena;
    ms_object_meta meta;
    uint8_t kind;                  /* ms_workload_kind */
    /* Services and ReplicationControllers: spec.selector as equality
     * requirements; empty when absent or {} (see ms_workload_selects). */
    ms_labels match;
    /* ReplicaSets and StatefulSets: spec.selector; nil or invalid selects
     * nothing. */
    ms_label_selector selector;
    /* The object's JSON as decoded, in the arena; NULL unless the decoder
     * had keep_raw (the scheduler's /debug/snapshot writes it). */
    const char *raw;
    size_t raw_len;
} ms_workload;

/* "Service", "ReplicationController", "ReplicaSet", "StatefulSet". */
const char *ms_workload_kind_name(ms_workload_kind kind);
/* The kind of that name, or -1. */
int ms_workload_kind_from_name(const char *kind);

/* Reference counting as ms_pod: a new object has refs == 1. */
ms_workload *ms_workload_alloc(ms_workload_kind kind);
static inline ms_workload *ms_workload_ref(ms_workload *w) {
    atomic_fetch_add_explicit(&w->refs, 1, memory_order_relaxed);
    return w;
}
void ms_workload_unref(ms_workload *w);

/* upstream's listers (GetPodServices, GetPodControllers,
 * GetPodReplicaSets, GetPodStatefulSets): same namespace, and a selector
 * that is not empty and matches the pod's labels. A Service's empty map
 * would select every pod, but the API server never returns one (an empty
 * map does not survive its storage), so it is read as absent. */
bool ms_workload_selects(const ms_workload *w, const ms_pod *pod, const ms_interner *in);

#endif
