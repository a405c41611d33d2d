/* Where VolumeBinding's PreBind sends its API writes (upstream's
 * SchedulerVolumeBinder.BindPodVolumes, the API half). The scheduler gets
 * one through ms_scheduler_options.volume_binder and hands it to plugins
 * in ms_handle.volume_binder: `run` writes to the API server
 * (run/api_volume_binder), `simulate` plays the PV controller in memory.
 *
 * The contract:
 * - bind is called on the scheduler thread, from PreBind, once per
 *   binding cycle that has something to write. It must not block.
 * - static bindings: the PV is updated to the given object (the assumed
 *   copy: spec.claimRef set to the claim, with its uid). upstream then lets
 *   the PV controller bind the claim (volumeName, phases Bound).
 * - provisionings: the claim is updated to the given object (the assumed
 *   copy: annotation volume.kubernetes.io/selected-node = node); the
 *   external provisioner creates a PV, the PV controller binds.
 * - the outcome is not reported by the binder: PreBind waits until the
 *   volume store (fed by the informers) shows every claim of the pod bound
 *   (upstream's checkBindings), rechecking on each PV/PVC event, for up to
 *   bindTimeoutSeconds. A write that failed is reported with
 *   ms_scheduler_volume_write_failed (scheduler/storage_events.h) on the
 *   scheduler thread: the binding cycle then fails at once with that
 *   message, as upstream's BindPodVolumes returns the update's error.
 * - simulate's binder applies the writes, and what the PV controller and a
 *   provisioner would do, to the volume store before returning: the claims
 *   are bound when PreBind checks right after the call. The objects passed
 *   belong to the store: a binder that changes the store (simulate's)
 *   takes references on them first, as a store update frees the objects
 *   it replaces.
 * - cancel: the binding cycle ended (the pod was deleted, the wait timed
 *   out, a later plugin failed) before the writes were answered; a binder
 *   may drop queued writes. Optional. */
#ifndef MOONSCHED_VOLUME_BINDER_H
#define MOONSCHED_VOLUME_BINDER_H

#include <stdbool.h>
#include <stdint.h>

#include "api/storage.h"
#include "moonsched/error.h"
#include "moonsched/intern.h"
#include "moonsched/pod.h"

/* One claim's decision from Reserve (upstream's BindingInfo for static
 * bindings; a provisioned claim has pv NULL). */
typedef struct ms_volume_binding {
    ms_storage_object *pvc;        /* the claim to write (provisioning: annotated copy) */
    ms_storage_object *pv;         /* static: the PV to write (copy with claimRef); else NULL */
    /* static: the PV's claimRef did not name the claim before (upstream's
     * GetBindVolumeToClaim then sets pv.kubernetes.io/bound-by-controller:
     * "yes", unless the PV already has that annotation). */
    bool bound_by_controller;
} ms_volume_binding;

typedef struct ms_pod_volumes {
    uint32_t nbindings;            /* static bindings */
    ms_volume_binding *bindings;
    uint32_t nprovisions;          /* claims to provision (pv NULL) */
    ms_volume_binding *provisions;
} ms_pod_volumes;

typedef struct ms_volume_binder {
    void *ctx;
    /* Starts the writes for `pod` (already assumed on `node`). MS_OK: sent
     * or queued; any other rc fails PreBind with err's message. */
    ms_rc (*bind)(void *ctx, const ms_pod *pod, ms_str node, const ms_pod_volumes *v,
                  ms_error *err);
    void (*cancel)(void *ctx, const ms_pod *pod);
} ms_volume_binder;

#endif
