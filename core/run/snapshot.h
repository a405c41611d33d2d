/* `moonsched snapshot`: the live state of a cluster, as the scheduler
 * sees it, in the format `simulate` reads: one JSON List (JSON is YAML
 * too) of Namespaces, Nodes, PriorityClasses, PodDisruptionBudgets,
 * Services, ReplicationControllers, ReplicaSets, StatefulSets (each left
 * out when refused or not served), the volume objects (PersistentVolumes, claims, StorageClasses, CSINodes,
 * CSIDrivers, CSIStorageCapacities), the resource.k8s.io/v1 objects
 * (DeviceClasses, ResourceSlices, ResourceClaims, ResourceClaimTemplates;
 * a volume or DRA kind the server does not serve is left out) and Pods
 * (those not Succeeded or Failed, as the scheduler watches them), each
 * with its apiVersion and kind, in the API server's order (by namespace and
 * name, the order a fresh `run` receives them in), without
 * metadata.managedFields. `simulate` on the file with the same
 * configuration and seed replays the scheduler's decisions for the
 * pending pods (docs/explain.md, "Snapshot and replay"). */
#ifndef MOONSCHED_RUN_SNAPSHOT_H
#define MOONSCHED_RUN_SNAPSHOT_H

#include <stdio.h>

#include "client/kube_client.h"
#include "moonsched/error.h"
#include "scheduler/cluster_view.h"

/* A kind that could not be listed and is left out: its collection, the
 * answer's status and the error. */
typedef void (*ms_snapshot_unlisted_fn)(void *ctx, const char *path, long status, const char *msg);

typedef struct ms_snapshot_options {
    const char *kubeconfig;        /* NULL: $KUBECONFIG, then ~/.kube/config */
    const char *context;           /* NULL: the current one */
    /* Services, ReplicationControllers, ReplicaSets and StatefulSets are
     * optional, as `run`'s informers of them: refused (403) or not served
     * (404), the kind is left out and reported here (may be NULL). */
    ms_snapshot_unlisted_fn unlisted;
    void *ctx;
} ms_snapshot_options;

/* Writes the List to out. MS_EIO when a LIST failed (err says which). */
ms_rc ms_snapshot_write(const ms_snapshot_options *o, FILE *out, ms_error *err);

/* A List of the volume objects alone (the kinds above, each left out when
 * the server does not serve it), through a client of the caller's, for
 * what needs the scheduler's volume plugins on a live cluster (`moonsched
 * deschedule`). A kind the server refuses (403, ...) on its first page is
 * left out and reported to `unlisted`; without one it is an error. */
ms_rc ms_snapshot_write_volumes(ms_kube_client *c, FILE *out, ms_snapshot_unlisted_fn unlisted, void *ctx,
                                ms_error *err);

/* The same for the Services, ReplicationControllers, ReplicaSets and
 * StatefulSets (`moonsched deschedule`'s predictions spread pods by them
 * as the scheduler does). */
ms_rc ms_snapshot_write_workloads(ms_kube_client *c, FILE *out, ms_snapshot_unlisted_fn unlisted, void *ctx,
                                  ms_error *err);
/* Whether a collection path is one of those workload kinds (what a
 * caller's `unlisted` callback is told). */
bool ms_snapshot_is_workload_path(const char *path);

/* The same for the PriorityClasses alone (`moonsched deschedule` resolves
 * DefaultEvictor's priorityThreshold.name against them). */
ms_rc ms_snapshot_write_priority_classes(ms_kube_client *c, FILE *out, ms_snapshot_unlisted_fn unlisted, void *ctx,
                                         ms_error *err);

/* The same List from a running scheduler's view (its /debug/snapshot):
 * the objects as the scheduler decoded them (it must keep their JSON:
 * ms_scheduler_options.keep_objects), a pod on a node with spec.nodeName
 * set to it (an assumed pod is written bound), the volume objects as last
 * received. MS_ESTATE when the objects
 * were not kept. PriorityClasses are not in it (the scheduler does not
 * watch them). */
ms_rc ms_snapshot_write_view(const ms_cluster_view *v, FILE *out, ms_error *err);

#endif
