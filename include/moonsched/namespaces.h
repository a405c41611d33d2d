/* Namespaces: name -> labels, what a pod affinity term's namespaceSelector
 * is matched against (upstream's namespace lister). A decoded Namespace is
 * immutable and reference counted like ms_pod; the store is owned by the
 * scheduler thread (fed by the informer or by simulate's loader) and read by
 * plugins through ms_handle.namespaces. */
#ifndef MOONSCHED_NAMESPACES_H
#define MOONSCHED_NAMESPACES_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "moonsched/arena.h"
#include "moonsched/decode.h"
#include "moonsched/error.h"
#include "moonsched/intern.h"
#include "moonsched/map.h"
#include "moonsched/meta.h"

typedef struct cJSON cJSON;

typedef struct ms_namespace {
    _Atomic int32_t refs;
    ms_arena arena;
    ms_object_meta meta;           /* name and labels; namespace_ is MS_STR_NONE */
} ms_namespace;

/* The struct is heap-allocated with refs == 1; fields live in its arena. */
ms_namespace *ms_namespace_alloc(void);
static inline ms_namespace *ms_namespace_ref(ms_namespace *ns) {
    atomic_fetch_add_explicit(&ns->refs, 1, memory_order_relaxed);
    return ns;
}
void ms_namespace_unref(ms_namespace *ns);

/* A Namespace object (metadata only; core/decode_namespace.c). Errors read
 * like the other decoders': `Namespace team-a: metadata.labels: ...`. */
ms_rc ms_namespace_decode(const ms_decoder *d, const cJSON *obj, ms_namespace **out,
                          ms_error *err);

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
