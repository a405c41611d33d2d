/* The namespaces the scheduler knows, by name (upstream's namespace
 * lister): owned by the scheduler thread (fed by the informer or by
 * simulate's loader) and read by plugins through ms_handle.namespaces. */
#ifndef MOONSCHED_NAMESPACE_STORE_H
#define MOONSCHED_NAMESPACE_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "base/map.h"
#include "moonsched/error.h"
#include "moonsched/intern.h"
#include "moonsched/namespaces.h"

typedef struct ms_namespaces {
    ms_map by_name;                /* name id -> ms_namespace* (referenced) */
    uint64_t generation;           /* bumped by every change */
} ms_namespaces;

void ms_namespaces_init(ms_namespaces *s);
/* Releases every namespace. */
void ms_namespaces_free(ms_namespaces *s);
/* Add and update both insert or replace by name (takes a reference).
 * MS_EINVAL without a name, MS_ENOMEM. */
ms_rc ms_namespaces_set(ms_namespaces *s, ms_namespace *ns);
/* MS_ENOENT when unknown. */
ms_rc ms_namespaces_remove(ms_namespaces *s, ms_str name);
/* NULL when unknown (also for a NULL store). */
const ms_namespace *ms_namespaces_get(const ms_namespaces *s, ms_str name);
uint32_t ms_namespaces_count(const ms_namespaces *s);
/* Iteration in no particular order:
 * for (size_t it = 0; (ns = ms_namespaces_next(s, &it));) */
const ms_namespace *ms_namespaces_next(const ms_namespaces *s, size_t *it);

#endif
