/* The scheduler: owns the cache, the queue, the profiles and the snapshot,
 * applies cluster deltas and runs scheduling cycles. One thread drives it
 * (the "scheduler thread"); informers and binders talk to it through
 * ms_scheduler_* calls made on that thread. Same code for `run` and
 * `simulate`: only the binder, the reporter and the clock differ. */
#ifndef MOONSCHED_SCHEDULER_H
#define MOONSCHED_SCHEDULER_H

#include <stdbool.h>
#include <stdint.h>

#include "moonsched/config.h"
#include "moonsched/decode.h"
#include "moonsched/error.h"
#include "moonsched/framework.h"
#include "moonsched/intern.h"
#include "moonsched/namespaces.h"
#include "moonsched/node.h"
#include "moonsched/pdb.h"
#include "moonsched/pod.h"

#pragma GCC visibility push(default)

typedef struct ms_cache ms_cache;
typedef struct ms_queue ms_queue;
typedef struct ms_rng ms_rng;

/* Where binds go. bind() must not block: the result comes back later through
 * ms_scheduler_bind_done (the in-memory binder calls it at once). */
typedef struct ms_binder {
    void *ctx;
    ms_rc (*bind)(void *ctx, const ms_pod *pod, ms_str node);
} ms_binder;

/* Where preemption's side effects go. Called during the cycle, on the
 * scheduler thread; must not block and must not call back into the cycle
 * (ms_scheduler_pod_delete is allowed: simulate removes victims at once).
 * evict: delete the victim (live mode: DELETE with a UID precondition;
 * the informer's delete event frees the room later; run reports one that
 * fails after evict returned, scheduler/evictions.h, else the victim stays
 * counted as terminating). A victim waiting on
 * Permit never reaches it: the scheduler rejects that one itself.
 * set_nomination: record status.nominatedNodeName (MS_STR_NONE: clear it)
 * the way the API server would echo it (live mode: a status patch;
 * simulate: the queued pod is replaced). The nominator is already updated.
 * Both optional; without evict preemption reports that it cannot evict. */
typedef struct ms_evictor {
    void *ctx;
    ms_rc (*evict)(void *ctx, const ms_pod *victim, const ms_pod *preemptor, ms_str node);
    void (*set_nomination)(void *ctx, const ms_pod *pod, ms_str node);
} ms_evictor;

/* What the scheduler tells the world (events, status patches, simulate's
 * output). All optional. Called on the scheduler thread. */
typedef struct ms_score_report {
    uint32_t nplugins;
    const char *const *names;      /* score plugin names */
    const int64_t *scores;         /* weighted scores of the chosen node, per plugin */
    int64_t total;
    uint32_t feasible;             /* feasible nodes found */
    uint32_t evaluated;            /* nodes evaluated */
    uint32_t num_all_nodes;        /* nodes in the snapshot */
} ms_score_report;

/* scheduled: the decision is made and the bind was handed to the binder (a
 * later bind_failed retracts it). nplugins is 0 when the pod was not scored
 * (a single feasible node, as upstream). unschedulable: also used for
 * errors during the cycle (the message then says what failed). */
typedef struct ms_reporter {
    void *ctx;
    void (*scheduled)(void *ctx, const ms_pod *pod, ms_str node, const ms_score_report *why);
    void (*unschedulable)(void *ctx, const ms_pod *pod, const char *message, uint32_t attempts);
    void (*bind_failed)(void *ctx, const ms_pod *pod, ms_str node, const char *message);
    void (*nominated)(void *ctx, const ms_pod *pod, ms_str node);
    /* A victim evicted (or, waiting on Permit, rejected) for `preemptor`
     * on `node`: upstream's Normal event on the victim, reason Preempted,
     * message "Preempted by <ns>/<name> on node <node>" as v1.20 words it
     * (`run` posts this one, the preemptor as the event's `related`; newer
     * releases say "Preempted by pod <preemptor UID> on node <node>"). */
    void (*preempted)(void *ctx, const ms_pod *victim, const ms_pod *preemptor, ms_str node);
    /* For metrics. error: the attempt ended in an error rather than a
     * rejection (upstream's result "error"); called just before
     * unschedulable, with the same message. post_filter: PostFilter ran for
     * a pod that no node fits (upstream counts each as a preemption
     * attempt); nominated is the node preemption chose, or MS_STR_NONE
     * (the victims were reported through `preempted` just before). */
    void (*error)(void *ctx, const ms_pod *pod, const char *message);
    void (*post_filter)(void *ctx, const ms_pod *pod, ms_str nominated);
    /* A PreEnqueue plugin keeps the pod out of activeQ: called once, when
     * it starts waiting among the gated pods (not an attempt: no
     * FailedScheduling, not unschedulable). plugin: the refusing plugin's
     * name ("SchedulingGates" for spec.schedulingGates); reason: its words
     * ("waiting for scheduling gates: [a b]"). */
    void (*gated)(void *ctx, const ms_pod *pod, const char *plugin, const char *reason);
    /* A binding cycle failed (PreBind, e.g. VolumeBinding's writes or its
     * wait, or Bind) and the pod goes back to the queue; not called when
     * the pod is gone. upstream reports it as a scheduling failure: a
     * FailedScheduling event with the message, PodScheduled=False with
     * reason SchedulerError. Called after bind_failed. */
    void (*binding_error)(void *ctx, const ms_pod *pod, const char *message);
} ms_reporter;

typedef struct ms_scheduler ms_scheduler;

/* Each called once per profile, after its framework is built (NULL: not
 * called); the hooks returned must outlive the scheduler.
 * core/policy/policy_list.h gives both for a fixed list of Lua policies;
 * ms_policy_set attaches its own after construction, which follow
 * reloads. */
typedef struct ms_scheduler_policy_hooks {
    void *ctx;
    /* What the profile's DefaultPreemption consults
     * (core/framework/plugins/preemption.h), or NULL for upstream's
     * SelectVictimsOnNode and choice. */
    const struct ms_preemption_hooks *(*preemption)(void *ctx, uint32_t profile,
                                                    const ms_profile_config *pc);
    /* What the profile's DynamicResources asks which devices a pod gets
     * (core/framework/plugins/dynamic_resources.h), or NULL for the
     * allocator's own choice. */
    const struct ms_dra_hooks *(*devices)(void *ctx, uint32_t profile, const ms_profile_config *pc);
} ms_scheduler_policy_hooks;

typedef struct ms_scheduler_options {
    const ms_config *config;       /* copied where needed; must outlive the call only */
    ms_interner *in;
    ms_binder binder;
    /* Where VolumeBinding's PreBind writes PV and claim updates
     * (core/framework/volume_binder.h); NULL: pods whose claims need
     * binding fail in PreBind. Must outlive the scheduler. */
    const struct ms_volume_binder *volume_binder;
    /* Where DynamicResources' PreBind writes the claims' status
     * (core/framework/claim_writer.h); NULL: into the scheduler's own DRA
     * store (simulate). Must outlive the scheduler. */
    const struct ms_claim_writer *claim_writer;
    ms_reporter reporter;
    ms_evictor evictor;
    uint64_t seed;                 /* random choice among equal top scores */
    /* Plugins the profiles may name beside the built-ins (policies, tests);
     * the array must outlive the scheduler. */
    const ms_plugin_ops *const *out_of_tree;
    uint32_t n_out_of_tree;
    /* Out-of-tree plugins of one profile only (indexed like
     * config->profiles; NULL: none), looked up before out_of_tree: policies
     * loaded with that profile's pluginConfig. Must outlive the scheduler. */
    const ms_plugin_ops *const *const *profile_out_of_tree;
    const uint32_t *n_profile_out_of_tree;
    /* A pod a Permit plugin made wait is rejected when the wait times out
     * (upstream); set this to let it through instead. */
    bool permit_timeout_allows;
    /* What the layer that brings policies gives the scheduler, which
     * includes nothing of it (the policies themselves come as out_of_tree
     * plugins). Unset: upstream's behaviour. */
    ms_scheduler_policy_hooks policy_hooks;
    /* Recent scheduling cycles kept for explain (docs/explain.md): 0 is
     * the default (1024), negative keeps none. */
    int32_t explain_cycles;
    /* Keep the placing cycle whole (every node's Filter verdict, every
     * feasible node's per-plugin scores) for the first trace_pods pods a
     * cycle chooses a node for (simulate's HTML report); 0: none, at no
     * cost. */
    uint32_t trace_pods;
    /* Keep every object's JSON as decoded (ms_decoder.keep_raw) so that
     * ms_scheduler_view's objects can be written out whole (run's
     * /debug/snapshot); extenders turn it on too. */
    bool keep_objects;
    /* Record upstream's scheduler metrics (`run` serves them on /metrics):
     * per extension point and, in one cycle of ten, per plugin call. Off,
     * a cycle reads no clock for them. */
    bool record_metrics;
    /* ms_handle.no_disruption_conditions (`run` against a server before
     * 1.26). */
    bool no_disruption_conditions;
    /* What calls the configuration's extenders (core/base/http_call.h; the
     * client's endpoint in `run`, `simulate` and `config check`); required
     * when there are extenders. Must outlive the scheduler. */
    const struct ms_http_caller *http;
} ms_scheduler_options;

ms_rc ms_scheduler_new(const ms_scheduler_options *o, ms_scheduler **out, ms_error *err);
void ms_scheduler_free(ms_scheduler *s);

/* Cluster deltas (from informers or a file loader). They take references. */
void ms_scheduler_node_add(ms_scheduler *s, ms_node *node, double now);
void ms_scheduler_node_update(ms_scheduler *s, ms_node *node, double now);
void ms_scheduler_node_delete(ms_scheduler *s, ms_str name, double now);
/* Namespaces: their labels are what pod affinity's namespaceSelector
 * matches. Add also updates (by name); takes a reference. */
void ms_scheduler_namespace_add(ms_scheduler *s, ms_namespace *ns, double now);
void ms_scheduler_namespace_delete(ms_scheduler *s, ms_str name, double now);
/* Pods: bound pods feed the cache; pending pods whose schedulerName matches
 * a profile enter the queue; others are ignored. */
void ms_scheduler_pod_add(ms_scheduler *s, ms_pod *pod, double now);
void ms_scheduler_pod_update(ms_scheduler *s, ms_pod *pod, double now);
void ms_scheduler_pod_delete(ms_scheduler *s, const ms_pod *pod, double now);

/* PodDisruptionBudgets, which preemption tries not to violate. Add also
 * updates (by namespace/name); takes a reference. PDB changes do not move
 * queued pods (upstream has no such event). */
void ms_scheduler_pdb_add(ms_scheduler *s, ms_pdb *pdb, double now);
void ms_scheduler_pdb_update(ms_scheduler *s, ms_pdb *pdb, double now);
void ms_scheduler_pdb_delete(ms_scheduler *s, ms_str namespace_, ms_str name, double now);
uint32_t ms_scheduler_pdb_count(const ms_scheduler *s);

/* One scheduling cycle. Returns true when a pod was popped. */
bool ms_scheduler_schedule_one(ms_scheduler *s, double now);
/* Bind outcome for a pod previously handed to the binder. ok=false:
 * Unreserve, forget, requeue with backoff (unless `gone`: already bound
 * elsewhere or deleted). */
void ms_scheduler_bind_done(ms_scheduler *s, const ms_pod *pod, bool ok, bool gone,
                            const char *message, double now);
/* What a 409 Conflict on a bind means (upstream's BindingREST refusals). */
typedef enum ms_bind_conflict {
    /* Anything else: a failed bind (Unreserve, forget, backoff). */
    MS_BIND_CONFLICT_OTHER = 0,
    /* "pod X is already assigned to node N": someone else bound it. The
     * assumption is forgotten; the informer's update brings the real
     * binding into the cache. */
    MS_BIND_CONFLICT_ALREADY_BOUND,
    /* "pod X has non-empty .spec.schedulingGates": the server's pod is
     * gated. Back among the gated pods until its update arrives. */
    MS_BIND_CONFLICT_GATED,
    /* "Precondition failed: UID in precondition": the pod was deleted and
     * created again under the same name; this one is dropped (the new one
     * arrives through the informer). */
    MS_BIND_CONFLICT_UID_CHANGED,
    /* "pod X is being deleted, cannot be assigned to a host": dropped. */
    MS_BIND_CONFLICT_BEING_DELETED,
    MS_BIND_CONFLICT_COUNT,
} ms_bind_conflict;
/* A bind refused with 409: Unreserve and forget the assumption, then as
 * `why` says. message: the server's, for the OTHER case's report. */
void ms_scheduler_bind_conflict(ms_scheduler *s, const ms_pod *pod, ms_bind_conflict why,
                                const char *message, double now);
/* Periodic housekeeping: queue flush, assumed-pod expiry, Permit waits
 * that reached their deadline. */
void ms_scheduler_tick(ms_scheduler *s, double now);

/* Index of the profile for a schedulerName, or -1 (the pod is not ours). */
int32_t ms_scheduler_profile_index(const ms_scheduler *s, ms_str scheduler_name);
/* Pods past Permit whose bind outcome has not arrived yet (waiting ones
 * included). */
uint32_t ms_scheduler_binding_count(const ms_scheduler *s);
/* Victims whose deletion preemption asked for and the informer has not
 * shown yet (neither the delete nor a deletionTimestamp). */
uint32_t ms_scheduler_deletions_requested(const ms_scheduler *s);
/* Pods a Permit plugin made wait, and the earliest of their deadlines (0
 * when none): a virtual clock jumps to it, then calls ms_scheduler_tick. */
uint32_t ms_scheduler_waiting_count(const ms_scheduler *s);
double ms_scheduler_next_permit_deadline(const ms_scheduler *s);

/* Releases a pod a Permit plugin parked, by metadata.uid (or
 * "namespace/name" for a pod without one), as upstream's WaitingPod Allow
 * and Reject: allow sends it on to PreBind and Bind (moonsched keeps one
 * wait per pod, so one allow releases it), deny rejects it with `reason`
 * (Unreserve, back to the unschedulable pods). false when no such pod
 * waits. Not from inside a plugin call: see ms_scheduler_permit_later. */
bool ms_scheduler_permit_allow(ms_scheduler *s, const char *uid, double now);
bool ms_scheduler_permit_deny(ms_scheduler *s, const char *uid, const char *reason, double now);
/* The same from inside a plugin (a policy's sched.permit.allow/deny):
 * returns whether the pod waits now; the release happens when the
 * scheduler call in progress ends (schedule_one, tick, bind_done), so that
 * no plugin runs inside another's call. */
bool ms_scheduler_permit_later(ms_scheduler *s, const char *uid, bool allow, const char *reason);

/* Out-of-tree plugins that change at run time (policy reloads).
 * check_plugin_ops: would every profile that runs `live` still be valid
 * (ms_framework_check_ops, and one QueueSort shared by all profiles) if its
 * ops were `candidate`? Nothing changes. plugin_reloaded: between cycles,
 * after the plugin was replaced: re-derives each profile's points, re-sorts
 * activeQ when it sorts the queue, and moves the pods that cluster event
 * `ev` (MS_EV_POLICY_RELOAD) may help. MS_EINVAL when a profile no longer
 * validates (call check_plugin_ops first): that profile keeps its points. */
ms_rc ms_scheduler_check_plugin_ops(const ms_scheduler *s, const ms_plugin_ops *live,
                                    const ms_plugin_ops *candidate, ms_error *err);
ms_rc ms_scheduler_plugin_reloaded(ms_scheduler *s, const ms_plugin_ops *ops, ms_event_mask ev,
                                   double now, ms_error *err);

ms_queue *ms_scheduler_queue(ms_scheduler *s);
/* A decoder over the scheduler's interner, for informers that feed it. */
const ms_decoder *ms_scheduler_decoder(const ms_scheduler *s);
ms_cache *ms_scheduler_cache(ms_scheduler *s);
uint32_t ms_scheduler_nprofiles(const ms_scheduler *s);
const ms_framework *ms_scheduler_profile(const ms_scheduler *s, uint32_t i);

#pragma GCC visibility pop

#endif
