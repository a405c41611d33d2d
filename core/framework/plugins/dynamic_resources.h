/* DynamicResources' structured allocator (upstream's
 * dynamic-resource-allocation/structured, in its semantics): the claims of
 * one pod that need devices, prepared once per cycle, then allocated on one
 * node at a time from the devices of the ResourceSlices usable there. */
#ifndef MOONSCHED_PLUGINS_DYNAMIC_RESOURCES_H
#define MOONSCHED_PLUGINS_DYNAMIC_RESOURCES_H

#include "api/dra.h"
#include "backend/dra_store.h"
#include "base/map.h"
#include "cel/cel.h"
#include "moonsched/framework.h"
#include "moonsched/nodeinfo.h"
#include "moonsched/status.h"

/* One way to satisfy a request: an exactly request, or one entry of its
 * firstAvailable list (tried in order). Selectors: the class's, then the
 * request's. */
typedef struct dr_alt {
    ms_str result_name;            /* "req" or "req/sub", as results name it */
    const ms_device_subrequest *r;
    const ms_device_class *dc;     /* its class, for explanations */
    uint32_t nsel;
    ms_cel_program *sel;
} dr_alt;

typedef struct dr_request {
    ms_str name;
    uint32_t nalt;
    dr_alt *alts;
} dr_request;

typedef struct dr_claim {
    const ms_dra_object *obj;
    ms_str ref;                    /* the pod's name for it (spec.resourceClaims[].name) */
    uint32_t nreq;
    dr_request *reqs;
} dr_claim;

/* A device chosen for a claim's request. */
typedef struct dr_pick {
    uint32_t claim;                /* index in the pod's dr_claims */
    ms_str req;                    /* the request's name */
    ms_str request;                /* the result's: "req" or "req/sub" */
    const ms_dra_object *slice;
    const ms_device *device;
    bool admin;
} dr_pick;

/* The pod's claims to allocate and what every node's allocation reads. */
typedef struct dr_alloc {
    const ms_interner *in;
    uint32_t nclaims;
    dr_claim *claims;
    /* The slices of complete pools at their newest generation, ordered by
     * node name (those without one, usable on many nodes, first), then
     * by name id: a node's own slices are one binary search away. */
    uint32_t nslices, nshared;
    const ms_dra_object **slices;
    const ms_map *allocated;       /* device key -> non-NULL: in use */
    /* Devices of `allocated` that count as free (a preemption dry run's
     * victims hold them), or NULL. */
    const ms_map *freed;
} dr_alloc;

/* The slices of complete pools at their newest generation, ordered as
 * dr_alloc.slices: derived from the store once and kept until its slices
 * change (not per pod). */
typedef struct dr_slices {
    uint64_t version;              /* the store's slice version then; 0: none yet */
    const ms_dra_object **slices;
    uint32_t n, nshared, cap;
} dr_slices;

void ms_dr_slices_free(dr_slices *c);

/* The key of a device in the allocated set. */
uint64_t ms_dr_device_key(ms_str driver, ms_str pool, ms_str device);

/* Prepares the claims (their classes and compiled selectors) into a (the
 * cycle's arena), and the slices through `cache`. On failure *why says it in upstream's words and the code
 * is the status code to return. */
ms_code ms_dr_prepare(dr_alloc *al, const ms_dra_store *store, dr_slices *cache, const ms_dra_object *const *claims,
                      uint32_t n, ms_arena *a, const char **why);

/* Allocates every claim on `ni`: *picks (from the scratch arena) and
 * *npicks on success. MS_UNSCHEDULABLE_AND_UNRESOLVABLE when it cannot,
 * MS_ERROR with *why when a selector fails to evaluate. */
ms_code ms_dr_allocate(const dr_alloc *al, const ms_node_info *ni, ms_arena *scratch, dr_pick **picks,
                       uint32_t *npicks, const char **why);

/* Why the claims cannot be allocated on `ni` (ms_dr_allocate said so), for
 * explain: the first request that its node's devices cannot satisfy even
 * alone, with how many devices match its class and selectors and how many
 * of those are free; else that the requests or constraints conflict.
 * From the arena. */
const char *ms_dr_explain(const dr_alloc *al, const ms_node_info *ni, ms_arena *a);

/* One way to allocate every claim on a node. */
typedef struct dr_option {
    dr_pick *picks;
    uint32_t npicks;
} dr_option;

/* The most allocations a device policy chooses among. */
#define MS_DR_MAX_OPTIONS 64

/* Up to `max` allocations of every claim on `ni` (from a), the first the
 * one ms_dr_allocate finds, the others in the order its search meets
 * them; a firstAvailable request keeps to the first of its entries that
 * can be satisfied, as the user ordered them. Returns as ms_dr_allocate;
 * on success *noptions >= 1. */
ms_code ms_dr_enumerate(const dr_alloc *al, const ms_node_info *ni, ms_arena *a, uint32_t max, dr_option **options,
                        uint32_t *noptions, const char **why);

/* A policy's say in which devices a pod gets (Lua's pick_devices),
 * consulted once per pod in Reserve on the chosen node when its claims
 * can be allocated there in more than one way: MS_SUCCESS with *chosen an
 * index into options, MS_SKIP for the allocator's own choice (options[0]),
 * MS_ERROR to fail the pod's cycle (st says why). */
typedef struct ms_dra_hooks {
    void *ctx;
    /* Whether pick would answer at all now (a policy defines the hook):
     * without it, Reserve takes the allocator's choice and lists nothing. */
    bool (*wants)(void *ctx);
    ms_code (*pick)(void *ctx, ms_cycle *c, const ms_node_info *ni, const ms_device_option *options, uint32_t n,
                    uint32_t *chosen, ms_status *st);
} ms_dra_hooks;

/* Sets (NULL: clears) the hooks of the profile's DynamicResources. false
 * when the profile does not run it. The hooks must outlive the framework
 * or be cleared first. */
bool ms_dynamic_resources_set_hooks(const ms_framework *fw, const ms_dra_hooks *hooks);

#endif
