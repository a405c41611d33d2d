/* Storage-object deltas into the scheduler (upstream's event handlers for
 * PersistentVolumes, PersistentVolumeClaims, StorageClasses, CSINodes,
 * CSIDrivers and CSIStorageCapacities): called on the scheduler thread by
 * run's informers (through the delta queue) and by simulate's loader. The
 * objects go into the scheduler's volume store (backend/volume_store.h);
 * each change moves the queued pods that a plugin registered for it (the
 * MS_EV_PV_* ... MS_EV_STORAGE_DELETE cluster events) may help. */
#ifndef MOONSCHED_STORAGE_EVENTS_H
#define MOONSCHED_STORAGE_EVENTS_H

#include "api/storage.h"
#include "backend/volume_store.h"
#include "moonsched/scheduler.h"

/* Add and update both insert or replace by kind/namespace/name; takes a
 * reference. An update of a PV or PVC that VolumeBinding assumed replaces
 * the assumption when its resourceVersion is newer. */
void ms_scheduler_storage_set(ms_scheduler *s, ms_storage_object *o, double now);
/* namespace_: MS_STR_NONE for PVs, StorageClasses, CSINodes, CSIDrivers. */
void ms_scheduler_storage_delete(ms_scheduler *s, ms_storage_kind kind, ms_str namespace_,
                                 ms_str name, double now);
/* The cluster event of an add (existed false) or update of `kind`. */
ms_event_mask ms_storage_event(ms_storage_kind kind, bool existed);

/* A volume write that VolumeBinding's PreBind asked the binder for failed
 * (the PV update or the claim's annotation was refused): the pod's binding
 * cycle fails with `message` (Unreserve, back to the queue with backoff),
 * as upstream's BindPodVolumes returns the API error. Ignored when the pod
 * is not waiting in PreBind. */
void ms_scheduler_volume_write_failed(ms_scheduler *s, const ms_pod *pod, const char *message,
                                      double now);

/* The store, for simulate's binder and for reports; NULL never. */
ms_volume_store *ms_scheduler_volume_store(ms_scheduler *s);

#endif
