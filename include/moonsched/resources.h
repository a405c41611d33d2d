/* A resource list in canonical units: cpu in millicores, memory and
 * ephemeral-storage in bytes, pods as a count, and scalar resources
 * (extended resources, hugepages-*, attachable-volumes-*) by interned name.
 * Mirrors upstream's framework.Resource. */
#ifndef MOONSCHED_RESOURCES_H
#define MOONSCHED_RESOURCES_H

#include <stdbool.h>
#include <stdint.h>

#include "moonsched/arena.h"
#include "moonsched/intern.h"

#pragma GCC visibility push(default)

enum {
    MS_RES_CPU = 0,
    MS_RES_MEMORY,
    MS_RES_EPHEMERAL,   /* ephemeral-storage */
    MS_RES_PODS,
    MS_RES_NBUILTIN
};

/* Upstream's defaults for pods that request nothing, used in scoring only
 * (schedutil.DefaultMilliCPURequest / DefaultMemoryRequest). */
#define MS_DEFAULT_MILLI_CPU_REQUEST 100
#define MS_DEFAULT_MEMORY_REQUEST (200LL * 1024 * 1024)

typedef struct ms_scalar {
    ms_str name;
    int64_t value;
} ms_scalar;

typedef struct ms_resources {
    int64_t v[MS_RES_NBUILTIN];
    uint32_t nscalar;
    uint32_t cap;        /* capacity of scalar; 0 when scalar lives in an arena */
    ms_scalar *scalar;   /* sorted by name id */
} ms_resources;

/* Well-known resource names, interned once per interner. */
typedef struct ms_resource_names {
    ms_str builtin[MS_RES_NBUILTIN];   /* "cpu", "memory", "ephemeral-storage", "pods" */
} ms_resource_names;

void ms_resource_names_init(ms_resource_names *rn, ms_interner *in);

/* Index of a built-in resource for a name id, or -1 when it is not one. */
int ms_resource_builtin_index(const ms_resource_names *rn, ms_str name);

/* upstream schedutil.IsScalarResourceName: extended (domain-prefixed, not
 * kubernetes.io/), hugepages-*, prefixed native (kubernetes.io/...),
 * attachable-volumes-*. Other unknown names are ignored by the scheduler. */
bool ms_resource_is_scalar_name(const char *name);

int64_t ms_resources_get(const ms_resources *r, const ms_resource_names *rn, ms_str name);
int64_t ms_resources_scalar(const ms_resources *r, ms_str name);

/* Heap-owned scalar arrays (cap > 0): used for NodeInfo accumulators. */
int ms_resources_set_scalar(ms_resources *r, ms_str name, int64_t value);
int ms_resources_add(ms_resources *dst, const ms_resources *src);   /* dst += src */
void ms_resources_sub(ms_resources *dst, const ms_resources *src);  /* dst -= src */
int ms_resources_copy(ms_resources *dst, const ms_resources *src);  /* dst heap-owned */
/* Same built-in values and the same scalars (both sorted by name id). */
bool ms_resources_equal(const ms_resources *a, const ms_resources *b);
void ms_resources_clear(ms_resources *r);                           /* keeps memory */
void ms_resources_free(ms_resources *r);                            /* heap-owned only */

#pragma GCC visibility pop

#endif
