/* The objects of resource.k8s.io/v1 (Dynamic Resource Allocation, GA in
 * 1.34) the DynamicResources plugin reads: DeviceClass, ResourceSlice,
 * ResourceClaim and ResourceClaimTemplate. As the storage objects, one
 * reference-counted container with a kind tag holds any of them; decoded
 * objects are immutable and every field lives in the object's arena. Field
 * names follow upstream's Go fields. */
#ifndef MOONSCHED_API_DRA_H
#define MOONSCHED_API_DRA_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "moonsched/arena.h"
#include "moonsched/error.h"
#include "moonsched/intern.h"
#include "moonsched/meta.h"
#include "moonsched/selector.h"

typedef enum ms_dra_kind {
    MS_DK_DEVICE_CLASS = 0,        /* cluster-scoped */
    MS_DK_RESOURCE_SLICE,          /* cluster-scoped */
    MS_DK_RESOURCE_CLAIM,          /* namespaced */
    MS_DK_RESOURCE_CLAIM_TEMPLATE, /* namespaced */
    MS_DK_COUNT,
} ms_dra_kind;

/* A CEL expression of a selector, as written (compiled by the plugin). */
typedef struct ms_device_selector {
    const char *cel;
} ms_device_selector;

typedef enum ms_attr_type {
    MS_ATTR_INT = 0, MS_ATTR_BOOL, MS_ATTR_STRING, MS_ATTR_VERSION
} ms_attr_type;

/* One devices[].attributes entry. Its key is a qualified name: a domain
 * (DNS subdomain) and an identifier (a C identifier); a key without domain
 * belongs to the driver's domain, as upstream resolves it. */
typedef struct ms_device_attribute {
    ms_str domain;                 /* the driver when the key has none */
    ms_str id;
    uint8_t type;                  /* ms_attr_type: exactly one value is set */
    bool b;
    int64_t i;
    ms_str s;                      /* string, or version (semver text) */
} ms_device_attribute;

/* One devices[].capacity entry: its value as a Quantity (value rounded up
 * to units, and in thousandths for exact comparisons). */
typedef struct ms_device_capacity {
    ms_str domain;
    ms_str id;
    int64_t value;
    int64_t milli;
} ms_device_capacity;

typedef struct ms_device {
    ms_str name;                   /* DNS label, unique in the pool */
    uint32_t nattributes;
    ms_device_attribute *attributes;   /* sorted as in the object */
    uint32_t ncapacity;
    ms_device_capacity *capacity;
    /* With the slice's perDeviceNodeSelection: where this device is
     * usable (exactly one of them). */
    ms_str node_name;
    bool all_nodes;
    bool has_node_selector;
    ms_node_selector node_selector;
} ms_device;

typedef struct ms_resource_slice {
    ms_str driver;                 /* DNS subdomain */
    ms_str pool;                   /* pool.name */
    int64_t generation;            /* pool.generation */
    int64_t slice_count;           /* pool.resourceSliceCount, >= 1 */
    /* Exactly one of: nodeName, nodeSelector, allNodes,
     * perDeviceNodeSelection (then each device says). */
    ms_str node_name;
    bool all_nodes;
    bool per_device_node_selection;
    bool has_node_selector;
    ms_node_selector node_selector;
    uint32_t ndevices;
    ms_device *devices;
} ms_resource_slice;

typedef struct ms_device_class {
    uint32_t nselectors;
    ms_device_selector *selectors;
} ms_device_class;

typedef enum ms_allocation_mode { MS_ALLOC_EXACT_COUNT = 0, MS_ALLOC_ALL } ms_allocation_mode;

/* An exactly request, or one entry of firstAvailable (a subrequest). */
typedef struct ms_device_subrequest {
    ms_str name;                   /* the subrequest's name (firstAvailable only) */
    ms_str device_class;           /* deviceClassName, required */
    uint32_t nselectors;
    ms_device_selector *selectors;
    uint8_t allocation_mode;       /* ms_allocation_mode; default ExactCount */
    int64_t count;                 /* ExactCount: default 1 */
    bool admin_access;             /* exactly only */
} ms_device_subrequest;

typedef struct ms_device_request {
    ms_str name;                   /* DNS label, unique in the claim */
    /* Exactly one of exactly (nfirst_available == 0) and firstAvailable. */
    ms_device_subrequest exactly;
    uint32_t nfirst_available;
    ms_device_subrequest *first_available;
} ms_device_request;

typedef struct ms_device_constraint {
    uint32_t nrequests;            /* empty: all the claim's requests */
    ms_str *requests;              /* "req" or "req/subreq" */
    ms_str match_domain;           /* matchAttribute's domain and id */
    ms_str match_id;
} ms_device_constraint;

typedef struct ms_claim_spec {
    uint32_t nrequests;
    ms_device_request *requests;
    uint32_t nconstraints;
    ms_device_constraint *constraints;
} ms_claim_spec;

typedef struct ms_device_result {
    ms_str request;                /* "req" or "req/subreq" */
    ms_str driver;
    ms_str pool;
    ms_str device;
    bool admin_access;
} ms_device_result;

typedef struct ms_claim_consumer {
    ms_str api_group;              /* "" for pods */
    ms_str resource;               /* "pods" */
    ms_str name;
    const char *uid;
} ms_claim_consumer;

typedef struct ms_resource_claim {
    ms_claim_spec spec;
    /* status.allocation */
    bool allocated;
    uint32_t nresults;
    ms_device_result *results;
    bool has_node_selector;        /* allocation.nodeSelector */
    ms_node_selector node_selector;
    /* status.reservedFor, at most 256 */
    uint32_t nreserved_for;
    ms_claim_consumer *reserved_for;
} ms_resource_claim;

typedef struct ms_claim_template {
    ms_claim_spec spec;            /* spec.spec */
} ms_claim_template;

typedef struct ms_dra_object {
    _Atomic int32_t refs;
    ms_arena arena;
    /* Set on copies (ms_dra_copy): the object whose arena holds the
     * pointer fields the copy did not replace, referenced by the copy. */
    struct ms_dra_object *base;
    uint8_t kind;                  /* ms_dra_kind */
    ms_object_meta meta;
    /* The object's JSON as decoded, in the arena; NULL unless the decoder
     * had keep_raw. */
    const char *raw;
    size_t raw_len;
    union {
        ms_device_class dc;
        ms_resource_slice slice;
        ms_resource_claim claim;
        ms_claim_template tmpl;
    } u;
} ms_dra_object;

/* "DeviceClass", "ResourceSlice", ...; NULL beyond COUNT. */
const char *ms_dra_kind_name(ms_dra_kind kind);
/* The kind for an object kind name, or -1. */
int ms_dra_kind_from_name(const char *kind);

ms_dra_object *ms_dra_alloc(ms_dra_kind kind);
static inline ms_dra_object *ms_dra_ref(ms_dra_object *o) {
    atomic_fetch_add_explicit(&o->refs, 1, memory_order_relaxed);
    return o;
}
void ms_dra_unref(ms_dra_object *o);
/* A copy sharing the pointer fields of `o` (which it references), with an
 * arena of its own for the fields it replaces: a claim's status written by
 * the scheduler in simulate. */
ms_dra_object *ms_dra_copy(ms_dra_object *o);

/* Clears a claim's status.allocation (o: a copy of the stored claim). */
void ms_dra_claim_deallocate(ms_dra_object *o);
/* A copy of claim `o` without the consumer `uid` in status.reservedFor
 * (upstream's Unreserve after a failed bind), deallocated when
 * `deallocate_unused` and no consumer is left (the resourceclaim
 * controller, once a pod is gone). NULL when out of memory. */
ms_dra_object *ms_dra_claim_unreserve(ms_dra_object *o, const char *uid, bool deallocate_unused);

#endif
