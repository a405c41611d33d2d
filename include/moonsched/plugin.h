/* The scheduling-framework plugin interface. A plugin implements the
 * extension points it needs; NULL entries are skipped. Filter is per node
 * (C plugins are cheap per node); Score and NormalizeScore take the whole
 * feasible list so that a plugin loops over nodes itself (one call per pod). */
#ifndef MOONSCHED_PLUGIN_H
#define MOONSCHED_PLUGIN_H

#include <stdbool.h>
#include <stdint.h>

#include "moonsched/arena.h"
#include "moonsched/cluster_event.h"
#include "moonsched/error.h"
#include "moonsched/intern.h"
#include "moonsched/namespaces.h"
#include "moonsched/nodeinfo.h"
#include "moonsched/pod.h"
#include "moonsched/resources.h"
#include "moonsched/status.h"

#pragma GCC visibility push(default)

typedef struct cJSON cJSON;
typedef struct ms_framework ms_framework;
typedef struct ms_namespaces ms_namespaces;
typedef struct ms_pdb_set ms_pdb_set;
struct ms_preemption_candidate;
struct ms_map;
typedef struct ms_queue ms_queue;
typedef struct ms_queued_pod ms_queued_pod;
typedef struct ms_rng ms_rng;
typedef struct ms_snapshot ms_snapshot;

#define MS_MAX_NODE_SCORE 100
#define MS_MIN_NODE_SCORE 0

/* What a plugin may use beyond its arguments. Lives as long as the framework. */
typedef struct ms_handle {
    ms_interner *in;
    const ms_resource_names *rn;
    ms_queue *queue;               /* nominator; NULL in unit tests */
    /* Reusable NodeInfo for the Filter pass with nominated pods added (one
     * copy at a time, no allocation per node); needed when queue is set. */
    ms_node_info *scratch;
    ms_str wildcard_ip;            /* interned "0.0.0.0" */
    /* Sends a bind without blocking (DefaultBinder's Bind); the outcome comes
     * back through ms_scheduler_bind_done. */
    ms_rc (*bind)(void *bind_ctx, const ms_pod *pod, ms_str node);
    void *bind_ctx;
    /* Namespace labels for pod affinity's namespaceSelector; NULL reads as
     * no namespace known (owned by the scheduler, like the cache). */
    const ms_namespaces *namespaces;
    /* Storage objects (PVs, PVCs, StorageClasses, CSINodes, CSIDrivers,
     * CSIStorageCapacities) with the assume layer (backend/volume_store.h),
     * owned by the scheduler; and where VolumeBinding's PreBind writes
     * (framework/volume_binder.h; NULL: nothing to write to, PreBind fails
     * a pod whose claims need binding). */
    struct ms_volume_store *volumes;
    const struct ms_volume_binder *volume_binder;
    /* DeviceClasses, ResourceSlices, ResourceClaims and their templates
     * (backend/dra_store.h), owned by the scheduler; NULL while nothing
     * provides them (a server without resource.k8s.io), and then
     * DynamicResources cannot look claims up. Where its PreBind writes the
     * claims (framework/claim_writer.h; NULL: into the store itself). */
    struct ms_dra_store *dra;
    const struct ms_claim_writer *claim_writer;
    /* Services, ReplicationControllers, ReplicaSets and StatefulSets
     * (api/workload_set.h), owned by the scheduler; NULL in unit tests
     * that give none. PodTopologySpread's system defaults read them. */
    const struct ms_workload_set *workloads;

    /* Preemption (DefaultPreemption's PostFilter; see preemption.h). */
    ms_pdb_set *pdbs;              /* PodDisruptionBudgets; NULL: none */
    ms_rng *rng;                   /* offset of the candidate search; NULL: offset 0 */
    /* Preempts a victim on `node` for `preemptor`, within the cycle: in
     * live mode a waiting (Permit) victim is rejected, any other is deleted
     * with a UID precondition; in simulate it is removed at once. Also the
     * place for the "Preempted" event. Victims already being deleted are
     * not passed. Must not touch the cycle's snapshot. NULL: preemption
     * cannot act and reports an error when it finds a candidate. */
    ms_rc (*evict)(void *preempt_ctx, ms_pod *victim, const ms_pod *preemptor, ms_str node);
    /* UID hashes of the pods evict asked the API server to delete whose
     * deletion the informer has not shown yet (owned by the scheduler;
     * NULL: none). Preemption treats them as already terminating: not a
     * victim again, not deleted twice. */
    const struct ms_map *deletion_requested;
    /* The API server keeps no pod disruption conditions (before 1.26):
     * any terminating lower-priority pod on a preemptor's nominated node
     * makes it wait, as the schedulers of those versions do; otherwise
     * only one that preemption is deleting (DisruptionTarget). */
    bool no_disruption_conditions;
    /* Clears a pod's nomination: the nominator's entry and (live mode) its
     * status.nominatedNodeName; upstream then moves the pod to activeQ.
     * NULL: nominations are left alone. */
    void (*clear_nomination)(void *preempt_ctx, ms_pod *pod);
    void *preempt_ctx;
    /* The HTTP extenders' preempt verb (upstream's callExtenders), which
     * DefaultPreemption calls between finding its candidates and choosing
     * one: may drop candidates or replace their victims (*cands, *ncands;
     * arrays from `a`). NULL when no extender is configured. */
    ms_rc (*extenders_preempt)(void *preempt_ctx, const ms_pod *pod, const ms_snapshot *snap,
                               struct ms_preemption_candidate **cands, uint32_t *ncands,
                               ms_arena *a, ms_error *err);
} ms_handle;

/* One pod's scheduling cycle. */
typedef struct ms_cycle {
    ms_pod *pod;
    ms_queued_pod *qp;
    const ms_snapshot *snap;
    ms_arena *arena;               /* reset at the start of each cycle */
    void **state;                  /* per plugin index: the plugin's CycleState slot */
    uint32_t current;              /* index of the plugin being called: a plugin
                                    * keeps its cycle data in state[current] */
    uint64_t skip_filter;          /* plugin bits that returned Skip in PreFilter */
    uint64_t skip_score;           /* plugin bits that returned Skip in PreScore */
    const ms_handle *h;
    uint64_t cycle;                /* scheduling cycle number */
    /* The profile running the cycle (set by ms_framework_begin_cycle), so
     * that PostFilter can run the profile's filters again. */
    const ms_framework *fw;
    /* The profile's metrics (framework/metrics_recorder.h), NULL when the
     * scheduler records none; sample: this cycle also times each plugin
     * call. Plugins leave both alone. */
    struct ms_metrics_recorder *rec;
    bool sample;
    /* Upstream clones CycleState for each dry run (a node of preemption,
     * the nominated pods added); here a dry run has an id, and PreFilter
     * extensions (add_pod/remove_pod) and Filter calls made during it
     * carry it. dry: the current one (0: none); dry_base: the one it
     * started from; dry_seq: the last id given out. Set by
     * ms_framework_dry_begin/ms_framework_dry_end only. */
    uint32_t dry, dry_base, dry_seq;
    /* explain's recomputed Filter pass: no message counts the reasons, so
     * a plugin may add one saying more than upstream's words (which stay
     * the first). */
    bool explaining;
} ms_cycle;

typedef struct ms_plugin_ops {
    const char *name;              /* upstream's plugin name */
    /* Cluster events that may help a pod it rejected; 0 means every event
     * (upstream's default for plugins without EnqueueExtensions). */
    ms_event_mask events;
    /* upstream's QueueingHintFn: whether the change of old_obj into
     * new_obj (NULL old_obj: added) behind event `ev` may help `pod`, which
     * this plugin rejected. NULL: every event in `events` may. Called on
     * the scheduler thread for each such pod, so it must be cheap. */
    bool (*queueing_hint)(void *self, const ms_pod *pod, ms_event_mask ev, const void *old_obj,
                          const void *new_obj);

    /* args: the plugin's pluginConfig args object, or NULL. */
    ms_rc (*create)(const cJSON *args, const ms_handle *h, void **self, ms_error *err);
    void (*destroy)(void *self);

    bool (*pre_enqueue)(void *self, const ms_pod *pod, const char **reason);
    bool (*less)(void *self, const ms_queued_pod *a, const ms_queued_pod *b);

    ms_code (*pre_filter)(void *self, ms_cycle *c, ms_status *st);
    ms_code (*filter)(void *self, ms_cycle *c, const ms_node_info *ni, ms_status *st);
    /* statuses: one per node of the snapshot (index = snapshot order), as
     * left by Filter. On success *nominated is the node to nominate. */
    ms_code (*post_filter)(void *self, ms_cycle *c, const ms_status *statuses,
                           ms_str *nominated, ms_status *st);

    ms_code (*pre_score)(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n,
                         ms_status *st);
    /* Writes scores[i] for every nodes[i] (the array is not cleared first). */
    ms_code (*score)(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n,
                     int64_t *scores, ms_status *st);
    ms_code (*normalize_score)(void *self, ms_cycle *c, int64_t *scores, uint32_t n,
                               ms_status *st);

    ms_code (*reserve)(void *self, ms_cycle *c, ms_str node, ms_status *st);
    void (*unreserve)(void *self, ms_cycle *c, ms_str node);
    /* MS_WAIT with *timeout seconds parks the pod until allowed or timed out. */
    ms_code (*permit)(void *self, ms_cycle *c, ms_str node, double *timeout, ms_status *st);

    /* c: the pod's cycle (c->pod is the assumed pod; c->state as Reserve
     * left it). MS_WAIT with *timeout seconds: the binding cycle waits
     * without blocking the scheduler thread; the plugin is called again
     * after each cluster event in `events`, and once at the deadline with
     * *timeout == -1 on entry (it must then succeed or fail). */
    ms_code (*pre_bind)(void *self, ms_cycle *c, ms_str node, double *timeout, ms_status *st);
    /* MS_SKIP: not this plugin's pod; MS_SUCCESS: bind sent (the result
     * arrives through ms_scheduler_bind_done). */
    ms_code (*bind)(void *self, const ms_pod *pod, ms_str node, ms_status *st);
    void (*post_bind)(void *self, const ms_pod *pod, ms_str node);

    /* Filter for many nodes in one call, for plugins whose per-call cost
     * dwarfs the per-node work (Lua policies: one call per pod, the loop over
     * nodes runs inside). statuses[i] receives nodes[i]'s result: Success, or
     * a rejection with its reasons (the framework sets `plugin`). Returns
     * MS_SUCCESS when the call itself worked (nodes may still be rejected),
     * MS_ERROR when it failed as a whole (statuses then carry that error). A
     * plugin with filter_batch and no filter takes part in Filter only
     * through the batch runner. */
    ms_code (*filter_batch)(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n,
                            ms_status *statuses);
    /* True while the plugin answers neutrally instead of by its own
     * judgement (a Lua policy disabled after failures, or with no version
     * loaded): a shadow's choice then says nothing about the policy and is
     * not counted as a decision (scheduler/shadow.c). NULL: never. */
    bool (*idle)(void *self);
    /* Out-of-tree plugins made at run time (Lua policies): the framework
     * starts `self` as ctx, then calls create (if any), which may replace it. */
    void *ctx;
    /* PreFilterExtensions (upstream's AddPod/RemovePod): pods[0..n) were
     * added to / removed from ni, a copy of a node, during a dry run
     * (c->dry); a plugin keeping per-cycle counts updates its dry-run
     * state. Called for plugins at PreFilter that did not Skip. A
     * failure (MS_ERROR, st says why) rules the node out of that dry run.
     * Built-in plugins compare the copy with the snapshot's NodeInfo
     * (ms_node_info.scratch) instead. */
    ms_code (*add_pod)(void *self, ms_cycle *c, ms_pod *const *pods, uint32_t n,
                       const ms_node_info *ni, ms_status *st);
    ms_code (*remove_pod)(void *self, ms_cycle *c, ms_pod *const *pods, uint32_t n,
                          const ms_node_info *ni, ms_status *st);
    /* Filter's verdict and Score's raw score (before normalize_score) on a
     * node depend on that NodeInfo, the number of nodes in the snapshot,
     * the plugin's args and, of the pod, only what framework/node_memo.h
     * calls its signature; PreFilter and
     * PreScore draw nothing from other nodes. The scheduler then reuses
     * them for the next pod of the same signature on a node that has not
     * changed. Built-in plugins only. */
    bool node_local;
} ms_plugin_ops;

/* One way to allocate a pod's claims on a node, as DynamicResources offers
 * it to a device policy (lua_policy.h's pick_devices; docs/dra.md): a
 * device is the ResourceSlice's entry (api/dra.h's ms_device: name,
 * attributes, capacity). Here because both the framework and the policies
 * read it. */
struct ms_device;
typedef struct ms_device_pick {
    ms_str claim;                  /* the pod's name for the claim (spec.resourceClaims[].name) */
    ms_str request;                /* "req", or "req/sub" for a firstAvailable entry */
    ms_str driver;
    ms_str pool;
    const struct ms_device *device;
} ms_device_pick;

typedef struct ms_device_option {
    const ms_device_pick *picks;
    uint32_t npicks;
} ms_device_option;

/* Built-in plugins, looked up by upstream name. NULL when unknown. */
const ms_plugin_ops *ms_plugin_lookup(const char *name);
/* Iteration over all built-ins. */
const ms_plugin_ops *ms_plugin_at(uint32_t i);

/* Shared helpers for NormalizeScore, as upstream's helper.DefaultNormalizeScore. */
void ms_default_normalize_score(int64_t max_priority, bool reverse, int64_t *scores, uint32_t n);

#pragma GCC visibility pop

#endif
