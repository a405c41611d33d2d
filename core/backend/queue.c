/* The scheduling queue (activeQ, backoffQ, unschedulable pods) and the
 * nominator. See backend/queue.h. */
#include "backend/queue.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/heap.h"
#include "base/map.h"

/* Unschedulable pods are grouped by the events that may move them, so that a
 * cluster event touches only the pods it can help (plus one check per group)
 * instead of scanning every unschedulable pod. Distinct masks are few (one
 * per combination of rejecting plugins); past MAX_GROUPS, pods share group 0,
 * which moves on every event: too eager, never stuck. */
#define MAX_GROUPS 64

typedef struct entry entry;

struct entry {
    ms_queued_pod qp;              /* first: a qp handed out is an entry */
    /* unschedulable pods: ordered by unschedulable_since; in flight: the
     * in-flight list */
    entry *prev, *next;
    /* unschedulable pods: the group's list */
    entry *gprev, *gnext;
    uint32_t group;
    ms_pod *pending;               /* update received while in flight */
    bool deleted;                  /* deleted while in flight */
};

typedef struct group {
    ms_event_mask mask;
    uint32_t count;
    entry *head, *tail;
} group;

typedef struct nom_list {
    uint32_t n, cap;
    ms_pod **pods;
} nom_list;

/* Events of scheduler_queue_incoming_pods_total: the queue's own, then
 * one per cluster event bit (event_names). */
enum { QE_POD_ADD, QE_POD_UPDATE, QE_ATTEMPT_FAILURE, QE_BACKOFF_COMPLETE, QE_UNSCHEDULABLE_TIMEOUT, QE_CLUSTER,
       QE_COUNT = QE_CLUSTER + 15 };
static const char *const event_names[QE_COUNT] = {
    "PodAdd", "PodUpdate", "ScheduleAttemptFailure", "BackoffComplete", "UnschedulableTimeout",
    "NodeAdd", "NodeDelete", "NodeAllocatableChange", "NodeLabelChange", "NodeTaintChange",
    "NodeConditionChange", "NodeSpecUnschedulableChange", "NodeChange", "AssignedPodAdd", "AssignedPodUpdate",
    "AssignedPodDelete", "UnscheduledPodUpdate", "NamespaceChange", "PolicyReload", "AssumedPodForget",
};

struct ms_queue {
    ms_queue_config cfg;
    ms_heap active;
    ms_heap backoff;
    ms_map by_uid;                 /* uid_hash -> entry, every live entry */

    entry *unsched_head, *unsched_tail;
    uint32_t nunsched;             /* gated pods included */
    uint32_t ngated;
    group groups[MAX_GROUPS];
    uint32_t ngroups;

    entry *flight_head;
    uint32_t nflight;

    uint64_t cycle;
    int64_t move_request_cycle;    /* -1: none yet */
    uint64_t next_seq;

    /* node name id -> its list (NULL while no pod is nominated there):
     * Filter and preemption ask for the nominated pods of every node they
     * visit, an index rather than a hash probe. The array grows to the
     * largest nominated name id, which may be far above the node count
     * (names interned before the nodes). It is not indexed by snapshot
     * position as per-cycle state is: the queue outlives snapshots, and a
     * nomination names a node the snapshot may not have (deleted, or not
     * seen yet), whose list must survive. A list that empties is freed
     * (nodes come and go in a long run), but one is kept for the next
     * node nominated: preemption nominates and clears nodes in turn. */
    nom_list **nom_nodes;
    /* Per node name id, as nom_nodes: the nominator's clock at the list's
     * last change, 0 while there is none. An array of its own so that a
     * pass over every node reads it without a call per node. */
    uint64_t *nom_stamps;
    uint32_t nom_ncap;
    nom_list *nom_spare;           /* empty, for the next list; NULL: none */
    uint32_t nom_nlists;           /* lists allocated, the spare included */
    ms_map nom_pods;               /* uid_hash -> node (as uintptr_t) */
    /* Bit per node name id: set while its nom_list is not empty. Filter
     * asks for every node it visits and most have no nominated pod: one bit
     * test in a small array instead of a load from the large one. */
    uint64_t *nom_bits;
    uint32_t nom_words;
    uint32_t nom_anti;             /* nominated pods with required anti-affinity */
    uint64_t nom_clock;            /* ticks on every change to a list */

    /* scheduler_queue_incoming_pods_total: pods that entered each queue
     * (active, backoff, unschedulable), by the event that moved them; the
     * public calls set `event` for the moves they make. */
    uint8_t event;
    uint64_t incoming[3][QE_COUNT];
};

/* The event label of a cluster event: its lowest bit (ms_cluster_event). */
static uint8_t cluster_event(ms_event_mask ev) {
    for (uint8_t b = 0; b < QE_COUNT - QE_CLUSTER; b++)
        if (ev >> b & 1) return (uint8_t)(QE_CLUSTER + b);
    return QE_CLUSTER;
}

static entry *entry_of(ms_queued_pod *qp) {
    return (entry *)qp;
}

void ms_queue_config_default(ms_queue_config *c) {
    memset(c, 0, sizeof *c);
    c->initial_backoff = 1;
    c->max_backoff = 10;
    c->max_unschedulable = 300;
}

/* PrioritySort: higher priority first, then the earlier timestamp. */
static bool priority_sort(const ms_queued_pod *a, const ms_queued_pod *b, bool *decided) {
    *decided = true;
    if (a->pod->priority != b->pod->priority) return a->pod->priority > b->pod->priority;
    if (a->timestamp != b->timestamp) return a->timestamp < b->timestamp;
    *decided = false;
    return false;
}

static bool active_less(void *ctx, const void *va, const void *vb) {
    const ms_queue *q = ctx;
    const ms_queued_pod *a = va, *b = vb;
    if (q->cfg.less) {
        if (q->cfg.less(q->cfg.less_ctx, a, b)) return true;
        if (q->cfg.less(q->cfg.less_ctx, b, a)) return false;
    } else {
        bool decided;
        bool r = priority_sort(a, b, &decided);
        if (decided) return r;
    }
    return a->seq < b->seq;
}

static bool backoff_less(void *ctx, const void *va, const void *vb) {
    (void)ctx;
    const ms_queued_pod *a = va, *b = vb;
    if (a->backoff_expiry != b->backoff_expiry) return a->backoff_expiry < b->backoff_expiry;
    return a->seq < b->seq;
}

/* upstream's calculateBackoffDuration: nothing before the first attempt,
 * then initial * 2^(attempts-1), capped. */
static double backoff_duration(const ms_queue *q, uint32_t attempts) {
    if (attempts == 0) return 0;
    double d = q->cfg.initial_backoff;
    for (uint32_t i = 1; i < attempts; i++) {
        if (d >= q->cfg.max_backoff - d) return q->cfg.max_backoff;
        d += d;
    }
    return d < q->cfg.max_backoff ? d : q->cfg.max_backoff;
}

static void refresh_backoff(const ms_queue *q, entry *e) {
    e->qp.backoff_expiry = e->qp.timestamp + backoff_duration(q, e->qp.attempts);
}

static bool backing_off(const entry *e, double now) {
    return e->qp.backoff_expiry > now;
}

/* ---- nominator ---- */

/* The node's list is empty: its storage is let go (kept as the spare
 * when there is none) and its stamp reads 0 again, still a change from
 * the clock value its last change gave it. */
static void nom_release(ms_queue *q, ms_str node) {
    nom_list *l = q->nom_nodes[node];
    q->nom_nodes[node] = NULL;
    q->nom_stamps[node] = 0;
    q->nom_bits[node / 64] &= ~((uint64_t)1 << (node % 64));
    if (!q->nom_spare) {
        q->nom_spare = l;
        return;
    }
    free(l->pods);
    free(l);
    q->nom_nlists--;
}

static void nom_delete_uid(ms_queue *q, uint64_t uid) {
    void *v = ms_map_del(&q->nom_pods, uid);
    if (!v) return;
    ms_str at = (ms_str)(uintptr_t)v;
    nom_list *l = at < q->nom_ncap ? q->nom_nodes[at] : NULL;
    if (!l) return;
    for (uint32_t i = 0; i < l->n; i++) {
        if (l->pods[i]->meta.uid_hash != uid) continue;
        q->nom_anti -= l->pods[i]->pod_anti_affinity.nrequired > 0;
        ms_pod_unref(l->pods[i]);
        memmove(&l->pods[i], &l->pods[i + 1], (l->n - i - 1) * sizeof *l->pods);
        l->n--;
        q->nom_stamps[at] = ++q->nom_clock;
        if (l->n == 0) nom_release(q, at);
        return;
    }
}

void ms_queue_delete_nominated(ms_queue *q, const ms_pod *pod) {
    nom_delete_uid(q, pod->meta.uid_hash);
}

static bool nom_bits_reserve(ms_queue *q, ms_str node) {
    uint32_t need = node / 64 + 1;
    if (need > q->nom_words) {
        uint32_t had = q->nom_words;
        if (!ms_array_grow((void **)&q->nom_bits, &q->nom_words, need, sizeof *q->nom_bits)) return false;
        memset(q->nom_bits + had, 0, (q->nom_words - had) * sizeof *q->nom_bits);
    }
    if (node < q->nom_ncap) return true;
    uint32_t had = q->nom_ncap, stamps = q->nom_ncap;
    if (!ms_array_grow((void **)&q->nom_stamps, &stamps, node + 1, sizeof *q->nom_stamps)) return false;
    memset(q->nom_stamps + had, 0, (stamps - had) * sizeof *q->nom_stamps);
    if (!ms_array_grow((void **)&q->nom_nodes, &q->nom_ncap, stamps, sizeof *q->nom_nodes)) return false;
    memset(q->nom_nodes + had, 0, (q->nom_ncap - had) * sizeof *q->nom_nodes);
    return true;
}

static bool nom_insert(ms_queue *q, ms_pod *pod, ms_str node) {
    if (!nom_bits_reserve(q, node)) return false;
    nom_list *l = q->nom_nodes[node];
    if (!l) {
        if ((l = q->nom_spare)) q->nom_spare = NULL;
        else if ((l = calloc(1, sizeof *l))) q->nom_nlists++;
        else return false;
        q->nom_nodes[node] = l;
    }
    if (!ms_array_grow((void **)&l->pods, &l->cap, l->n + 1, sizeof *l->pods) ||
        ms_map_put(&q->nom_pods, pod->meta.uid_hash, (void *)(uintptr_t)node) != 0) {
        if (l->n == 0) nom_release(q, node);
        return false;
    }
    /* After every pod of the same or higher priority: stable among equals. */
    uint32_t at = l->n;
    while (at > 0 && l->pods[at - 1]->priority < pod->priority) at--;
    memmove(&l->pods[at + 1], &l->pods[at], (l->n - at) * sizeof *l->pods);
    l->pods[at] = pod;
    l->n++;
    q->nom_stamps[node] = ++q->nom_clock;
    q->nom_anti += pod->pod_anti_affinity.nrequired > 0;
    q->nom_bits[node / 64] |= (uint64_t)1 << (node % 64);
    return true;
}

void ms_queue_add_nominated(ms_queue *q, ms_pod *pod, ms_str node) {
    /* Referenced first: the nomination being replaced may hold the only
     * other reference to this very object. */
    ms_pod_ref(pod);
    nom_delete_uid(q, pod->meta.uid_hash);
    if (node == MS_STR_NONE) node = pod->nominated_node_name;
    if (node == MS_STR_NONE || !nom_insert(q, pod, node)) ms_pod_unref(pod);
}

ms_pod *const *ms_queue_nominated_for(const ms_queue *q, ms_str node, uint32_t *n) {
    if (node / 64 >= q->nom_words || !(q->nom_bits[node / 64] >> (node % 64) & 1)) {
        *n = 0;
        return NULL;
    }
    const nom_list *l = q->nom_nodes[node];
    *n = l ? l->n : 0;
    return l && l->n ? l->pods : NULL;
}

const uint64_t *ms_queue_nominated_stamps(const ms_queue *q, uint32_t *n) {
    *n = q->nom_ncap;
    return q->nom_stamps;
}

uint32_t ms_queue_nominated_lists(const ms_queue *q) {
    return q->nom_nlists;
}

uint32_t ms_queue_nominated_count(const ms_queue *q) {
    return (uint32_t)q->nom_pods.len;
}

uint32_t ms_queue_nominated_anti_affinity_count(const ms_queue *q) {
    return q->nom_anti;
}

ms_str ms_queue_nominated_node(const ms_queue *q, uint64_t uid_hash) {
    return (ms_str)(uintptr_t)ms_map_get(&q->nom_pods, uid_hash);
}

/* upstream's UpdateNominatedPod: a nomination made in memory (by preemption)
 * survives an update that carries no nominatedNodeName on either side;
 * otherwise the new object's status decides. */
static void nom_update(ms_queue *q, const ms_pod *old_pod, ms_pod *new_pod) {
    ms_str node = MS_STR_NONE;
    if (old_pod->nominated_node_name == MS_STR_NONE && new_pod->nominated_node_name == MS_STR_NONE) {
        void *v = ms_map_get(&q->nom_pods, old_pod->meta.uid_hash);
        if (!v) return;
        node = (ms_str)(uintptr_t)v;
    }
    ms_queue_add_nominated(q, new_pod, node);
}

/* ---- unschedulable pods ---- */

static uint32_t group_for(ms_queue *q, ms_event_mask mask) {
    for (uint32_t g = 0; g < q->ngroups; g++)
        if (q->groups[g].mask == mask) return g;
    if (q->ngroups == MAX_GROUPS) return 0;
    group *gr = &q->groups[q->ngroups];
    memset(gr, 0, sizeof *gr);
    gr->mask = mask;
    return q->ngroups++;
}

/* gate_mask: for a gated pod, the events that may lift its gate (0: the
 * configured pre_enqueue_events, else every event). */
static void unsched_insert(ms_queue *q, entry *e, double now, bool gated, ms_event_mask gate_mask) {
    ms_event_mask mask;
    if (!gated) mask = e->qp.interest ? e->qp.interest : MS_EV_ALL;
    else if (gate_mask) mask = gate_mask;
    else mask = q->cfg.pre_enqueue_events ? q->cfg.pre_enqueue_events : MS_EV_ALL;
    e->qp.where = MS_QW_UNSCHEDULABLE;
    e->qp.gated = gated;
    e->qp.unschedulable_since = now;
    q->incoming[2][q->event]++;

    /* Time order for the flush; `now` only goes forward, so this is the tail. */
    entry *after = q->unsched_tail;
    while (after && after->qp.unschedulable_since > now) after = after->prev;
    e->prev = after;
    e->next = after ? after->next : q->unsched_head;
    if (e->next) e->next->prev = e;
    else q->unsched_tail = e;
    if (after) after->next = e;
    else q->unsched_head = e;
    q->nunsched++;
    q->ngated += gated;

    e->group = group_for(q, mask);
    group *g = &q->groups[e->group];
    e->gnext = NULL;
    e->gprev = g->tail;
    if (g->tail) g->tail->gnext = e;
    else g->head = e;
    g->tail = e;
    g->count++;
}

static void unlink_time(ms_queue *q, entry *e) {
    if (e->prev) e->prev->next = e->next;
    else q->unsched_head = e->next;
    if (e->next) e->next->prev = e->prev;
    else q->unsched_tail = e->prev;
    e->prev = e->next = NULL;
    q->nunsched--;
    q->ngated -= e->qp.gated;
}

static void unsched_remove(ms_queue *q, entry *e) {
    unlink_time(q, e);
    group *g = &q->groups[e->group];
    if (e->gprev) e->gprev->gnext = e->gnext;
    else g->head = e->gnext;
    if (e->gnext) e->gnext->gprev = e->gprev;
    else g->tail = e->gprev;
    e->gprev = e->gnext = NULL;
    g->count--;
    e->qp.where = MS_QW_NONE;   /* gated stays: where it goes next reads it */
}

/* ---- moves between queues ---- */

/* qp.gated still says whether the pod was gated before: PreEnqueue's
 * caller reports only a change. */
static void to_active(ms_queue *q, entry *e, double now) {
    ms_event_mask interest = 0;
    if (q->cfg.pre_enqueue && !q->cfg.pre_enqueue(q->cfg.pre_enqueue_ctx, &e->qp, &interest)) {
        /* A gated pod holds no room on any node. */
        nom_delete_uid(q, e->qp.pod->meta.uid_hash);
        unsched_insert(q, e, now, true, interest);
        return;
    }
    e->qp.seq = q->next_seq++;
    if (ms_heap_push(&q->active, e) != MS_OK) {
        /* Out of memory: park it where no allocation is needed; the next
         * event or flush retries. */
        unsched_insert(q, e, now, false, 0);
        return;
    }
    e->qp.where = MS_QW_ACTIVE;
    e->qp.gated = false;
    q->incoming[0][q->event]++;
}

static void to_backoff(ms_queue *q, entry *e, double now) {
    e->qp.seq = q->next_seq++;
    if (ms_heap_push(&q->backoff, e) != MS_OK) {
        unsched_insert(q, e, now, false, 0);
        return;
    }
    e->qp.where = MS_QW_BACKOFF;
    e->qp.gated = false;
    q->incoming[1][q->event]++;
}

/* A pod that may have become schedulable: wait out its backoff first,
 * unless it was gated (upstream: a gated pod is never backing off, so the
 * update that lifts its last gate sends it to activeQ at once). */
static void requeue(ms_queue *q, entry *e, double now) {
    if (!e->qp.gated && backing_off(e, now)) to_backoff(q, e, now);
    else to_active(q, e, now);
}

/* ---- lifetime ---- */

ms_queue *ms_queue_new(const ms_queue_config *cfg) {
    ms_queue *q = calloc(1, sizeof *q);
    if (!q) return NULL;
    if (cfg) q->cfg = *cfg;
    else ms_queue_config_default(&q->cfg);
    if (!(q->cfg.initial_backoff >= 0)) q->cfg.initial_backoff = 0;
    if (!(q->cfg.max_backoff >= q->cfg.initial_backoff)) q->cfg.max_backoff = q->cfg.initial_backoff;
    if (!(q->cfg.max_unschedulable >= 0)) q->cfg.max_unschedulable = 0;
    ms_heap_init(&q->active, active_less, q, offsetof(ms_queued_pod, heap_index));
    ms_heap_init(&q->backoff, backoff_less, q, offsetof(ms_queued_pod, heap_index));
    ms_map_init(&q->by_uid);
    ms_map_init(&q->nom_pods);
    q->move_request_cycle = -1;
    q->groups[0].mask = MS_EV_ALL;
    q->ngroups = 1;
    return q;
}

static void entry_free(entry *e) {
    ms_pod_unref(e->qp.pod);
    ms_pod_unref(e->pending);
    free(e);
}

void ms_queue_free(ms_queue *q) {
    if (!q) return;
    for (uint32_t i = 0; i < q->active.len; i++) entry_free(q->active.items[i]);
    for (uint32_t i = 0; i < q->backoff.len; i++) entry_free(q->backoff.items[i]);
    for (entry *e = q->unsched_head, *n; e; e = n) {
        n = e->next;
        entry_free(e);
    }
    for (entry *e = q->flight_head, *n; e; e = n) {
        n = e->next;
        entry_free(e);
    }
    ms_heap_free(&q->active);
    ms_heap_free(&q->backoff);
    ms_map_free(&q->by_uid);
    for (uint32_t at = 0; at < q->nom_ncap; at++) {
        nom_list *l = q->nom_nodes[at];
        if (!l) continue;
        for (uint32_t i = 0; i < l->n; i++) ms_pod_unref(l->pods[i]);
        free(l->pods);
        free(l);
    }
    if (q->nom_spare) free(q->nom_spare->pods);
    free(q->nom_spare);
    free(q->nom_nodes);
    free(q->nom_stamps);
    ms_map_free(&q->nom_pods);
    free(q->nom_bits);
    free(q);
}

/* ---- pending pods ---- */

ms_rc ms_queue_add(ms_queue *q, ms_pod *pod, double now) {
    uint64_t uid = pod->meta.uid_hash;
    if (ms_map_has(&q->by_uid, uid)) return MS_EEXIST;
    entry *e = calloc(1, sizeof *e);
    if (!e) return MS_ENOMEM;
    if (ms_map_put(&q->by_uid, uid, e) != 0) {
        free(e);
        return MS_ENOMEM;
    }
    e->qp.pod = ms_pod_ref(pod);
    e->qp.timestamp = now;
    e->qp.heap_index = -1;
    refresh_backoff(q, e);
    q->event = QE_POD_ADD;
    to_active(q, e, now);
    if (pod->nominated_node_name != MS_STR_NONE && !e->qp.gated) ms_queue_add_nominated(q, pod, MS_STR_NONE);
    return MS_OK;
}

ms_rc ms_queue_update(ms_queue *q, ms_pod *new_pod, double now) {
    entry *e = ms_map_get(&q->by_uid, new_pod->meta.uid_hash);
    if (!e) return ms_queue_add(q, new_pod, now);
    if (e->qp.where == MS_QW_IN_FLIGHT) {
        const ms_pod *latest = e->pending ? e->pending : e->qp.pod;
        if (latest == new_pod) return MS_OK;
        nom_update(q, latest, new_pod);
        ms_pod_ref(new_pod);
        ms_pod_unref(e->pending);
        e->pending = new_pod;
        return MS_OK;
    }
    ms_pod *old = e->qp.pod;
    if (old == new_pod) return MS_OK;
    /* A gated pod is not nominated (below: once it is let in). */
    if (!e->qp.gated) nom_update(q, old, new_pod);
    e->qp.pod = ms_pod_ref(new_pod);
    switch (e->qp.where) {
    case MS_QW_ACTIVE:
        ms_heap_fix(&q->active, e);
        break;
    case MS_QW_BACKOFF:
        ms_heap_fix(&q->backoff, e);
        break;
    case MS_QW_UNSCHEDULABLE:
        /* A status-only change (the scheduler's own condition patch, for
         * one) leaves the pod where it is. */
        if (old->spec_hash && old->spec_hash == new_pod->spec_hash &&
            old->node_name == new_pod->node_name)
            break;
        bool was_gated = e->qp.gated;
        unsched_remove(q, e);
        q->event = QE_POD_UPDATE;
        requeue(q, e, now);
        if (was_gated && !e->qp.gated && new_pod->nominated_node_name != MS_STR_NONE)
            ms_queue_add_nominated(q, new_pod, MS_STR_NONE);
        break;
    default:
        break;
    }
    ms_pod_unref(old);
    return MS_OK;
}

ms_rc ms_queue_delete(ms_queue *q, const ms_pod *pod) {
    uint64_t uid = pod->meta.uid_hash;
    nom_delete_uid(q, uid);
    entry *e = ms_map_del(&q->by_uid, uid);
    if (!e) return MS_ENOENT;
    switch (e->qp.where) {
    case MS_QW_ACTIVE:
        ms_heap_remove(&q->active, e);
        break;
    case MS_QW_BACKOFF:
        ms_heap_remove(&q->backoff, e);
        break;
    case MS_QW_UNSCHEDULABLE:
        unsched_remove(q, e);
        break;
    case MS_QW_IN_FLIGHT:
        /* Its owner still holds it: freed when handed back. */
        e->deleted = true;
        ms_pod_unref(e->pending);
        e->pending = NULL;
        return MS_OK;
    default:
        break;
    }
    entry_free(e);
    return MS_OK;
}

const ms_queued_pod *ms_queue_get(const ms_queue *q, uint64_t uid_hash) {
    const entry *e = ms_map_get(&q->by_uid, uid_hash);
    return e ? &e->qp : NULL;
}

/* ---- scheduling cycle ---- */

ms_queued_pod *ms_queue_pop(ms_queue *q, double now) {
    entry *e = ms_heap_pop(&q->active);
    if (!e) return NULL;
    q->cycle++;
    e->qp.attempts++;
    if (e->qp.attempts == 1) e->qp.initial_attempt = now;
    e->qp.where = MS_QW_IN_FLIGHT;
    e->prev = NULL;
    e->next = q->flight_head;
    if (e->next) e->next->prev = e;
    q->flight_head = e;
    q->nflight++;
    return &e->qp;
}

/* Takes a handed-back entry off the in-flight list. False when it was
 * deleted meanwhile (then it is freed) or is not in flight at all. */
static bool land(ms_queue *q, entry *e, double now) {
    if (e->qp.where != MS_QW_IN_FLIGHT) return false;
    if (e->prev) e->prev->next = e->next;
    else q->flight_head = e->next;
    if (e->next) e->next->prev = e->prev;
    e->prev = e->next = NULL;
    q->nflight--;
    e->qp.where = MS_QW_NONE;
    if (e->deleted) {
        entry_free(e);
        return false;
    }
    e->qp.timestamp = now;
    refresh_backoff(q, e);
    return true;
}

/* An update that arrived in flight: the pod goes back with the new object. */
static bool apply_pending(entry *e) {
    if (!e->pending) return false;
    ms_pod_unref(e->qp.pod);
    e->qp.pod = e->pending;
    e->pending = NULL;
    return true;
}

void ms_queue_add_unschedulable(ms_queue *q, ms_queued_pod *qp, uint64_t cycle, double now) {
    entry *e = entry_of(qp);
    if (!land(q, e, now)) return;
    q->event = QE_ATTEMPT_FAILURE;
    if (apply_pending(e) || q->move_request_cycle >= (int64_t)cycle) requeue(q, e, now);
    else unsched_insert(q, e, now, false, 0);
}

void ms_queue_add_gated(ms_queue *q, ms_queued_pod *qp, ms_event_mask interest, double now) {
    entry *e = entry_of(qp);
    if (!land(q, e, now)) return;
    q->event = QE_ATTEMPT_FAILURE;
    nom_delete_uid(q, e->qp.pod->meta.uid_hash);
    if (apply_pending(e)) {
        e->qp.gated = true;        /* no backoff: PreEnqueue decides at once */
        requeue(q, e, now);
    } else {
        unsched_insert(q, e, now, true, interest);
    }
}

void ms_queue_add_backoff(ms_queue *q, ms_queued_pod *qp, double now) {
    entry *e = entry_of(qp);
    if (!land(q, e, now)) return;
    q->event = QE_ATTEMPT_FAILURE;
    apply_pending(e);
    to_backoff(q, e, now);
}

void ms_queue_done(ms_queue *q, ms_queued_pod *qp) {
    entry *e = entry_of(qp);
    if (!land(q, e, 0)) return;
    uint64_t uid = e->qp.pod->meta.uid_hash;
    nom_delete_uid(q, uid);
    ms_map_del(&q->by_uid, uid);
    entry_free(e);
}

/* ---- moves ---- */

/* Detaches pods from the unschedulable lists into a chain (through gnext)
 * first, then requeues them: a pod that PreEnqueue refuses again goes back
 * among the unschedulable pods and must not be seen twice. */
static void requeue_chain(ms_queue *q, entry *chain, double now) {
    for (entry *e = chain, *n; e; e = n) {
        n = e->gnext;
        e->gnext = e->gprev = NULL;
        e->qp.where = MS_QW_NONE;
        requeue(q, e, now);
    }
}

void ms_queue_move_on_event(ms_queue *q, ms_event_mask ev, double now) {
    ms_queue_move_on_event_if(q, ev, now, NULL, NULL);
}

void ms_queue_move_on_event_if(ms_queue *q, ms_event_mask ev, double now,
                               bool (*helps)(void *ctx, const ms_queued_pod *qp), void *ctx) {
    q->move_request_cycle = (int64_t)q->cycle;
    q->event = cluster_event(ev);
    entry *chain = NULL, **tail = &chain;
    for (uint32_t g = 0; g < q->ngroups; g++) {
        group *gr = &q->groups[g];
        if (!(gr->mask & ev) || gr->count == 0) continue;
        if (helps) {
            for (entry *e = gr->head, *n; e; e = n) {
                n = e->gnext;
                if (!e->qp.gated && !helps(ctx, &e->qp)) continue;
                unsched_remove(q, e);
                *tail = e;
                tail = &e->gnext;
            }
            continue;
        }
        for (entry *e = gr->head; e; e = e->gnext) unlink_time(q, e);
        *tail = gr->head;
        tail = &gr->tail->gnext;
        gr->head = gr->tail = NULL;
        gr->count = 0;
    }
    requeue_chain(q, chain, now);
}

void ms_queue_flush(ms_queue *q, double now) {
    q->event = QE_BACKOFF_COMPLETE;
    for (entry *e; (e = ms_heap_peek(&q->backoff)) && !backing_off(e, now);) {
        ms_heap_pop(&q->backoff);
        e->qp.where = MS_QW_NONE;
        to_active(q, e, now);
    }
    entry *chain = NULL, **tail = &chain;
    while (q->unsched_head && now - q->unsched_head->qp.unschedulable_since > q->cfg.max_unschedulable) {
        entry *e = q->unsched_head;
        unsched_remove(q, e);
        *tail = e;
        tail = &e->gnext;
    }
    q->event = QE_UNSCHEDULABLE_TIMEOUT;
    requeue_chain(q, chain, now);
}

/* ---- introspection ---- */

void ms_queue_reorder(ms_queue *q) { ms_heap_reorder(&q->active); }

uint64_t ms_queue_cycle(const ms_queue *q) { return q->cycle; }
uint32_t ms_queue_len_active(const ms_queue *q) { return ms_heap_len(&q->active); }
uint32_t ms_queue_len_backoff(const ms_queue *q) { return ms_heap_len(&q->backoff); }
uint32_t ms_queue_len_unschedulable(const ms_queue *q) { return q->nunsched - q->ngated; }
uint32_t ms_queue_len_gated(const ms_queue *q) { return q->ngated; }
uint32_t ms_queue_len_in_flight(const ms_queue *q) { return q->nflight; }

double ms_queue_next_backoff(const ms_queue *q) {
    const entry *e = ms_heap_peek(&q->backoff);
    return e ? e->qp.backoff_expiry : 0;
}

void ms_queue_each(ms_queue *q, void (*fn)(void *ctx, const ms_queued_pod *qp), void *ctx) {
    for (uint32_t i = 0; i < q->active.len; i++) fn(ctx, ms_heap_at(&q->active, i));
    for (uint32_t i = 0; i < q->backoff.len; i++) fn(ctx, ms_heap_at(&q->backoff, i));
    for (const entry *e = q->unsched_head; e; e = e->next) fn(ctx, &e->qp);
    for (const entry *e = q->flight_head; e; e = e->next)
        if (!e->deleted) fn(ctx, &e->qp);
}

void ms_queue_each_incoming(const ms_queue *q, void (*fn)(void *ctx, const char *queue, const char *event, uint64_t n),
                            void *ctx) {
    static const char *const queues[] = {"active", "backoff", "unschedulable"};
    for (int k = 0; k < 3; k++)
        for (int ev = 0; ev < QE_COUNT; ev++)
            if (q->incoming[k][ev]) fn(ctx, queues[k], event_names[ev], q->incoming[k][ev]);
}
