/* The scheduler's private state, shared by scheduler.c (construction,
 * binding outcomes, housekeeping), event_handlers.c (cluster deltas),
 * waiting_pods.c (Permit's waiting pods), schedule_one.c (the
 * scheduling cycle) and scheduler_metrics.c. Not a public header: nothing outside these files may
 * depend on it. */
#ifndef MOONSCHED_SCHEDULER_PRIV_H
#define MOONSCHED_SCHEDULER_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"
#include "api/namespace_store.h"
#include "backend/cache_snapshot.h"
#include "backend/dra_store.h"
#include "backend/volume_store.h"
#include "base/map.h"
#include "base/rng.h"
#include "framework/node_memo.h"
#include "framework/reason_tally.h"
#include "moonsched/arena.h"
#include "moonsched/decode.h"
#include "moonsched/plugin.h"
#include "moonsched/scheduler.h"
#include "scheduler/cycle_observer.h"
#include "scheduler/explain.h"
#include "scheduler/extender.h"

/* One pod's cycle: its arena and CycleState. A cycle that ends in a bind
 * keeps its record until the bind's outcome arrives (Unreserve needs the
 * cycle state); otherwise the record goes straight back to the free list.
 * Arenas are reset on reuse, never freed per cycle. */
typedef struct ms_inflight {
    struct ms_inflight *next_free;
    ms_arena arena;
    ms_cycle cycle;
    ms_queued_pod *qp;             /* owned until ms_queue_done / requeue */
    ms_pod *assumed;               /* our reference to the assumed copy */
    ms_str node;
    uint32_t profile;
    bool deleted;                  /* the pending pod was deleted while binding */
    bool waiting;                  /* parked by Permit until `deadline` */
    double deadline;
    double parked_at;              /* when Permit made it wait (the scheduler's clock) */
    /* PreBind asked to wait (VolumeBinding until its claims are bound):
     * the plugin at position prebind_next (index prebind_plugin) is asked
     * again after its cluster events, and finally at prebind_deadline. */
    bool prebinding;
    uint32_t prebind_next;
    int16_t prebind_plugin;
    double prebind_deadline;
    ms_score_report *report;       /* kept for a waiting pod (in its arena) */
} ms_inflight;

typedef struct ms_permit_request {
    uint64_t uid_hash;
    bool allow;
    char reason[256];
} ms_permit_request;

/* Per-profile constants for reports. */
typedef struct ms_profile_info {
    ms_str scheduler_name;
    uint32_t nscore;
    /* nscore, then the extenders' prioritizers (their names follow the
     * plugins' in score_names, as upstream lists extender scores last) */
    uint32_t nreport;
    const char *score_names[MS_MAX_PLUGINS];
} ms_profile_info;

struct ms_scheduler {
    ms_interner *in;
    ms_decoder dec;                /* for informers: same interner, same names */
    ms_handle handle;              /* shared by every profile's plugins */
    ms_extenders *ext;             /* NULL when no extender is configured */
    ms_cache *cache;
    ms_queue *queue;
    ms_snapshot snap;
    ms_namespaces namespaces;      /* labels for pod affinity's namespaceSelector */
    ms_volume_store *volumes;      /* PVs, PVCs, classes, CSI objects (storage_events.c) */
    ms_dra_store *dra;             /* DeviceClasses, ResourceSlices, claims, templates (dra_events.c) */
    uint32_t nprofiles;
    ms_framework *profiles;
    ms_profile_info *info;
    uint32_t max_nscore;           /* most Score plugins in a profile */
    ms_binder binder;
    ms_reporter reporter;
    ms_evictor evictor;
    ms_pdb_set *pdbs;
    struct ms_workload_set *workloads;   /* Services, RCs, ReplicaSets, StatefulSets */
    ms_rng rng;
    double now;                    /* of the cycle running (for in-cycle callbacks) */
    /* Victims of this cycle's preemption, referenced until the next
     * snapshot update: the snapshot and the candidates borrow them. */
    ms_pod **evicted;
    uint32_t nevicted, evictcap;
    /* uid hashes of the pods whose deletion evict asked for, until the
     * informer shows the deletion (handle.deletion_requested) or the evictor
     * reports that it failed (ms_scheduler_eviction_failed). No sweep: every
     * request ends in one or the other (run's poster hands back each failed
     * one, and a request it could not queue is refused at once). */
    ms_map deletion_requested;
    uint32_t next_start;           /* upstream nextStartNodeIndex */

    /* Buffers of the cycle, sized to the node count and reused. */
    uint32_t cap;                  /* nodes the buffers below can hold */
    ms_status *statuses;           /* per snapshot index */
    ms_node_info **feasible;
    uint32_t *feasible_at;         /* snapshot index of each feasible node */
    int64_t *totals;
    int64_t *per_plugin;           /* MS_MAX_PLUGINS rows of cap */
    int64_t report_scores[MS_MAX_PLUGINS];
    ms_buf msg;                    /* FitError and other messages */
    /* Node-local plugins' results for the last pod's signature. */
    ms_node_memo memo;
    /* The reasons of a Filter pass with kept verdicts that found no node,
     * for the FitError message; `tallied` while they stand for
     * statuses[0..n). */
    ms_reason_tally tally;
    bool tallied;

    ms_inflight *free_records;
    /* uid hash -> ms_inflight* of pods past Permit: waiting, or handed to
     * the binder and not answered yet. */
    ms_map binding;
    ms_inflight **waiting;         /* the waiting ones, in no order */
    uint32_t nwaiting, waitcap;
    ms_inflight **prebinding;      /* those waiting in PreBind, in no order */
    uint32_t nprebinding, prebindcap;
    bool permit_timeout_allows;
    /* Permit releases asked for from inside plugin calls, applied when the
     * scheduler call in progress ends (ms_sched_flush_permits). */
    ms_permit_request *later;
    uint32_t nlater, latercap;

    /* The profiles' configuration (args left out), for re-deriving
     * extension points when an out-of-tree plugin changes. */
    ms_profile_config *pcs;

    /* Explain: the recent cycles, the record of the cycle running (NULL
     * between cycles) and the out-of-tree plugin reloads so far. */
    ms_explain_ring explain;
    ms_explain_record *explain_cur;
    uint64_t policy_generation;
    /* The cycle's Filter pass, for cycle traces: where it began and
     * whether the nominated node alone was taken. */
    uint32_t pass_start;
    bool pass_nominated;
    /* Placing cycles kept whole (cycle_trace.h): uid hash -> cJSON*. */
    ms_map traces;
    uint32_t ntraces, trace_pods;

    /* Metrics (ms_scheduler_options.record_metrics); NULL: none recorded. */
    struct ms_sched_metrics *metrics;

    /* Shadow policies (shadow.h), in profile order; none: nshadows 0. */
    struct ms_shadow **shadows;
    uint32_t nshadows;

    /* What watches the cycles (cycle_observer.h); none: nobservers 0. */
    const struct ms_cycle_observer *observers[MS_MAX_CYCLE_OBSERVERS];
    uint32_t nobservers;
};

/* Record pool (scheduler.c). */
ms_inflight *ms_sched_record_take(ms_scheduler *s);
void ms_sched_record_release(ms_scheduler *s, ms_inflight *r);
/* Binding-cycle failure: Unreserve, forget, tell the queue, requeue with
 * backoff unless the pod is gone. Releases the record. */
void ms_sched_binding_failed(ms_scheduler *s, ms_inflight *r, const char *message, bool gone,
                             double now);
/* Binding cycle (upstream bindingCycle): PreBind, Bind; the record is
 * registered in s->binding (a waiting record already is). */
void ms_sched_start_binding(ms_scheduler *s, ms_inflight *r, const ms_score_report *report,
                            double now);
/* The binding cycle from the PreBind plugin at r->prebind_next on (timeout
 * as ms_framework_run_pre_bind takes it: 0, or -1 at the deadline). */
void ms_sched_continue_binding(ms_scheduler *s, ms_inflight *r, double timeout, double now);
/* A waiting pod whose wait ended without approval: Unreserve, forget, back
 * to the unschedulable pods (or dropped when gone). Releases the record. */
void ms_sched_reject_waiting(ms_scheduler *s, ms_inflight *r, const char *message, bool gone,
                             double now);
/* Applies the releases ms_scheduler_permit_later queued. */
void ms_sched_flush_permits(ms_scheduler *s, double now);
/* Drops the references to the last cycle's victims (scheduler.c). */
void ms_sched_release_evicted(ms_scheduler *s);
/* The informer shows the pod deleted or terminating: its deletion mark
 * (sched_evict's), if any, has done its work. */
void ms_sched_deletion_seen(ms_scheduler *s, uint64_t uid);

/* The record of a pod past Permit (waiting, or handed to the binder and
 * not answered yet), or NULL. */
static inline ms_inflight *ms_sched_binding_record(const ms_scheduler *s, uint64_t uid_hash) {
    return ms_map_get(&s->binding, uid_hash);
}

/* Waiting pods (waiting_pods.c). */
/* Parks a record that Permit asked to wait until `deadline`, with a copy
 * of its report in the record's arena (the cycle buffers are reused by the
 * next pod); false, nothing changed, when out of memory. */
bool ms_sched_park(ms_scheduler *s, ms_inflight *r, const ms_score_report *report, double deadline);
/* Waits that reached their deadline: let through (permit_timeout_allows)
 * or rejected with upstream's timeout message. */
void ms_sched_resolve_waits(ms_scheduler *s, double now);

/* PreBind waits (prebind_wait.c): a binding cycle whose PreBind plugin
 * asked to wait stays in s->binding and in s->prebinding; the scheduler
 * thread never blocks on it. */
/* Lists r as waiting up to `timeout` seconds in the PreBind plugin
 * `plugin`; false when out of memory. */
bool ms_sched_prebind_wait(ms_scheduler *s, ms_inflight *r, int16_t plugin, double timeout, double now);
void ms_sched_prebind_unlist(ms_scheduler *s, ms_inflight *r);
/* Asks the waiting plugins interested in `ev` again. */
void ms_sched_prebind_events(ms_scheduler *s, ms_event_mask ev, double now);
/* Asks the plugins whose wait reached its deadline for their final word. */
void ms_sched_prebind_deadlines(ms_scheduler *s, double now);
/* Ends r's binding cycle as failed in PreBind with `message` (gone: the
 * pod was deleted; nothing is retried). */
void ms_sched_prebind_fail(ms_scheduler *s, ms_inflight *r, const char *message, bool gone, double now);
/* An API write a PreBind plugin asked for failed: the pod's binding cycle
 * fails with `message`, if it is waiting in PreBind. */
void ms_sched_prebind_write_failed(ms_scheduler *s, const ms_pod *pod, const char *message, double now);

/* upstream numFeasibleNodesToFind: every node below 100 nodes or at a
 * percentage >= 100; percentage <= 0 is the adaptive default
 * (50 - nodes/125, at least 5); never fewer than 100. */
uint32_t ms_num_feasible_nodes_to_find(int32_t percentage, uint32_t num_all_nodes);

/* upstream selectHost: the index of a highest total, ties broken uniformly
 * at random by reservoir sampling (one draw per tie). n > 0. */
uint32_t ms_select_host(ms_rng *rng, const int64_t *totals, uint32_t n);

/* Makes the cycle buffers hold n nodes; false when out of memory. */
bool ms_sched_grow_buffers(ms_scheduler *s, uint32_t n);

/* Where the next Filter pass starts in the snapshot's node list. */
uint32_t ms_scheduler_next_start_index(const ms_scheduler *s);

#endif
