/* The Services, ReplicationControllers, ReplicaSets and StatefulSets the
 * scheduler knows (api/workload.h): an api/object_set.h of them, which
 * holds a reference to each. Owned by the scheduler thread, like the
 * cache. */
#ifndef MOONSCHED_API_WORKLOAD_SET_H
#define MOONSCHED_API_WORKLOAD_SET_H

#include <stdint.h>

#include "api/workload.h"
#include "moonsched/error.h"

typedef struct ms_workload_set ms_workload_set;

ms_workload_set *ms_workload_set_new(void);
void ms_workload_set_free(ms_workload_set *s);
/* Adds or replaces (same kind/namespace/name); takes a reference.
 * MS_ENOMEM leaves the set as it was. */
ms_rc ms_workload_set_update(ms_workload_set *s, ms_workload *w);
/* MS_ENOENT when absent. */
ms_rc ms_workload_set_delete(ms_workload_set *s, ms_workload_kind kind, ms_str namespace_, ms_str name);
uint32_t ms_workload_set_len(const ms_workload_set *s);
/* The objects (ms_workload *) of a namespace (in no particular order): *n
 * of them, borrowed until the next change to the set. */
void *const *ms_workload_set_in(const ms_workload_set *s, ms_str namespace_, uint32_t *n);
/* Calls fn for every object (in no particular order). */
void ms_workload_set_each(const ms_workload_set *s, void (*fn)(void *ctx, ms_workload *w), void *ctx);

#endif
