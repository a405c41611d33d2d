/* The resource.k8s.io objects the scheduler knows (DeviceClasses,
 * ResourceSlices, ResourceClaims, ResourceClaimTemplates), by kind and
 * namespace/name: what upstream's DRA manager lists for DynamicResources.
 * Owned by the scheduler thread; objects are referenced, immutable. */
#ifndef MOONSCHED_BACKEND_DRA_STORE_H
#define MOONSCHED_BACKEND_DRA_STORE_H

#include "api/dra.h"
#include "base/map.h"
#include "moonsched/pod.h"

typedef struct ms_dra_store ms_dra_store;

ms_dra_store *ms_dra_store_new(void);
void ms_dra_store_free(ms_dra_store *s);
/* Inserts or replaces by kind/namespace/name, holding its own reference
 * (the caller keeps its own). Returns whether an object was replaced, -1
 * on out of memory. */
int ms_dra_store_set(ms_dra_store *s, ms_dra_object *o);
/* namespace_: MS_STR_NONE for the cluster-scoped kinds. Returns whether
 * something was removed. */
bool ms_dra_store_delete(ms_dra_store *s, ms_dra_kind kind, ms_str namespace_, ms_str name);
const ms_dra_object *ms_dra_store_get(const ms_dra_store *s, ms_dra_kind kind, ms_str namespace_, ms_str name);
/* Iteration over one kind, in no particular order:
 * for (size_t it = 0; ms_dra_store_next(s, kind, &it, &o);) */
bool ms_dra_store_next(const ms_dra_store *s, ms_dra_kind kind, size_t *it, const ms_dra_object **o);
/* Counts the changes (set and delete): a reader that derived something
 * from the objects knows when to derive it again. */
uint64_t ms_dra_store_version(const ms_dra_store *s);
/* The same for the objects of one kind. */
uint64_t ms_dra_store_kind_version(const ms_dra_store *s, ms_dra_kind kind);
/* The claim of the pod's spec.resourceClaims[i]: named there, or
 * generated and named in its status.resourceClaimStatuses; NULL when there
 * is none (yet). */
const ms_dra_object *ms_dra_store_pod_claim(const ms_dra_store *s, const ms_pod *pod, uint32_t i);
/* How many objects of `kind` there are. */
uint32_t ms_dra_store_len(const ms_dra_store *s, ms_dra_kind kind);

#endif
