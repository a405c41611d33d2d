/* Cluster deltas into the cache and the queue (upstream's
 * eventhandlers.go): nodes, namespaces, PodDisruptionBudgets and pods,
 * each moving the unschedulable pods an event may help. */
#include "moonsched/scheduler.h"

#include <string.h>

#include "moonsched/nodeinfo.h"
#include "base/clock.h"
#include "scheduler/scheduler_metrics.h"
#include "scheduler/scheduler_priv.h"
#include "backend/queue.h"
#include "backend/cache.h"
#include "api/pdb_set.h"

/* ---- node deltas ----------------------------------------------------- */

static bool labels_equal(const ms_labels *a, const ms_labels *b) {
    if (a->n != b->n) return false;
    for (uint32_t i = 0; i < a->n; i++)
        if (a->items[i].key != b->items[i].key || a->items[i].value != b->items[i].value)
            return false;
    return true;
}

static bool taints_equal(const ms_node *a, const ms_node *b) {
    if (a->ntaints != b->ntaints) return false;
    for (uint32_t i = 0; i < a->ntaints; i++) {
        const ms_taint *x = &a->taints[i], *y = &b->taints[i];
        if (x->key != y->key || x->value != y->value || x->effect != y->effect) return false;
    }
    return true;
}

/* Status of a condition type, the last entry winning as in upstream's map;
 * 0xff when absent. */
static int condition_status(const ms_node *n, ms_str type) {
    int status = 0xff;
    for (uint32_t i = 0; i < n->nconditions; i++)
        if (n->conditions[i].type == type) status = n->conditions[i].status;
    return status;
}

static bool conditions_equal(const ms_node *a, const ms_node *b) {
    for (uint32_t i = 0; i < a->nconditions; i++)
        if (condition_status(a, a->conditions[i].type) != condition_status(b, a->conditions[i].type))
            return false;
    for (uint32_t i = 0; i < b->nconditions; i++)
        if (condition_status(a, b->conditions[i].type) == 0xff) return false;
    return true;
}

/* upstream nodeSchedulingPropertiesChange, as a mask of every change. */
static ms_event_mask node_change_events(const ms_node *old, const ms_node *nw) {
    ms_event_mask ev = 0;
    if (old->unschedulable && !nw->unschedulable) ev |= MS_EV_NODE_UNSCHEDULABLE;
    if (!ms_resources_equal(&old->allocatable, &nw->allocatable)) ev |= MS_EV_NODE_ALLOCATABLE;
    if (!labels_equal(&old->meta.labels, &nw->meta.labels)) ev |= MS_EV_NODE_LABEL;
    if (!taints_equal(old, nw)) ev |= MS_EV_NODE_TAINT;
    if (!conditions_equal(old, nw)) ev |= MS_EV_NODE_CONDITION;
    return ev;
}

static void node_update(ms_scheduler *s, ms_node *node, double now);

static void node_add(ms_scheduler *s, ms_node *node, double now) {
    const ms_node_info *ni = ms_cache_node_info(s->cache, node->meta.name);
    if (ni && ni->node) {
        node_update(s, node, now);
        return;
    }
    if (ms_cache_add_node(s->cache, node) != MS_OK) return;
    ms_queue_move_on_event(s->queue, MS_EV_NODE_ADD, now);
}

static void node_update(ms_scheduler *s, ms_node *node, double now) {
    const ms_node_info *ni = ms_cache_node_info(s->cache, node->meta.name);
    if (!ni || !ni->node) {
        if (ms_cache_add_node(s->cache, node) == MS_OK)
            ms_queue_move_on_event(s->queue, MS_EV_NODE_ADD, now);
        return;
    }
    /* Compared before the update: the cache drops its old node then. */
    ms_event_mask ev = node_change_events(ni->node, node);
    if (ms_cache_update_node(s->cache, node) != MS_OK) return;
    if (ev) ms_queue_move_on_event(s->queue, ev, now);
}

static void node_delete(ms_scheduler *s, ms_str name, double now) {
    if (ms_cache_remove_node(s->cache, name) != MS_OK) return;
    ms_queue_move_on_event(s->queue, MS_EV_NODE_DELETE, now);
}

/* ---- namespace deltas ------------------------------------------------ */

static bool same_labels(const ms_namespace *a, const ms_namespace *b) {
    return a && b && a->meta.labels.n == b->meta.labels.n &&
           (a->meta.labels.n == 0 || memcmp(a->meta.labels.items, b->meta.labels.items,
                                            a->meta.labels.n * sizeof(ms_label)) == 0);
}

void ms_scheduler_namespace_add(ms_scheduler *s, ms_namespace *ns, double now) {
    const ms_namespace *old = ms_namespaces_get(&s->namespaces, ns->meta.name);
    bool changed = !same_labels(old, ns);
    if (ms_namespaces_set(&s->namespaces, ns) != MS_OK) return;
    if (changed) ms_queue_move_on_event(s->queue, MS_EV_NAMESPACE, now);
}

void ms_scheduler_namespace_delete(ms_scheduler *s, ms_str name, double now) {
    if (ms_namespaces_remove(&s->namespaces, name) != MS_OK) return;
    ms_queue_move_on_event(s->queue, MS_EV_NAMESPACE, now);
}

/* ---- PodDisruptionBudget deltas ------------------------------------- */

void ms_scheduler_pdb_add(ms_scheduler *s, ms_pdb *pdb, double now) {
    (void)now;
    ms_pdb_set_update(s->pdbs, pdb);
}

void ms_scheduler_pdb_update(ms_scheduler *s, ms_pdb *pdb, double now) {
    ms_scheduler_pdb_add(s, pdb, now);
}

void ms_scheduler_pdb_delete(ms_scheduler *s, ms_str namespace_, ms_str name, double now) {
    (void)now;
    ms_pdb_set_delete(s->pdbs, namespace_, name);
}

uint32_t ms_scheduler_pdb_count(const ms_scheduler *s) { return ms_pdb_set_len(s->pdbs); }

/* ---- pod deltas ------------------------------------------------------ */

/* A pod with nodeName (add or update): into the cache, confirming our
 * assumption if it is one; out of the queue if it was pending there. */
static void assigned_pod_upsert(ms_scheduler *s, ms_pod *pod, double now) {
    uint64_t uid = pod->meta.uid_hash;
    /* A pod bound by someone else while it waited in our queue. Our own
     * binding pods are not in the queue: their record holds the entry. */
    if (!ms_sched_binding_record(s, uid)) ms_queue_delete(s->queue, pod);
    ms_pod *old = ms_cache_get_pod(s->cache, uid);
    bool was_bound = old && !ms_cache_is_assumed(s->cache, old);
    if (pod->meta.deletion != 0 || ms_pod_is_terminal(pod)) ms_sched_deletion_seen(s, uid);
    if (ms_pod_is_terminal(pod)) {
        /* A terminal pod releases what it held. */
        if (old && ms_cache_remove_pod(s->cache, old) == MS_OK)
            ms_queue_move_on_event(s->queue, MS_EV_ASSIGNED_POD_DELETE, now);
        return;
    }
    ms_rc rc = was_bound ? ms_cache_update_pod(s->cache, old, pod) : ms_cache_add_pod(s->cache, pod);
    if (rc == MS_OK)
        ms_queue_move_on_event(s->queue, was_bound ? MS_EV_ASSIGNED_POD_UPDATE : MS_EV_ASSIGNED_POD_ADD,
                               now);
}

static bool responsible_for(const ms_scheduler *s, const ms_pod *pod) {
    return ms_scheduler_profile_index(s, pod->scheduler_name) >= 0;
}

static void pod_add(ms_scheduler *s, ms_pod *pod, double now) {
    if (pod->node_name != MS_STR_NONE) {
        assigned_pod_upsert(s, pod, now);
        return;
    }
    if (ms_pod_is_terminal(pod) || !responsible_for(s, pod)) return;
    /* An informer replay of a pod we are binding or have bound (assumed,
     * not confirmed yet): not pending any more. */
    if (ms_sched_binding_record(s, pod->meta.uid_hash) || ms_cache_get_pod(s->cache, pod->meta.uid_hash))
        return;
    if (ms_queue_add(s->queue, pod, now) == MS_EEXIST) ms_queue_update(s->queue, pod, now);
}

static void pod_update(ms_scheduler *s, ms_pod *pod, double now) {
    uint64_t uid = pod->meta.uid_hash;
    ms_inflight *r = ms_sched_binding_record(s, uid);
    if (pod->node_name != MS_STR_NONE) {
        assigned_pod_upsert(s, pod, now);
        return;
    }
    if (r) {
        /* Being bound. The queue keeps the newest object for the in-flight
         * entry: a retry after a failed bind uses it (upstream skips
         * updates of assumed pods otherwise). */
        ms_queue_update(s->queue, pod, now);
        return;
    }
    if (ms_pod_is_terminal(pod) || !responsible_for(s, pod)) {
        ms_queue_delete(s->queue, pod);
        return;
    }
    /* Assumed after a successful bind, waiting for the informer's bound
     * version: the queue must not take it back. */
    if (ms_cache_get_pod(s->cache, uid)) return;
    if (ms_queue_update(s->queue, pod, now) == MS_ENOENT) ms_queue_add(s->queue, pod, now);
}

static void pod_delete(ms_scheduler *s, const ms_pod *pod, double now) {
    uint64_t uid = pod->meta.uid_hash;
    ms_sched_deletion_seen(s, uid);
    ms_inflight *r = ms_sched_binding_record(s, uid);
    if (r) r->deleted = true;
    if (r && r->waiting) {
        /* upstream rejects a waiting pod that is deleted. */
        ms_sched_reject_waiting(s, r, "pod deleted while waiting on Permit", true, now);
        ms_sched_flush_permits(s, now);
        r = NULL;
    } else if (r && r->prebinding) {
        /* upstream's checkBindings: "pod does not exist any more" */
        ms_sched_prebind_fail(s, r, "pod does not exist any more", true, now);
        ms_sched_flush_permits(s, now);
        r = NULL;
    }
    /* An unbound pod in the cache: assumed, its bind answered, and the
     * update that would have confirmed it never came (a relist after 410
     * reports the deletion with the last state the informer saw). Assumed
     * pods never expire: left there, it would hold its node's resources
     * for good. (With a bind in flight, the bind's outcome forgets it.) */
    bool held = pod->node_name != MS_STR_NONE || !r;
    if (held && ms_cache_get_pod(s->cache, uid) && ms_cache_remove_pod(s->cache, pod) == MS_OK)
        ms_queue_move_on_event(s->queue, MS_EV_ASSIGNED_POD_DELETE, now);
    /* The queue keeps an in-flight entry valid for its record. */
    if (pod->node_name == MS_STR_NONE) ms_queue_delete(s->queue, pod);
}

/* ---- the public entry points, timed ------------------------------------ */

/* scheduler_event_handling_duration_seconds: no clock is read when the
 * scheduler records no metrics. */
static double event_start(const ms_scheduler *s) { return s->metrics ? ms_clock_monotonic() : 0; }
static void event_done(ms_scheduler *s, ms_sched_event ev, double t0) {
    if (s->metrics) ms_sched_metrics_event(s->metrics, ev, ms_clock_monotonic() - t0);
}

void ms_scheduler_node_add(ms_scheduler *s, ms_node *node, double now) {
    double t0 = event_start(s);
    node_add(s, node, now);
    event_done(s, MS_SEV_NODE_ADD, t0);
}

void ms_scheduler_node_update(ms_scheduler *s, ms_node *node, double now) {
    double t0 = event_start(s);
    node_update(s, node, now);
    event_done(s, MS_SEV_NODE_UPDATE, t0);
}

void ms_scheduler_node_delete(ms_scheduler *s, ms_str name, double now) {
    double t0 = event_start(s);
    node_delete(s, name, now);
    event_done(s, MS_SEV_NODE_DELETE, t0);
}

void ms_scheduler_pod_add(ms_scheduler *s, ms_pod *pod, double now) {
    double t0 = event_start(s);
    bool assigned = pod->node_name != MS_STR_NONE;
    pod_add(s, pod, now);
    event_done(s, assigned ? MS_SEV_ASSIGNED_POD_ADD : MS_SEV_UNSCHEDULED_POD_ADD, t0);
}

void ms_scheduler_pod_update(ms_scheduler *s, ms_pod *pod, double now) {
    double t0 = event_start(s);
    bool assigned = pod->node_name != MS_STR_NONE;
    pod_update(s, pod, now);
    event_done(s, assigned ? MS_SEV_ASSIGNED_POD_UPDATE : MS_SEV_UNSCHEDULED_POD_UPDATE, t0);
}

void ms_scheduler_pod_delete(ms_scheduler *s, const ms_pod *pod, double now) {
    double t0 = event_start(s);
    bool assigned = pod->node_name != MS_STR_NONE;
    pod_delete(s, pod, now);
    event_done(s, assigned ? MS_SEV_ASSIGNED_POD_DELETE : MS_SEV_UNSCHEDULED_POD_DELETE, t0);
}
