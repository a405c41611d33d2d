/* Namespace objects: a name and labels, what a pod affinity term's
 * namespaceSelector is matched against. A decoded Namespace is immutable and
 * reference counted like ms_pod; the scheduler keeps them in a store
 * (core/api/namespace_store.h). */
#ifndef MOONSCHED_NAMESPACES_H
#define MOONSCHED_NAMESPACES_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "moonsched/arena.h"
#include "moonsched/error.h"
#include "moonsched/intern.h"
#include "moonsched/meta.h"

#pragma GCC visibility push(default)

typedef struct cJSON cJSON;

typedef struct ms_namespace {
    _Atomic int32_t refs;
    ms_arena arena;
    ms_object_meta meta;           /* name and labels; namespace_ is MS_STR_NONE */
    /* The object's JSON as decoded, in the arena; NULL unless the decoder
     * had keep_raw (a running scheduler's /debug/snapshot). */
    const char *raw;
    size_t raw_len;
} ms_namespace;

/* The struct is heap-allocated with refs == 1; fields live in its arena. */
ms_namespace *ms_namespace_alloc(void);
static inline ms_namespace *ms_namespace_ref(ms_namespace *ns) {
    atomic_fetch_add_explicit(&ns->refs, 1, memory_order_relaxed);
    return ns;
}
void ms_namespace_unref(ms_namespace *ns);

#pragma GCC visibility pop

#endif
