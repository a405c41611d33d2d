/* The storage objects the scheduler knows (PVs, PVCs, StorageClasses,
 * CSINodes, CSIDrivers, CSIStorageCapacities), with upstream's assume
 * cache for PVs and PVCs on top. Owned by the scheduler thread, like the
 * cache: the informers (run) and the loader (simulate) feed it through
 * ms_scheduler_storage_set / ms_scheduler_storage_delete; the volume
 * plugins read it through ms_handle.volumes.
 *
 * Assume layer (upstream's volumebinding/assume_cache.go): VolumeBinding's
 * Reserve replaces a PV by a copy with the chosen claimRef, and a PVC by a
 * copy with volumeName (or the selected-node annotation), so that the next
 * pod does not pick the same PV while the first is still binding. Lookups
 * return the latest object (assumed or not); ms_volume_store_api_get
 * returns what the API server last said. ms_volume_store_restore (on
 * Unreserve) drops the assumption. An informer update whose version is
 * newer than the assumed object's replaces it (the API caught up); an
 * older or equal one leaves the assumption in place but becomes the API
 * object.
 *
 * Objects are keyed by kind, namespace and name ("Takes a reference": the
 * store acquires its own). PVs are also indexed by storage class, so that
 * VolumeBinding's Filter looks only at the PVs of the claim's class. */
#ifndef MOONSCHED_VOLUME_STORE_H
#define MOONSCHED_VOLUME_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "api/storage.h"
#include "moonsched/error.h"
#include "moonsched/intern.h"

typedef struct ms_volume_store ms_volume_store;

ms_volume_store *ms_volume_store_new(ms_interner *in);
void ms_volume_store_free(ms_volume_store *s);

/* Add and update both insert or replace by kind/namespace/name (takes a
 * reference). *existed (optional): an object of that key was there
 * (Update rather than Add). MS_EINVAL without a name, MS_ENOMEM. */
ms_rc ms_volume_store_set(ms_volume_store *s, ms_storage_object *o, bool *existed);
/* MS_ENOENT when unknown. Drops an assumption too. */
ms_rc ms_volume_store_remove(ms_volume_store *s, ms_storage_kind kind, ms_str namespace_,
                             ms_str name);

/* The latest object (assumed when assumed), or NULL; namespace_ is
 * MS_STR_NONE for the cluster-scoped kinds. NULL store: NULL. */
const ms_storage_object *ms_volume_store_get(const ms_volume_store *s, ms_storage_kind kind,
                                             ms_str namespace_, ms_str name);
/* What the API server last said, ignoring assumptions. */
const ms_storage_object *ms_volume_store_api_get(const ms_volume_store *s, ms_storage_kind kind,
                                                 ms_str namespace_, ms_str name);
uint32_t ms_volume_store_count(const ms_volume_store *s, ms_storage_kind kind);
/* Iteration over one kind in no particular order (latest objects):
 * for (size_t it = 0; (o = ms_volume_store_next(s, kind, &it));) */
const ms_storage_object *ms_volume_store_next(const ms_volume_store *s, ms_storage_kind kind,
                                              size_t *it);
/* The PVs (latest objects) whose storage class is `class_` (MS_STR_NONE:
 * the PVs without a class), in no particular order, into out (room for
 * cap; out may be NULL with cap 0); returns how many there are, which may
 * be more than cap. */
uint32_t ms_volume_store_class_pvs(const ms_volume_store *s, ms_str class_,
                                   const ms_storage_object **out, uint32_t cap);

/* Replaces the latest PV or PVC by `o` (same kind/namespace/name, a copy
 * made with ms_storage_copy and edited), keeping the API object. Takes a
 * reference. MS_ENOENT when the object is unknown; MS_ESTATE when `o` is
 * older than the latest (upstream: "assume ... version X is older than
 * Y"). */
ms_rc ms_volume_store_assume(ms_volume_store *s, ms_storage_object *o);
/* Back to the API object (no-op when not assumed). */
void ms_volume_store_restore(ms_volume_store *s, ms_storage_kind kind, ms_str namespace_,
                             ms_str name);
bool ms_volume_store_is_assumed(const ms_volume_store *s, ms_storage_kind kind,
                                ms_str namespace_, ms_str name);

/* Bumped by every change (assumptions included). */
uint64_t ms_volume_store_generation(const ms_volume_store *s);

#endif
