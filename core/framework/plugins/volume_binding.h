/* VolumeBinding's cycle state and its binder (upstream's
 * volumebinding/binder.go, the scheduler half): which claims of a pod are
 * bound, which wait for their first consumer, which PVs could take them,
 * and for one node, which PV each claim would get or whether it would be
 * provisioned. Shared by volume_binding.c (the plugin) and
 * volume_binding_find.c (the matching). */
#ifndef MOONSCHED_PLUGINS_VOLUME_BINDING_H
#define MOONSCHED_PLUGINS_VOLUME_BINDING_H

#include <stdbool.h>
#include <stdint.h>

#include "api/storage.h"
#include "backend/volume_store.h"
#include "framework/volume_binder.h"
#include "moonsched/plugin.h"

/* A PV that could take an unbound claim on some node: every check of
 * upstream's FindMatchingVolume but node affinity passed in PreFilter.
 * bucket: for a PV whose node affinity is a single `key In (value)`
 * (local volumes: kubernetes.io/hostname), key << 32 | value, so that a
 * node finds its PVs through a hash table; 0: check the affinity per node. */
typedef struct ms_vb_candidate {
    uint64_t bucket;
    const ms_storage_object *pv;
    uint32_t next;                 /* next candidate of the same bucket, or UINT32_MAX */
} ms_vb_candidate;

/* One unbound claim of a WaitForFirstConsumer class. */
typedef struct ms_vb_claim {
    const ms_storage_object *pvc;
    const ms_storage_object *sc;   /* its class (found: delay binding needs it) */
    /* A PV whose claimRef already names this claim (upstream returns it at
     * once when its node affinity allows the node); NULL when none. */
    const ms_storage_object *prebound;
    uint32_t ncands;               /* general ones (bucket 0) first */
    ms_vb_candidate *cands;
    uint32_t ngeneral;
    uint32_t mask;                 /* slots: mask + 1 heads of bucket chains (index + 1; 0: empty) */
    uint32_t *slots;
    uint32_t nkeys;                /* distinct bucket keys (<= MS_VB_MAX_KEYS) */
    ms_str keys[4];
} ms_vb_claim;

#define MS_VB_MAX_KEYS 4

/* One decision for the chosen node, kept by key (the store owns the
 * objects): a static binding (pv_name set) or a provisioning (pv_name
 * MS_STR_NONE). version: the assumed object's, so that PreBind waits for an
 * API object newer than it. */
typedef struct ms_vb_pick {
    ms_str pvc_namespace;
    ms_str pvc_name;
    ms_str pv_name;
    int64_t version;
    bool bound_by_controller;      /* the PV's claimRef did not name the claim before */
} ms_vb_pick;

typedef struct ms_vb_state {
    uint32_t nbound;
    const ms_storage_object **bound_pvs;   /* per bound claim; NULL: PV not found */
    uint32_t nunbound;                     /* delay-binding claims, by request ascending */
    ms_vb_claim *unbound;
    /* Set by Reserve for the chosen node: static bindings first. */
    uint32_t npicks, nstatic;
    ms_vb_pick *picks;
    bool sent;                             /* PreBind handed the writes to the binder */
} ms_vb_state;

/* Why a node fails (upstream's ConflictReasons, in upstream's order). */
enum {
    MS_VB_NODE_CONFLICT = 1u << 0,         /* "node(s) had volume node affinity conflict" */
    MS_VB_BIND_CONFLICT = 1u << 1,         /* "node(s) didn't find available persistent volumes to bind" */
    MS_VB_NOT_ENOUGH_SPACE = 1u << 2,      /* "node(s) did not have enough free storage" */
    MS_VB_PV_NOT_EXIST = 1u << 3,          /* "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)" */
};

/* upstream's IsVolumeBoundToClaim: the PV's claimRef names the claim (and
 * its uid, when the claimRef has one). */
bool ms_vb_bound_to_claim(const ms_pv *pv, const ms_storage_object *claim);

/* Builds the candidates of claim `cl` (cl->pvc and cl->sc set) from the
 * store's PVs of its class, in arena `a`. false: out of memory. */
bool ms_vb_prepare_claim(ms_vb_claim *cl, const ms_volume_store *vs, const ms_interner *in,
                         ms_arena *a);

/* upstream's FindPodVolumes for one node: the MS_VB_* reasons the node
 * fails for (0: it fits). With `st_out` (Reserve), st_out->picks gets the
 * static bindings then the provisionings chosen, in arena `a` (versions
 * not set). */
uint32_t ms_vb_find(const ms_vb_state *st, const ms_volume_store *vs, const ms_interner *in,
                    const ms_node_info *ni, ms_arena *a, ms_vb_state *st_out);

/* upstream's checkBindings against the API objects: 1 when every claim is
 * bound, 0 when not yet, -1 on a failure (*why: the message, in `a`). */
int ms_vb_check_bindings(const ms_vb_state *st, const ms_volume_store *vs, ms_str node,
                         const ms_interner *in, ms_arena *a, const char **why);

#endif
