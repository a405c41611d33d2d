/* The scheduler's view of the cluster, taken on the scheduler thread and
 * read anywhere: references to every Namespace, Node,
 * PodDisruptionBudget, Service, ReplicationController, ReplicaSet,
 * StatefulSet and volume object (PersistentVolume, claim,
 * StorageClass, CSINode, CSIDriver, CSIStorageCapacity) it holds, the pods on its nodes (bound and assumed:
 * an assumed pod's copy carries the node it was assumed on) and the
 * pending pods of its queue. Objects are immutable and reference
 * counted, so the view crosses threads without copies; names resolve
 * through the scheduler's interner (reads are lock-free). Each array is
 * in name order (namespace, then name): the order a LIST gives. */
#ifndef MOONSCHED_SCHEDULER_CLUSTER_VIEW_H
#define MOONSCHED_SCHEDULER_CLUSTER_VIEW_H

#include <stdint.h>

#include "api/storage.h"
#include "api/workload.h"
#include "moonsched/error.h"
#include "moonsched/namespaces.h"
#include "moonsched/node.h"
#include "moonsched/pdb.h"
#include "moonsched/pod.h"

typedef struct ms_scheduler ms_scheduler;

typedef struct ms_cluster_view {
    const ms_interner *in;
    ms_namespace **namespaces;
    uint32_t nnamespaces;
    ms_node **nodes;
    uint32_t nnodes;
    ms_pdb **pdbs;
    uint32_t npdbs;
    ms_workload **workloads;       /* by kind (ms_workload_kind order), then name */
    uint32_t nworkloads;
    ms_storage_object **volumes;   /* by kind (ms_storage_kind order), then name */
    uint32_t nvolumes;
    ms_pod **pods;                 /* those on nodes, then the pending ones */
    uint32_t npods, nbound;
} ms_cluster_view;

/* Scheduler thread only. MS_ENOMEM (nothing held) when out of memory. */
ms_rc ms_scheduler_view(ms_scheduler *s, ms_cluster_view *out);
/* Any thread; drops the references. */
void ms_cluster_view_free(ms_cluster_view *v);

#endif
