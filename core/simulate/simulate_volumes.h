/* `simulate` with storage: the PersistentVolumes, claims, StorageClasses
 * and CSI objects of the cluster files, fed to the scheduler's volume
 * store, and an in-memory volume binder that does what the PV controller
 * and a provisioner would do, at once:
 *   - at load, a PV without status.phase is Available (Bound with a
 *     claimRef), and a claim whose volumeName names a PV that points back
 *     at it is bound (phase Bound, pv.kubernetes.io/bind-completed), as the
 *     PV controller's first sync leaves them;
 *   - a static binding (VolumeBinding's PreBind): the PV gets the claimRef
 *     and phase Bound, the claim volumeName, bind-completed and phase Bound;
 *   - a provisioning: a PV named pvc-<claim uid, or namespace-name> is
 *     created with the claim's class, size and access modes, bound to the
 *     claim, with node affinity on the node's values of the topology keys
 *     the provisioner's CSINode entry publishes (none: the node's zone
 *     label, if any); the claim is bound to it.
 * Each change goes through ms_scheduler_storage_set, as an informer would
 * deliver it, with a resourceVersion one above the object's. */
#ifndef MOONSCHED_SIMULATE_SIMULATE_VOLUMES_H
#define MOONSCHED_SIMULATE_SIMULATE_VOLUMES_H

#include <stdint.h>
#include <stdio.h>

#include "api/storage.h"
#include "framework/volume_binder.h"
#include "moonsched/decode.h"
#include "moonsched/scheduler.h"

/* One claim the binder bound, for the report. */
typedef struct ms_sim_volume_decision {
    uint64_t pod_uid;              /* meta.uid_hash of the pod */
    ms_str claim;                  /* in the pod's namespace */
    ms_str pv;
    bool provisioned;
} ms_sim_volume_decision;

typedef struct ms_sim_volumes {
    ms_storage_object **objs;      /* as loaded, referenced */
    uint32_t n, cap;
    ms_scheduler *sched;           /* set by ms_sim_volumes_feed */
    ms_interner *in;
    ms_volume_binder binder;       /* ctx: this struct */
    ms_sim_volume_decision *decisions;
    uint32_t ndecisions, decisioncap;
    bool oom;
} ms_sim_volumes;

void ms_sim_volumes_init(ms_sim_volumes *v, ms_interner *in);
void ms_sim_volumes_free(ms_sim_volumes *v);
/* Decodes and keeps an object of a storage kind. */
ms_rc ms_sim_volumes_keep(ms_sim_volumes *v, const ms_decoder *d, ms_storage_kind kind,
                          const cJSON *obj, ms_error *err);
/* Keeps a decoded object (takes the caller's reference). */
ms_rc ms_sim_volumes_add(ms_sim_volumes *v, ms_storage_object *o, ms_error *err);
/* Settles the loaded objects as the PV controller would, and feeds them. */
ms_rc ms_sim_volumes_feed(ms_sim_volumes *v, ms_scheduler *sched, double now, ms_error *err);
/* Writes "claim=pv" (", " between, "(provisioned)" after a provisioned
 * PV) for the claims bound for the pod; "" when none. */
void ms_sim_volumes_describe(const ms_sim_volumes *v, const ms_pod *pod, char *buf, size_t n);

#endif
