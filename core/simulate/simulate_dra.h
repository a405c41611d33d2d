/* `simulate` with Dynamic Resource Allocation: the DeviceClasses,
 * ResourceSlices, ResourceClaims and ResourceClaimTemplates of the cluster
 * files, decoded as they are read (a bad one stops the run with its field
 * path) and fed to the scheduler's DRA store before the first cycle. */
#ifndef MOONSCHED_SIMULATE_SIMULATE_DRA_H
#define MOONSCHED_SIMULATE_SIMULATE_DRA_H

#include <stdint.h>

#include "api/dra.h"
#include "moonsched/decode.h"
#include "moonsched/scheduler.h"

typedef struct ms_sim_dra {
    ms_dra_object **objs;          /* as loaded, referenced */
    uint32_t n, cap;
} ms_sim_dra;

void ms_sim_dra_free(ms_sim_dra *v);
/* Decodes and keeps an object of a resource.k8s.io kind. */
ms_rc ms_sim_dra_keep(ms_sim_dra *v, const ms_decoder *d, ms_dra_kind kind, const cJSON *obj, ms_error *err);
ms_rc ms_sim_dra_feed(const ms_sim_dra *v, ms_scheduler *sched, ms_error *err);
/* Writes "CLAIM=DRIVER/POOL/DEVICE" (", " between; CLAIM the pod's name for
 * it) for each device allocated to the pod's claims, as the scheduler's
 * store has them; "" when none. */
void ms_sim_dra_describe(const ms_scheduler *sched, const ms_interner *in, const ms_pod *pod, char *buf,
                         size_t n);

/* The pod is gone: its claims as the resourceclaim controller leaves them
 * (reserved for the others; deallocated when reserved for nobody). */
ms_rc ms_sim_dra_pod_deleted(ms_scheduler *sched, const ms_pod *pod, double now);

/* Before a pod is evicted to be placed again (a descheduling prediction):
 * its claims as they are now, referenced in `saved` (emptied first); and
 * after, when the eviction is undone, put back in the store (and `saved`
 * emptied). */
ms_rc ms_sim_dra_save(const ms_scheduler *sched, const ms_pod *pod, ms_sim_dra *saved);
ms_rc ms_sim_dra_restore(ms_scheduler *sched, ms_sim_dra *saved, double now);

#endif
