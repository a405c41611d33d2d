/* The scheduling queue: activeQ (a heap ordered by the profile's QueueSort),
 * backoffQ (a heap ordered by backoff expiry) and the unschedulable pods,
 * plus the nominator (pods nominated to nodes). Mirrors upstream's
 * internal/queue.PriorityQueue. Owned by the scheduler thread; time is passed
 * in so that simulation can run on a virtual clock. */
#ifndef MOONSCHED_QUEUE_H
#define MOONSCHED_QUEUE_H

#include <stdbool.h>
#include <stdint.h>

#include "moonsched/error.h"
#include "moonsched/cluster_event.h"
#include "moonsched/pod.h"

typedef struct ms_queued_pod {
    ms_pod *pod;                   /* referenced; replaced on update */
    double timestamp;              /* when last added to a queue */
    double initial_attempt;        /* first time it was popped, 0 before */
    uint32_t attempts;
    uint64_t unschedulable_plugins;   /* bit per plugin index that rejected it */
    ms_event_mask interest;        /* events that could help (from those plugins) */
    uint64_t seq;                  /* insertion order: the final tie-break */
    /* where it is: maintained by the queue, read-only for others */
    int32_t heap_index;
    uint8_t where;                 /* ms_queue_where */
    bool gated;                    /* refused by PreEnqueue: waits among the unschedulable pods */
    double backoff_expiry;         /* timestamp + backoff for `attempts` */
    double unschedulable_since;
} ms_queued_pod;

typedef enum ms_queue_where {
    MS_QW_NONE = 0,
    MS_QW_ACTIVE,
    MS_QW_BACKOFF,
    MS_QW_UNSCHEDULABLE,
    MS_QW_IN_FLIGHT,               /* popped, not yet handed back */
} ms_queue_where;

/* QueueSort: true when a goes before b. The queue breaks remaining ties by
 * seq (earlier insertion first) so that the order is deterministic. */
typedef bool (*ms_less_fn)(void *ctx, const ms_queued_pod *a, const ms_queued_pod *b);
/* PreEnqueue: false keeps the pod out of activeQ: it waits among the
 * unschedulable pods as a gated pod (upstream's Gated flag: not counted as
 * unschedulable, never backing off, never nominated) until it is updated,
 * a move event in *interest arrives, or it has waited max_unschedulable;
 * it is asked again each time the pod would enter activeQ. qp->gated says
 * whether it was gated before this check (a caller reports only the
 * change). *interest comes in as 0: left so, pre_enqueue_events apply. */
typedef bool (*ms_pre_enqueue_fn)(void *ctx, const ms_queued_pod *qp, ms_event_mask *interest);

typedef struct ms_queue_config {
    double initial_backoff;        /* seconds, default 1 */
    double max_backoff;            /* seconds, default 10 */
    double max_unschedulable;      /* podMaxInUnschedulablePodsDuration, default 300 */
    ms_less_fn less;               /* NULL: PrioritySort */
    void *less_ctx;
    ms_pre_enqueue_fn pre_enqueue; /* NULL: none */
    void *pre_enqueue_ctx;
    /* Events that may lift a PreEnqueue refusal when the callback names
     * none (upstream's GatingPluginEvents); 0: every event. */
    ms_event_mask pre_enqueue_events;
} ms_queue_config;

void ms_queue_config_default(ms_queue_config *c);

typedef struct ms_queue ms_queue;

ms_queue *ms_queue_new(const ms_queue_config *cfg);
void ms_queue_free(ms_queue *q);

/* A new pending pod (takes a reference), to activeQ (or among the gated
 * pods when PreEnqueue refuses it); nominated when its
 * status.nominatedNodeName is set and it is not gated (upstream nominates
 * a pod on add only when it enters activeQ). MS_EEXIST if its uid is
 * queued or in flight. Pods are keyed by meta.uid_hash. */
ms_rc ms_queue_add(ms_queue *q, ms_pod *pod, double now);
/* A pending pod changed (takes a reference to new_pod): replaced in place in
 * activeQ or backoffQ (order re-fixed); an unschedulable pod is moved to
 * backoffQ while backing off, else to activeQ, unless both objects carry
 * the same non-zero spec_hash (a status-only change, which upstream's
 * isPodUpdated ignores: the pod stays where it is); an in-flight pod gets the
 * new object when it is handed back, and then counts as moved. A pod the
 * queue does not hold is added, as upstream does: callers must not pass
 * pods that are assumed or bound. */
ms_rc ms_queue_update(ms_queue *q, ms_pod *new_pod, double now);
/* Removes the pod (by uid) from wherever it is and from the nominator.
 * An in-flight entry stays valid for its owner; handing it back frees it.
 * MS_ENOENT when the queue does not hold it. */
ms_rc ms_queue_delete(ms_queue *q, const ms_pod *pod);
/* The entry for a uid (NULL when absent): for reporting and tests. */
const ms_queued_pod *ms_queue_get(const ms_queue *q, uint64_t uid_hash);

/* Highest-priority pod from activeQ, or NULL when activeQ is empty. The
 * caller owns the returned entry until it hands it back with
 * ms_queue_add_unschedulable / ms_queue_add_backoff / ms_queue_done.
 * Increments the cycle counter (the pod's cycle is ms_queue_cycle() right
 * after the pop) and the pod's attempts; sets initial_attempt on the first. */
ms_queued_pod *ms_queue_pop(ms_queue *q, double now);
/* After a failed cycle: to backoffQ if a move request arrived since
 * `cycle` (the pod's own scheduling cycle), else to unschedulable pods.
 * Set qp->interest (and unschedulable_plugins) first: move events are
 * filtered by it. Does not touch the nominator (nominate after or before). */
void ms_queue_add_unschedulable(ms_queue *q, ms_queued_pod *qp, uint64_t cycle, double now);
/* After a successful cycle (assumed): drops the entry and its nomination. */
void ms_queue_done(ms_queue *q, ms_queued_pod *qp);
/* After a failed bind (or an error that is worth a retry): straight to backoffQ. */
void ms_queue_add_backoff(ms_queue *q, ms_queued_pod *qp, double now);
/* After a bind the API server refused because the pod is gated there (its
 * update has not reached us): among the gated pods, waiting for its update
 * (or an event in `interest`; 0: pre_enqueue_events), without a
 * nomination. An update that arrived in flight requeues it at once. */
void ms_queue_add_gated(ms_queue *q, ms_queued_pod *qp, ms_event_mask interest, double now);

/* A cluster event: unschedulable pods whose interest matches go to activeQ
 * (or backoffQ while still backing off). */
void ms_queue_move_on_event(ms_queue *q, ms_event_mask ev, double now);
/* As ms_queue_move_on_event, but of the pods whose interest matches, only
 * those `helps` accepts move (upstream's QueueingHint); the others stay
 * where they are. Gated pods always move: PreEnqueue decides for them. */
void ms_queue_move_on_event_if(ms_queue *q, ms_event_mask ev, double now,
                               bool (*helps)(void *ctx, const ms_queued_pod *qp), void *ctx);
/* Periodic work: backoffQ entries whose backoff expired go to activeQ;
 * unschedulable pods older than max_unschedulable go back. */
void ms_queue_flush(ms_queue *q, double now);

/* QueueSort itself changed (a policy reload): activeQ is ordered again. */
void ms_queue_reorder(ms_queue *q);

uint64_t ms_queue_cycle(const ms_queue *q);
uint32_t ms_queue_len_active(const ms_queue *q);
uint32_t ms_queue_len_backoff(const ms_queue *q);
uint32_t ms_queue_len_unschedulable(const ms_queue *q);   /* gated pods left out */
uint32_t ms_queue_len_gated(const ms_queue *q);
uint32_t ms_queue_len_in_flight(const ms_queue *q);
/* Earliest backoff expiry, or 0 when backoffQ is empty (virtual clocks jump to it). */
double ms_queue_next_backoff(const ms_queue *q);
/* Calls fn for every pod still held by the queue (for final reporting):
 * activeQ, backoffQ, unschedulable pods (longest waiting first), in flight. */
void ms_queue_each(ms_queue *q, void (*fn)(void *ctx, const ms_queued_pod *qp), void *ctx);
/* scheduler_queue_incoming_pods_total: fn for each (queue, event) with a
 * count; queue is "active", "backoff" or "unschedulable" (gated pods
 * included, as upstream counts them), event upstream's label ("PodAdd",
 * "ScheduleAttemptFailure", "BackoffComplete", "NodeAdd", ...). */
void ms_queue_each_incoming(const ms_queue *q, void (*fn)(void *ctx, const char *queue, const char *event, uint64_t n),
                            void *ctx);

/* Nominator: pods nominated to a node (status.nominatedNodeName, or set by
 * preemption). The list for a node is ordered by priority, highest first
 * (earlier nomination first among equals). It holds references. A pod is
 * nominated to one node at most: nominating again moves it. node ==
 * MS_STR_NONE: use the pod's status.nominatedNodeName (none: just removed). */
void ms_queue_add_nominated(ms_queue *q, ms_pod *pod, ms_str node);
void ms_queue_delete_nominated(ms_queue *q, const ms_pod *pod);
/* Returns a borrowed array valid until the next queue mutation. */
ms_pod *const *ms_queue_nominated_for(const ms_queue *q, ms_str node, uint32_t *n);
/* Each node's nomination stamp, as one array by node name id, *n of them
 * (a node at or past *n reads 0), valid until the next queue mutation: a
 * pass over every node reads it without a call per node. A stamp changes
 * whenever the node's nominated pods change (0: none nominated there now;
 * any other value is the one change that gave it): what was computed with
 * them holds while it is the same. */
const uint64_t *ms_queue_nominated_stamps(const ms_queue *q, uint32_t *n);
/* One node's stamp from that array. */
static inline uint64_t ms_nominated_stamp_at(const uint64_t *stamps, uint32_t n, ms_str node) {
    return node < n ? stamps[node] : 0;
}
/* The per-node lists allocated: the nodes with nominated pods, and one
 * kept empty for the next; not the count of nodes ever nominated. For
 * tests: the storage's bound is seen nowhere else. */
uint32_t ms_queue_nominated_lists(const ms_queue *q);
/* Pods nominated anywhere: when 0, a cycle skips the per-node lookups. */
uint32_t ms_queue_nominated_count(const ms_queue *q);
/* Of those, the pods with required pod anti-affinity terms: when 0, no
 * nominated pod can keep another pod off a node by its anti-affinity, and
 * InterPodAffinity's PreFilter may skip a pod without terms of its own. */
uint32_t ms_queue_nominated_anti_affinity_count(const ms_queue *q);
/* The node a pod (by uid hash) is nominated to, or MS_STR_NONE. */
ms_str ms_queue_nominated_node(const ms_queue *q, uint64_t uid_hash);

#endif
