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
#include "moonsched/events.h"
#include "moonsched/pod.h"

typedef struct ms_queued_pod {
    ms_pod *pod;                   /* referenced; replaced on update */
    double timestamp;              /* when last added to a queue */
    double initial_attempt;        /* first time it was popped, 0 before */
    uint32_t attempts;
    uint64_t unschedulable_plugins;   /* bit per plugin index that rejected it */
    ms_event_mask interest;        /* events that could help (from those plugins) */
    uint64_t seq;                  /* insertion order: the final tie-break */
    /* where it is: private to the queue */
    int32_t heap_index;
    uint8_t where;
    double backoff_expiry;
    double unschedulable_since;
} ms_queued_pod;

/* QueueSort: true when a goes before b. */
typedef bool (*ms_less_fn)(void *ctx, const ms_queued_pod *a, const ms_queued_pod *b);
/* PreEnqueue: false keeps the pod out of activeQ (it waits among the
 * unschedulable pods until an update or a policy reload). */
typedef bool (*ms_pre_enqueue_fn)(void *ctx, const ms_pod *pod);

typedef struct ms_queue_config {
    double initial_backoff;        /* seconds, default 1 */
    double max_backoff;            /* seconds, default 10 */
    double max_unschedulable;      /* podMaxInUnschedulablePodsDuration, default 300 */
    ms_less_fn less;               /* NULL: PrioritySort */
    void *less_ctx;
    ms_pre_enqueue_fn pre_enqueue; /* NULL: none */
    void *pre_enqueue_ctx;
} ms_queue_config;

void ms_queue_config_default(ms_queue_config *c);

typedef struct ms_queue ms_queue;

ms_queue *ms_queue_new(const ms_queue_config *cfg);
void ms_queue_free(ms_queue *q);

/* A new pending pod (takes a reference). MS_EEXIST if its uid is queued. */
ms_rc ms_queue_add(ms_queue *q, ms_pod *pod, double now);
/* A pending pod changed: replaced in place; an unschedulable pod whose spec
 * changed is moved to activeQ (or backoffQ while backing off). */
ms_rc ms_queue_update(ms_queue *q, ms_pod *new_pod, double now);
ms_rc ms_queue_delete(ms_queue *q, const ms_pod *pod);

/* Highest-priority pod from activeQ, or NULL when activeQ is empty. The
 * caller owns the returned entry until it hands it back with
 * ms_queue_add_unschedulable / ms_queue_done. Increments the cycle counter. */
ms_queued_pod *ms_queue_pop(ms_queue *q, double now);
/* After a failed cycle: to backoffQ if a move request arrived since
 * `cycle` (the pod's own scheduling cycle), else to unschedulable pods. */
void ms_queue_add_unschedulable(ms_queue *q, ms_queued_pod *qp, uint64_t cycle, double now);
/* After a successful cycle (assumed): drops the entry. */
void ms_queue_done(ms_queue *q, ms_queued_pod *qp);
/* After a failed bind: straight to backoffQ. */
void ms_queue_add_backoff(ms_queue *q, ms_queued_pod *qp, double now);

/* A cluster event: unschedulable pods whose interest matches go to activeQ
 * (or backoffQ while still backing off). */
void ms_queue_move_on_event(ms_queue *q, ms_event_mask ev, double now);
/* Periodic work: backoffQ entries whose backoff expired go to activeQ;
 * unschedulable pods older than max_unschedulable go back. */
void ms_queue_flush(ms_queue *q, double now);

uint64_t ms_queue_cycle(const ms_queue *q);
uint32_t ms_queue_len_active(const ms_queue *q);
uint32_t ms_queue_len_backoff(const ms_queue *q);
uint32_t ms_queue_len_unschedulable(const ms_queue *q);
/* Earliest backoff expiry, or 0 when backoffQ is empty (virtual clocks jump to it). */
double ms_queue_next_backoff(const ms_queue *q);
/* Calls fn for every pod still held by the queue (for final reporting). */
void ms_queue_each(ms_queue *q, void (*fn)(void *ctx, const ms_queued_pod *qp), void *ctx);

/* Nominator: pods nominated to a node (status.nominatedNodeName, or set by
 * preemption). The list for a node is ordered by priority, highest first. */
void ms_queue_add_nominated(ms_queue *q, ms_pod *pod, ms_str node);
void ms_queue_delete_nominated(ms_queue *q, const ms_pod *pod);
/* Returns a borrowed array valid until the next queue mutation. */
ms_pod *const *ms_queue_nominated_for(const ms_queue *q, ms_str node, uint32_t *n);

#endif
