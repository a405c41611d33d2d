#include "testutil.h"

#include <time.h>

#include "backend/queue.h"

/* Pods built by hand: uid_hash is the identity the queue keys on. */
static ms_pod *mkpod(uint64_t uid, int32_t priority) {
    ms_pod *p = ms_pod_alloc();
    assert_non_null(p);
    p->meta.uid_hash = uid;
    p->meta.creation = 1000;
    p->priority = priority;
    p->has_priority = true;
    return p;
}

static int refs(ms_pod *p) {
    return atomic_load(&p->refs);
}

static ms_queue *newq(void) {
    ms_queue_config c;
    ms_queue_config_default(&c);
    ms_queue *q = ms_queue_new(&c);
    assert_non_null(q);
    return q;
}

static ms_queue_where where(const ms_queue *q, uint64_t uid) {
    const ms_queued_pod *qp = ms_queue_get(q, uid);
    return qp ? (ms_queue_where)qp->where : MS_QW_NONE;
}

/* Adds a pod and drops the test's own reference: the queue holds it. */
static void add(ms_queue *q, uint64_t uid, int32_t prio, double now) {
    ms_pod *p = mkpod(uid, prio);
    assert_int_equal(ms_queue_add(q, p, now), MS_OK);
    ms_pod_unref(p);
}

/* Pops the head and sends it to the unschedulable pods with `interest`. */
static void fail_cycle(ms_queue *q, uint64_t uid, ms_event_mask interest, double now) {
    ms_queued_pod *qp = ms_queue_pop(q, now);
    assert_non_null(qp);
    assert_int_equal(qp->pod->meta.uid_hash, uid);
    qp->interest = interest;
    qp->unschedulable_plugins = 1;
    ms_queue_add_unschedulable(q, qp, ms_queue_cycle(q), now);
}

static void test_defaults(void **state) {
    (void)state;
    ms_queue_config c;
    ms_queue_config_default(&c);
    assert_true(c.initial_backoff == 1);
    assert_true(c.max_backoff == 10);
    assert_true(c.max_unschedulable == 300);
    assert_null(c.less);
    assert_null(c.pre_enqueue);
    ms_queue *q = ms_queue_new(NULL);
    assert_non_null(q);
    assert_null(ms_queue_pop(q, 0));
    assert_int_equal(ms_queue_cycle(q), 0);
    assert_true(ms_queue_next_backoff(q) == 0);
    ms_queue_free(q);
}

/* PrioritySort: higher priority first, then earlier timestamp, then the
 * order of insertion. */
static void test_order_priority_then_timestamp(void **state) {
    (void)state;
    ms_queue *q = newq();
    add(q, 1, 0, 10);
    add(q, 2, 100, 12);
    add(q, 3, 100, 11);
    add(q, 4, -5, 1);
    add(q, 5, 0, 9);
    add(q, 6, 0, 9);    /* same priority and timestamp as 5: insertion order */
    add(q, 7, 2000000000, 50);
    assert_int_equal(ms_queue_len_active(q), 7);
    uint64_t want[] = {7, 3, 2, 5, 6, 1, 4};
    for (int i = 0; i < 7; i++) {
        ms_queued_pod *qp = ms_queue_pop(q, 100);
        assert_non_null(qp);
        assert_int_equal(qp->pod->meta.uid_hash, want[i]);
        assert_int_equal(qp->where, MS_QW_IN_FLIGHT);
        ms_queue_done(q, qp);
    }
    assert_null(ms_queue_pop(q, 100));
    assert_int_equal(ms_queue_cycle(q), 7);
    ms_queue_free(q);
}

static void test_pop_counts_attempts_and_cycles(void **state) {
    (void)state;
    ms_queue *q = newq();
    add(q, 1, 0, 5);
    ms_queued_pod *qp = ms_queue_pop(q, 7);
    assert_int_equal(qp->attempts, 1);
    assert_true(qp->initial_attempt == 7);
    assert_true(qp->timestamp == 5);
    assert_int_equal(ms_queue_cycle(q), 1);
    assert_int_equal(ms_queue_len_in_flight(q), 1);
    ms_queue_add_backoff(q, qp, 8);
    assert_int_equal(ms_queue_len_in_flight(q), 0);
    ms_queue_flush(q, 100);
    qp = ms_queue_pop(q, 100);
    assert_int_equal(qp->attempts, 2);
    assert_true(qp->initial_attempt == 7);   /* only the first pop sets it */
    assert_true(qp->timestamp == 8);         /* refreshed when handed back */
    assert_int_equal(ms_queue_cycle(q), 2);
    ms_queue_done(q, qp);
    assert_null(ms_queue_get(q, 1));
    ms_queue_free(q);
}

/* upstream's calculateBackoffDuration: 1, 2, 4, 8, then capped at 10. */
static void test_backoff_growth(void **state) {
    (void)state;
    ms_queue *q = newq();
    add(q, 1, 0, 0);
    double want[] = {1, 2, 4, 8, 10, 10, 10};
    double now = 0;
    for (int i = 0; i < 7; i++) {
        ms_queued_pod *qp = ms_queue_pop(q, now);
        assert_non_null(qp);
        assert_int_equal(qp->attempts, (uint32_t)i + 1);
        ms_queue_add_backoff(q, qp, now);
        assert_int_equal(where(q, 1), MS_QW_BACKOFF);
        assert_true(ms_queue_next_backoff(q) - now == want[i]);
        /* not a moment early */
        ms_queue_flush(q, now + want[i] - 0.001);
        assert_int_equal(ms_queue_len_active(q), 0);
        assert_int_equal(ms_queue_len_backoff(q), 1);
        now += want[i];
        ms_queue_flush(q, now);
        assert_int_equal(ms_queue_len_active(q), 1);
        assert_int_equal(ms_queue_len_backoff(q), 0);
    }
    ms_queue_free(q);
}

static void test_backoff_custom_durations(void **state) {
    (void)state;
    ms_queue_config c;
    ms_queue_config_default(&c);
    c.initial_backoff = 0.5;
    c.max_backoff = 3;
    ms_queue *q = ms_queue_new(&c);
    add(q, 1, 0, 0);
    double want[] = {0.5, 1, 2, 3, 3};
    for (int i = 0; i < 5; i++) {
        ms_queued_pod *qp = ms_queue_pop(q, 100.0 * i);
        ms_queue_add_backoff(q, qp, 100.0 * i);
        assert_true(ms_queue_next_backoff(q) - 100.0 * i == want[i]);
        ms_queue_flush(q, 100.0 * i + 50);
    }
    ms_queue_free(q);
}

/* The backoff heap pops in order of expiry, whatever the order of entry. */
static void test_backoff_queue_ordered_by_expiry(void **state) {
    (void)state;
    ms_queue *q = newq();
    ms_queued_pod *qp;
    add(q, 1, 30, 0);
    add(q, 2, 20, 0);
    add(q, 3, 10, 0);
    ms_queued_pod *a = ms_queue_pop(q, 0), *b = ms_queue_pop(q, 0), *c = ms_queue_pop(q, 0);
    a->attempts = 3;   /* as if tried before: backoff 4 */
    c->attempts = 2;   /* backoff 2 */
    ms_queue_add_backoff(q, a, 10);
    ms_queue_add_backoff(q, b, 10);
    ms_queue_add_backoff(q, c, 10);
    assert_true(ms_queue_next_backoff(q) == 11);
    ms_queue_flush(q, 11);
    qp = ms_queue_pop(q, 11);
    assert_int_equal(qp->pod->meta.uid_hash, 2);
    ms_queue_done(q, qp);
    assert_true(ms_queue_next_backoff(q) == 12);
    ms_queue_flush(q, 12);
    qp = ms_queue_pop(q, 12);
    assert_int_equal(qp->pod->meta.uid_hash, 3);
    ms_queue_done(q, qp);
    assert_true(ms_queue_next_backoff(q) == 14);
    ms_queue_free(q);
}

/* upstream's moveRequestCycle: a move request during (or after the start of)
 * the pod's cycle sends it to backoffQ; one before its cycle does not. */
static void test_move_request_cycle(void **state) {
    (void)state;
    ms_queue *q = newq();
    add(q, 1, 30, 0);
    add(q, 2, 20, 0);
    add(q, 3, 10, 0);

    /* pod 1: a move request arrives while it is in flight */
    ms_queued_pod *qp = ms_queue_pop(q, 1);
    uint64_t cycle1 = ms_queue_cycle(q);
    assert_int_equal(cycle1, 1);
    ms_queue_move_on_event(q, MS_EV_NODE_ADD, 1);
    qp->interest = MS_EV_NODE_TAINT;
    ms_queue_add_unschedulable(q, qp, cycle1, 1);
    assert_int_equal(where(q, 1), MS_QW_BACKOFF);

    /* pod 2: no move request since its cycle started */
    qp = ms_queue_pop(q, 2);
    uint64_t cycle2 = ms_queue_cycle(q);
    qp->interest = MS_EV_NODE_TAINT;
    ms_queue_add_unschedulable(q, qp, cycle2, 2);
    assert_int_equal(where(q, 2), MS_QW_UNSCHEDULABLE);

    /* pod 3: the move request came before its pop (cycle 2 < 3) */
    ms_queue_move_on_event(q, MS_EV_NODE_ADD, 3);
    qp = ms_queue_pop(q, 3);
    uint64_t cycle3 = ms_queue_cycle(q);
    assert_int_equal(cycle3, 3);
    qp->interest = MS_EV_NODE_TAINT;
    ms_queue_add_unschedulable(q, qp, cycle3, 3);
    assert_int_equal(where(q, 3), MS_QW_UNSCHEDULABLE);
    /* a failure reported against an older cycle counts the later request */
    assert_int_equal(ms_queue_len_unschedulable(q), 2);
    assert_int_equal(ms_queue_len_backoff(q), 1);
    ms_queue_free(q);
}

/* Only events one of the pod's rejecting plugins cares about move it; no
 * recorded interest means any event. */
static void test_event_interest_filtering(void **state) {
    (void)state;
    ms_queue *q = newq();
    add(q, 1, 40, 0);
    add(q, 2, 30, 0);
    add(q, 3, 20, 0);
    add(q, 4, 10, 0);
    fail_cycle(q, 1, MS_EV_NODE_ADD | MS_EV_NODE_ALLOCATABLE, 0);
    fail_cycle(q, 2, MS_EV_ASSIGNED_POD_DELETE, 0);
    fail_cycle(q, 3, 0, 0);
    fail_cycle(q, 4, MS_EV_NODE_TAINT | MS_EV_NODE_ADD, 0);
    assert_int_equal(ms_queue_len_unschedulable(q), 4);

    struct { ms_event_mask ev; double now; uint64_t moved; ms_queue_where to; } steps[] = {
        {MS_EV_NODE_LABEL, 0.5, 3, MS_QW_BACKOFF},          /* only the pod without interest */
        {MS_EV_NAMESPACE, 0.6, 0, MS_QW_NONE},              /* nothing left that cares */
        {MS_EV_ASSIGNED_POD_DELETE, 5, 2, MS_QW_ACTIVE},    /* backoff (1 s) is over */
    };
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        uint32_t before = ms_queue_len_unschedulable(q);
        ms_queue_move_on_event(q, steps[i].ev, steps[i].now);
        if (steps[i].moved) {
            assert_int_equal(ms_queue_len_unschedulable(q), before - 1);
            assert_int_equal(where(q, steps[i].moved), steps[i].to);
        } else {
            assert_int_equal(ms_queue_len_unschedulable(q), before);
        }
    }
    /* one event that two pods with different interests share */
    ms_queue_move_on_event(q, MS_EV_NODE_ADD, 6);
    assert_int_equal(where(q, 1), MS_QW_ACTIVE);
    assert_int_equal(where(q, 4), MS_QW_ACTIVE);
    assert_int_equal(ms_queue_len_unschedulable(q), 0);
    assert_int_equal(ms_queue_len_active(q), 3);
    assert_int_equal(ms_queue_len_backoff(q), 1);
    ms_queue_free(q);
}

static void test_flush_backoff_and_long_unschedulable(void **state) {
    (void)state;
    ms_queue *q = newq();
    add(q, 1, 20, 0);
    add(q, 2, 10, 0);
    fail_cycle(q, 1, MS_EV_NODE_ADD, 10);   /* unschedulable since 10 */
    ms_queued_pod *qp = ms_queue_pop(q, 20);
    ms_queue_add_backoff(q, qp, 20);  /* backoff until 21 */

    ms_queue_flush(q, 20.5);
    assert_int_equal(where(q, 2), MS_QW_BACKOFF);
    ms_queue_flush(q, 21);
    assert_int_equal(where(q, 2), MS_QW_ACTIVE);

    /* exactly max_unschedulable is not longer than it */
    ms_queue_flush(q, 310);
    assert_int_equal(where(q, 1), MS_QW_UNSCHEDULABLE);
    ms_queue_flush(q, 310.001);
    assert_int_equal(where(q, 1), MS_QW_ACTIVE);
    assert_int_equal(ms_queue_len_unschedulable(q), 0);
    ms_queue_free(q);
}

/* A pod that waited long but is still backing off (a long backoff) goes to
 * backoffQ, not activeQ. */
static void test_flush_unschedulable_still_backing_off(void **state) {
    (void)state;
    ms_queue_config c;
    ms_queue_config_default(&c);
    c.max_unschedulable = 5;
    c.initial_backoff = 60;
    c.max_backoff = 60;
    ms_queue *q = ms_queue_new(&c);
    add(q, 1, 0, 0);
    add(q, 2, 0, 1);
    fail_cycle(q, 1, MS_EV_NODE_ADD, 0);
    fail_cycle(q, 2, MS_EV_NODE_ADD, 3);
    ms_queue_flush(q, 6);
    assert_int_equal(where(q, 1), MS_QW_BACKOFF);
    assert_int_equal(where(q, 2), MS_QW_UNSCHEDULABLE);
    ms_queue_flush(q, 60);
    assert_int_equal(where(q, 1), MS_QW_ACTIVE);
    assert_int_equal(where(q, 2), MS_QW_BACKOFF);
    ms_queue_free(q);
}

typedef struct gate {
    uint64_t refused;   /* uid refused while nonzero */
    int calls;
    ms_event_mask interest;   /* what a refusal waits for (0: the queue's default) */
    int became_gated;   /* refusals of a pod that was not gated before */
} gate;

static bool gate_fn(void *ctx, const ms_queued_pod *qp, ms_event_mask *interest) {
    gate *g = ctx;
    g->calls++;
    if (qp->pod->meta.uid_hash != g->refused) return true;
    *interest = g->interest;
    g->became_gated += !qp->gated;
    return false;
}

/* A queue whose PreEnqueue is g; events: pre_enqueue_events. */
static ms_queue *gated_queue(gate *g, ms_event_mask events) {
    ms_queue_config c;
    ms_queue_config_default(&c);
    c.pre_enqueue = gate_fn;
    c.pre_enqueue_ctx = g;
    c.pre_enqueue_events = events;
    ms_queue *q = ms_queue_new(&c);
    assert_non_null(q);
    return q;
}

static void test_pre_enqueue_gating(void **state) {
    (void)state;
    gate g = {.refused = 2};
    ms_queue *q = gated_queue(&g, 0);
    add(q, 1, 0, 0);
    add(q, 2, 100, 0);
    assert_int_equal(g.calls, 2);
    assert_int_equal(where(q, 2), MS_QW_UNSCHEDULABLE);
    assert_true(ms_queue_get(q, 2)->gated);
    assert_false(ms_queue_get(q, 1)->gated);
    /* upstream: a gated pod is not an unschedulable one */
    assert_int_equal(ms_queue_len_unschedulable(q), 0);
    assert_int_equal(ms_queue_len_gated(q), 1);
    assert_int_equal(g.became_gated, 1);

    /* never popped although it has the higher priority */
    ms_queued_pod *qp = ms_queue_pop(q, 1);
    assert_int_equal(qp->pod->meta.uid_hash, 1);
    ms_queue_done(q, qp);
    assert_null(ms_queue_pop(q, 1));

    /* an event checks it again: still refused, still waiting */
    ms_queue_move_on_event(q, MS_EV_NODE_ADD, 2);
    assert_int_equal(g.calls, 3);
    assert_true(ms_queue_get(q, 2)->gated);
    assert_true(ms_queue_get(q, 2)->unschedulable_since == 2);

    /* a flush before max_unschedulable does not ask again; after, it does */
    ms_queue_flush(q, 100);
    assert_int_equal(g.calls, 3);
    ms_queue_flush(q, 303);
    assert_int_equal(g.calls, 4);
    assert_int_equal(where(q, 2), MS_QW_UNSCHEDULABLE);

    /* lifted: the next event lets it in (never attempted: no backoff) */
    g.refused = 0;
    ms_queue_move_on_event(q, MS_EV_POLICY_RELOAD, 304);
    assert_int_equal(g.calls, 5);
    assert_int_equal(where(q, 2), MS_QW_ACTIVE);
    assert_false(ms_queue_get(q, 2)->gated);
    qp = ms_queue_pop(q, 305);
    assert_int_equal(qp->pod->meta.uid_hash, 2);
    ms_queue_done(q, qp);
    ms_queue_free(q);
}

/* An update of a gated pod checks it again; a backoff flush checks too. */
static void test_pre_enqueue_on_update_and_backoff(void **state) {
    (void)state;
    gate g = {.refused = 1};
    ms_queue *q = gated_queue(&g, MS_EV_POLICY_RELOAD);
    add(q, 1, 0, 0);
    assert_true(ms_queue_get(q, 1)->gated);
    /* not an event that can lift the gate: not even asked */
    ms_queue_move_on_event(q, MS_EV_NODE_ADD, 1);
    assert_int_equal(g.calls, 1);
    ms_pod *p = mkpod(1, 5);
    assert_int_equal(ms_queue_update(q, p, 2), MS_OK);
    assert_int_equal(g.calls, 2);
    assert_true(ms_queue_get(q, 1)->gated);
    assert_ptr_equal(ms_queue_get(q, 1)->pod, p);
    g.refused = 0;
    ms_pod_unref(p);
    p = mkpod(1, 6);
    ms_queue_update(q, p, 3);
    ms_pod_unref(p);
    assert_int_equal(where(q, 1), MS_QW_ACTIVE);

    /* in backoffQ it is not asked; on its way to activeQ it is */
    ms_queued_pod *qp = ms_queue_pop(q, 4);
    ms_queue_add_backoff(q, qp, 4);
    int calls = g.calls;
    g.refused = 1;
    ms_queue_flush(q, 5);
    assert_int_equal(g.calls, calls + 1);
    assert_int_equal(where(q, 1), MS_QW_UNSCHEDULABLE);
    assert_true(ms_queue_get(q, 1)->gated);
    ms_queue_free(q);
}

/* Gated pods (upstream's Gated flag): waiting for the events the refusing
 * plugin named, counted apart from the unschedulable ones, never
 * nominated; a status-only update leaves them, the update that lifts the
 * gate sends them to activeQ at once, nominated then. */
static void test_gated_pod_lifted_by_its_update(void **state) {
    (void)state;
    gate g = {.refused = 1, .interest = MS_EV_UNSCHEDULED_POD_UPDATE};
    ms_queue *q = gated_queue(&g, 0);
    ms_pod *p = mkpod(1, 1000);
    p->nominated_node_name = 5;
    p->spec_hash = 11;
    assert_int_equal(ms_queue_add(q, p, 0), MS_OK);
    ms_pod_unref(p);
    assert_true(ms_queue_get(q, 1)->gated);
    assert_int_equal(ms_queue_len_gated(q), 1);
    assert_int_equal(ms_queue_len_unschedulable(q), 0);
    assert_int_equal(ms_queue_nominated_count(q), 0);
    assert_int_equal(g.became_gated, 1);

    /* no cluster event is asked about it; nothing to pop */
    ms_queue_move_on_event(q, MS_EV_NODE_ADD | MS_EV_ASSIGNED_POD_DELETE | MS_EV_FORGET, 1);
    assert_int_equal(g.calls, 1);
    assert_null(ms_queue_pop(q, 1));

    /* a status-only update (same spec) leaves it where it is */
    p = mkpod(1, 1000);
    p->nominated_node_name = 5;
    p->spec_hash = 11;
    ms_queue_update(q, p, 2);
    ms_pod_unref(p);
    assert_int_equal(g.calls, 1);
    assert_true(ms_queue_get(q, 1)->gated);
    assert_int_equal(ms_queue_nominated_count(q), 0);

    /* one gate removed, one left: asked again, still gated, not reported twice */
    p = mkpod(1, 1000);
    p->spec_hash = 12;
    ms_queue_update(q, p, 3);
    ms_pod_unref(p);
    assert_int_equal(g.calls, 2);
    assert_true(ms_queue_get(q, 1)->gated);
    assert_int_equal(g.became_gated, 1);

    /* the last gate removed: activeQ at once, nominated now */
    g.refused = 0;
    p = mkpod(1, 1000);
    p->nominated_node_name = 5;
    p->spec_hash = 13;
    ms_queue_update(q, p, 4);
    ms_pod_unref(p);
    assert_int_equal(where(q, 1), MS_QW_ACTIVE);
    assert_false(ms_queue_get(q, 1)->gated);
    assert_int_equal(ms_queue_len_gated(q), 0);
    assert_int_equal(ms_queue_nominated_node(q, 1), 5);
    ms_queued_pod *qp = ms_queue_pop(q, 4);
    assert_non_null(qp);
    assert_int_equal(qp->pod->meta.uid_hash, 1);
    ms_queue_done(q, qp);
    ms_queue_free(q);
}

/* A bind the server refused because the pod is gated there: back among the
 * gated pods (no nomination); its update lets it in at once, its backoff
 * notwithstanding. An update that arrived in flight is looked at at once. */
static void test_add_gated_after_bind(void **state) {
    (void)state;
    gate g = {.interest = MS_EV_UNSCHEDULED_POD_UPDATE};
    ms_queue *q = gated_queue(&g, 0);
    add(q, 1, 0, 0);
    ms_queued_pod *qp = ms_queue_pop(q, 10);
    ms_queue_add_nominated(q, qp->pod, 3);
    ms_queue_add_gated(q, qp, MS_EV_UNSCHEDULED_POD_UPDATE, 10);
    assert_int_equal(where(q, 1), MS_QW_UNSCHEDULABLE);
    assert_true(ms_queue_get(q, 1)->gated);
    assert_int_equal(ms_queue_len_gated(q), 1);
    assert_int_equal(ms_queue_nominated_count(q), 0);
    ms_queue_move_on_event(q, MS_EV_NODE_ADD, 10.1);
    assert_int_equal(where(q, 1), MS_QW_UNSCHEDULABLE);
    ms_pod *p = mkpod(1, 0);
    p->spec_hash = 2;
    ms_queue_update(q, p, 10.2);
    ms_pod_unref(p);
    assert_int_equal(where(q, 1), MS_QW_ACTIVE);

    /* an update in flight: PreEnqueue decides when it lands */
    qp = ms_queue_pop(q, 11);
    p = mkpod(1, 0);
    ms_queue_update(q, p, 11);
    ms_pod_unref(p);
    g.refused = 1;
    ms_queue_add_gated(q, qp, MS_EV_UNSCHEDULED_POD_UPDATE, 11);
    assert_true(ms_queue_get(q, 1)->gated);
    g.refused = 0;
    qp = ms_queue_pop(q, 11);
    assert_null(qp);
    ms_queue_free(q);
}

static void test_update_in_each_queue(void **state) {
    (void)state;
    ms_queue *q = newq();
    add(q, 1, 10, 0);
    add(q, 2, 20, 0);
    add(q, 3, 30, 0);

    /* activeQ: replaced in place and re-ordered */
    ms_pod *p1 = mkpod(1, 50);
    assert_int_equal(ms_queue_update(q, p1, 1), MS_OK);
    assert_int_equal(refs(p1), 2);
    assert_int_equal(ms_queue_len_active(q), 3);
    ms_queued_pod *qp = ms_queue_pop(q, 1);
    assert_ptr_equal(qp->pod, p1);
    assert_true(qp->timestamp == 0);   /* an update keeps the queue timestamp */
    ms_queue_done(q, qp);
    assert_int_equal(refs(p1), 1);
    ms_pod_unref(p1);

    /* backoffQ: replaced in place, stays backing off */
    qp = ms_queue_pop(q, 2);
    assert_int_equal(qp->pod->meta.uid_hash, 3);
    ms_queue_add_backoff(q, qp, 2);
    ms_pod *p3 = mkpod(3, 31);
    ms_queue_update(q, p3, 2.5);
    assert_int_equal(where(q, 3), MS_QW_BACKOFF);
    assert_ptr_equal(ms_queue_get(q, 3)->pod, p3);
    assert_int_equal(ms_queue_len_backoff(q), 1);
    ms_pod_unref(p3);

    /* unschedulable, still backing off: to backoffQ */
    fail_cycle(q, 2, MS_EV_NODE_ADD, 3);
    ms_pod *p2 = mkpod(2, 21);
    ms_queue_update(q, p2, 3.5);
    ms_pod_unref(p2);
    assert_int_equal(where(q, 2), MS_QW_BACKOFF);
    assert_int_equal(ms_queue_len_unschedulable(q), 0);

    /* unschedulable, backoff over: to activeQ */
    ms_queue_flush(q, 10);
    qp = ms_queue_pop(q, 10);
    assert_int_equal(qp->pod->meta.uid_hash, 3);
    qp->interest = MS_EV_NODE_ADD;
    ms_queue_add_unschedulable(q, qp, ms_queue_cycle(q), 10);
    assert_int_equal(where(q, 3), MS_QW_UNSCHEDULABLE);
    p3 = mkpod(3, 32);
    ms_queue_update(q, p3, 100);
    ms_pod_unref(p3);
    assert_int_equal(where(q, 3), MS_QW_ACTIVE);

    /* the same object again changes nothing */
    const ms_pod *same = ms_queue_get(q, 3)->pod;
    assert_int_equal(ms_queue_update(q, (ms_pod *)same, 101), MS_OK);
    assert_int_equal(where(q, 3), MS_QW_ACTIVE);

    /* unknown pod: added, as upstream */
    ms_pod *p9 = mkpod(9, 0);
    assert_int_equal(ms_queue_update(q, p9, 102), MS_OK);
    ms_pod_unref(p9);
    assert_int_equal(where(q, 9), MS_QW_ACTIVE);
    ms_queue_free(q);
}

/* An update while in flight is kept until the pod is handed back; then the
 * pod returns with the new object and counts as moved. */
/* A status-only update (same spec_hash, same binding) leaves an
 * unschedulable pod where it is; a spec change moves it. */
static void test_update_status_only_keeps_unschedulable(void **state) {
    (void)state;
    ms_queue *q = newq();
    ms_pod *p = mkpod(1, 0);
    p->spec_hash = 42;
    assert_int_equal(ms_queue_add(q, p, 0), MS_OK);
    ms_pod_unref(p);
    ms_queued_pod *qp = ms_queue_pop(q, 0);
    ms_queue_add_unschedulable(q, qp, ms_queue_cycle(q), 0);
    assert_int_equal(where(q, 1), MS_QW_UNSCHEDULABLE);

    ms_pod *same = mkpod(1, 0);
    same->spec_hash = 42;
    assert_int_equal(ms_queue_update(q, same, 100), MS_OK);
    assert_int_equal(where(q, 1), MS_QW_UNSCHEDULABLE);
    assert_ptr_equal(ms_queue_get(q, 1)->pod, same);   /* the newest object is kept */
    ms_pod_unref(same);

    ms_pod *changed = mkpod(1, 0);
    changed->spec_hash = 43;
    assert_int_equal(ms_queue_update(q, changed, 100), MS_OK);
    assert_int_equal(where(q, 1), MS_QW_ACTIVE);
    ms_pod_unref(changed);

    /* hash 0 (unknown): any update counts as a change */
    qp = ms_queue_pop(q, 100);
    ms_queue_add_unschedulable(q, qp, ms_queue_cycle(q), 100);
    ms_pod *h0 = mkpod(1, 0);
    ms_pod *h0b = mkpod(1, 0);
    ms_queue_update(q, h0, 200);
    assert_int_equal(where(q, 1), MS_QW_ACTIVE);
    qp = ms_queue_pop(q, 200);
    ms_queue_add_unschedulable(q, qp, ms_queue_cycle(q), 200);
    ms_queue_update(q, h0b, 300);
    assert_int_equal(where(q, 1), MS_QW_ACTIVE);
    ms_pod_unref(h0);
    ms_pod_unref(h0b);
    ms_queue_free(q);
}

static void test_update_in_flight(void **state) {
    (void)state;
    ms_queue *q = newq();
    add(q, 1, 0, 0);
    ms_queued_pod *qp = ms_queue_pop(q, 1);
    ms_pod *old = qp->pod;
    ms_pod *p = mkpod(1, 7);
    ms_queue_update(q, p, 1.5);
    assert_ptr_equal(qp->pod, old);   /* the running cycle keeps its object */
    assert_int_equal(refs(p), 2);
    ms_pod *p2 = mkpod(1, 8);
    ms_queue_update(q, p2, 1.6);      /* a second update replaces the first */
    assert_int_equal(refs(p), 1);
    qp->interest = MS_EV_NODE_ADD;
    ms_queue_add_unschedulable(q, qp, ms_queue_cycle(q), 2);
    assert_int_equal(where(q, 1), MS_QW_BACKOFF);
    assert_ptr_equal(ms_queue_get(q, 1)->pod, p2);
    ms_pod_unref(p);

    /* done drops a pending update too */
    ms_queue_flush(q, 10);
    qp = ms_queue_pop(q, 10);
    ms_pod *p3 = mkpod(1, 9);
    ms_queue_update(q, p3, 10);
    ms_queue_done(q, qp);
    assert_int_equal(refs(p3), 1);
    assert_int_equal(refs(p2), 1);
    ms_pod_unref(p2);
    ms_pod_unref(p3);
    ms_queue_free(q);
}

static void test_delete_in_each_queue(void **state) {
    (void)state;
    ms_queue *q = newq();
    ms_pod *pods[5];
    for (int i = 0; i < 5; i++) {
        pods[i] = mkpod((uint64_t)i + 1, 50 - i);
        ms_queue_add(q, pods[i], 0);
    }
    /* 1 -> unschedulable, 2 -> backoff, 3 in flight, 4 and 5 active */
    fail_cycle(q, 1, MS_EV_NODE_ADD, 1);
    ms_queued_pod *qp = ms_queue_pop(q, 1);
    ms_queue_add_backoff(q, qp, 1);
    ms_queued_pod *flying = ms_queue_pop(q, 1);
    assert_int_equal(flying->pod->meta.uid_hash, 3);

    assert_int_equal(ms_queue_delete(q, pods[3]), MS_OK);   /* active */
    assert_int_equal(ms_queue_delete(q, pods[1]), MS_OK);   /* backoff */
    assert_int_equal(ms_queue_delete(q, pods[0]), MS_OK);   /* unschedulable */
    assert_int_equal(ms_queue_len_active(q), 1);
    assert_int_equal(ms_queue_len_backoff(q), 0);
    assert_int_equal(ms_queue_len_unschedulable(q), 0);
    assert_int_equal(ms_queue_delete(q, pods[0]), MS_ENOENT);
    for (int i = 0; i < 2; i++) assert_int_equal(refs(pods[i]), 1);
    assert_int_equal(refs(pods[3]), 1);

    /* in flight: the entry stays usable, handing it back drops it */
    assert_int_equal(ms_queue_delete(q, pods[2]), MS_OK);
    assert_null(ms_queue_get(q, 3));
    assert_int_equal(refs(pods[2]), 2);
    assert_ptr_equal(flying->pod, pods[2]);
    /* the same uid may come back while the old entry is still out */
    ms_pod *again = mkpod(3, 0);
    assert_int_equal(ms_queue_add(q, again, 2), MS_OK);
    ms_queue_add_unschedulable(q, flying, ms_queue_cycle(q), 2);
    assert_int_equal(refs(pods[2]), 1);
    assert_int_equal(where(q, 3), MS_QW_ACTIVE);
    assert_ptr_equal(ms_queue_get(q, 3)->pod, again);
    assert_int_equal(ms_queue_len_in_flight(q), 0);
    ms_pod_unref(again);

    /* deleted in flight, then done or add_backoff */
    qp = ms_queue_pop(q, 3);
    ms_queue_delete(q, qp->pod);
    ms_queue_done(q, qp);
    qp = ms_queue_pop(q, 3);
    assert_non_null(qp);
    ms_queue_delete(q, qp->pod);
    ms_queue_add_backoff(q, qp, 3);
    assert_int_equal(ms_queue_len_backoff(q), 0);
    assert_int_equal(ms_queue_len_active(q), 0);
    assert_int_equal(ms_queue_len_in_flight(q), 0);
    for (int i = 0; i < 5; i++) {
        assert_int_equal(refs(pods[i]), 1);
        ms_pod_unref(pods[i]);
    }
    ms_queue_free(q);
}

/* A pod deleted in flight and never handed back is freed with the queue. */
static void test_free_with_pods_in_flight(void **state) {
    (void)state;
    ms_queue *q = newq();
    add(q, 1, 0, 0);
    add(q, 2, 0, 0);
    ms_queued_pod *a = ms_queue_pop(q, 0);
    ms_queued_pod *b = ms_queue_pop(q, 0);
    ms_queue_delete(q, a->pod);
    (void)b;
    ms_queue_free(q);   /* ASan: no leak, no double free */
}

static void test_duplicate_add(void **state) {
    (void)state;
    ms_queue *q = newq();
    ms_pod *p = mkpod(1, 0);
    assert_int_equal(ms_queue_add(q, p, 0), MS_OK);
    assert_int_equal(ms_queue_add(q, p, 0), MS_EEXIST);
    ms_pod *twin = mkpod(1, 99);
    assert_int_equal(ms_queue_add(q, twin, 0), MS_EEXIST);
    assert_int_equal(refs(twin), 1);
    /* in flight counts as held */
    ms_queued_pod *qp = ms_queue_pop(q, 0);
    assert_int_equal(ms_queue_add(q, twin, 0), MS_EEXIST);
    ms_queue_done(q, qp);
    assert_int_equal(ms_queue_add(q, twin, 0), MS_OK);
    ms_pod_unref(twin);
    ms_queue_free(q);
    assert_int_equal(refs(p), 1);
    ms_pod_unref(p);
}

static void expect_nominated(const ms_queue *q, ms_str node, const uint64_t *uids, uint32_t n) {
    uint32_t got = 99;
    ms_pod *const *pods = ms_queue_nominated_for(q, node, &got);
    assert_int_equal(got, n);
    for (uint32_t i = 0; i < n; i++) assert_int_equal(pods[i]->meta.uid_hash, uids[i]);
}

/* Frees the queue: each of the test's pods is left with only the test's
 * own reference, which it drops. */
static void free_releasing(ms_queue *q, ms_pod **pods, int n) {
    ms_queue_free(q);
    for (int k = 0; k < n; k++) {
        assert_int_equal(refs(pods[k]), 1);
        ms_pod_unref(pods[k]);
    }
}

static void test_nominator_ordering_and_cleanup(void **state) {
    (void)state;
    enum { NODE_A = 10, NODE_B = 11 };
    ms_queue *q = newq();
    /* status.nominatedNodeName on add */
    ms_pod *p1 = mkpod(1, 5);
    p1->nominated_node_name = NODE_A;
    ms_queue_add(q, p1, 0);
    ms_pod *p2 = mkpod(2, 100);
    p2->nominated_node_name = NODE_A;
    ms_queue_add(q, p2, 0);
    ms_pod *p3 = mkpod(3, 5);
    ms_queue_add(q, p3, 0);
    ms_pod *p4 = mkpod(4, 50);
    ms_queue_add(q, p4, 0);
    expect_nominated(q, NODE_A, (uint64_t[]){2, 1}, 2);
    /* by preemption; equal priority keeps nomination order */
    ms_queue_add_nominated(q, p3, NODE_A);
    ms_queue_add_nominated(q, p4, NODE_A);
    expect_nominated(q, NODE_A, (uint64_t[]){2, 4, 1, 3}, 4);
    assert_int_equal(refs(p3), 3);   /* test, queue entry, nominator */
    uint32_t n = 7;
    assert_null(ms_queue_nominated_for(q, NODE_B, &n));
    assert_int_equal(n, 0);

    /* nominated elsewhere: moved */
    ms_queue_add_nominated(q, p2, NODE_B);
    expect_nominated(q, NODE_A, (uint64_t[]){4, 1, 3}, 3);
    expect_nominated(q, NODE_B, (uint64_t[]){2}, 1);
    /* nominating again to the same node does not duplicate */
    ms_queue_add_nominated(q, p2, NODE_B);
    expect_nominated(q, NODE_B, (uint64_t[]){2}, 1);

    /* an update without nominatedNodeName on either side keeps the in-memory
     * nomination, with the new object */
    ms_pod *p4b = mkpod(4, 1);
    ms_queue_update(q, p4b, 1);
    expect_nominated(q, NODE_A, (uint64_t[]){1, 3, 4}, 3);
    uint32_t cnt;
    assert_ptr_equal(ms_queue_nominated_for(q, NODE_A, &cnt)[2], p4b);
    assert_int_equal(refs(p4), 1);
    /* old object had it in status, new does not: removed */
    ms_pod *p1b = mkpod(1, 5);
    ms_queue_update(q, p1b, 1);
    expect_nominated(q, NODE_A, (uint64_t[]){3, 4}, 2);
    /* the new object names a node: follows it */
    ms_pod *p3b = mkpod(3, 5);
    p3b->nominated_node_name = NODE_B;
    ms_queue_update(q, p3b, 1);
    expect_nominated(q, NODE_A, (uint64_t[]){4}, 1);
    expect_nominated(q, NODE_B, (uint64_t[]){2, 3}, 2);

    /* delete removes; done removes */
    ms_queue_delete(q, p2);
    expect_nominated(q, NODE_B, (uint64_t[]){3}, 1);
    ms_queue_delete_nominated(q, p3b);
    expect_nominated(q, NODE_B, NULL, 0);
    ms_queue_delete_nominated(q, p3b);   /* not nominated: nothing */
    ms_queued_pod *qp;
    while ((qp = ms_queue_pop(q, 2)) && qp->pod->meta.uid_hash != 4) ms_queue_done(q, qp);
    assert_non_null(qp);
    ms_queue_done(q, qp);
    expect_nominated(q, NODE_A, NULL, 0);
    /* a pod the queue does not hold can be nominated and is released */
    ms_pod *p5 = mkpod(5, 0);
    ms_queue_add_nominated(q, p5, NODE_A);
    /* MS_STR_NONE without status: just removed */
    ms_queue_add_nominated(q, p5, MS_STR_NONE);
    expect_nominated(q, NODE_A, NULL, 0);
    ms_queue_add_nominated(q, p5, NODE_A);
    ms_pod *all[] = {p1, p2, p3, p4, p1b, p3b, p4b, p5};
    free_releasing(q, all, (int)(sizeof all / sizeof all[0]));
}

/* The count of nominated pods follows every way in and out: a cycle skips
 * the per-node nominator lookups when it is 0. */
static void test_nominated_count(void **state) {
    (void)state;
    enum { NODE_A = 10, NODE_B = 11 };
    ms_queue *q = newq();
    assert_int_equal(ms_queue_nominated_count(q), 0);
    ms_pod *p1 = mkpod(1, 5);
    p1->nominated_node_name = NODE_A;
    ms_queue_add(q, p1, 0);
    ms_pod *p2 = mkpod(2, 5);
    ms_queue_add(q, p2, 0);
    assert_int_equal(ms_queue_nominated_count(q), 1);
    ms_queue_add_nominated(q, p2, NODE_B);
    assert_int_equal(ms_queue_nominated_count(q), 2);
    ms_queue_add_nominated(q, p2, NODE_A);   /* moved, not added */
    assert_int_equal(ms_queue_nominated_count(q), 2);
    assert_int_equal(ms_queue_nominated_node(q, 2), NODE_A);
    ms_queue_delete_nominated(q, p2);
    assert_int_equal(ms_queue_nominated_count(q), 1);
    ms_queue_delete(q, p1);
    assert_int_equal(ms_queue_nominated_count(q), 0);
    ms_queue_add_nominated(q, p2, NODE_B);
    ms_queued_pod *qp = ms_queue_pop(q, 1);
    assert_non_null(qp);
    ms_queue_done(q, qp);   /* scheduled: its nomination goes */
    assert_int_equal(ms_queue_nominated_count(q), 0);
    ms_queue_free(q);
    ms_pod_unref(p1);
    ms_pod_unref(p2);
}

/* The nominated pods with required anti-affinity are counted through every
 * way a nomination comes and goes: added, moved, replaced by an update,
 * deleted, scheduled. */
static void test_nominated_anti_affinity_count(void **state) {
    (void)state;
    enum { NODE_A = 10, NODE_B = 11 };
    static ms_pod_affinity_term term;
    ms_queue *q = newq();
    assert_int_equal(ms_queue_nominated_anti_affinity_count(q), 0);
    ms_pod *anti = mkpod(1, 5);
    anti->pod_anti_affinity = (ms_pod_affinity){.nrequired = 1, .required = &term};
    anti->nominated_node_name = NODE_A;
    ms_queue_add(q, anti, 0);
    ms_pod *plain = mkpod(2, 5);
    plain->pod_affinity = (ms_pod_affinity){.nrequired = 1, .required = &term};
    ms_queue_add(q, plain, 0);
    ms_queue_add_nominated(q, plain, NODE_B);
    assert_int_equal(ms_queue_nominated_count(q), 2);
    assert_int_equal(ms_queue_nominated_anti_affinity_count(q), 1);
    ms_queue_add_nominated(q, anti, NODE_B);   /* moved, not added */
    assert_int_equal(ms_queue_nominated_anti_affinity_count(q), 1);
    /* An update that drops the terms (and keeps the nomination). */
    ms_pod *anti2 = mkpod(1, 5);
    anti2->nominated_node_name = NODE_B;
    ms_queue_update(q, anti2, 1);
    assert_int_equal(ms_queue_nominated_node(q, 1), NODE_B);
    assert_int_equal(ms_queue_nominated_anti_affinity_count(q), 0);
    ms_queue_update(q, anti, 2);
    assert_int_equal(ms_queue_nominated_anti_affinity_count(q), 1);
    ms_queue_delete_nominated(q, anti);
    assert_int_equal(ms_queue_nominated_anti_affinity_count(q), 0);
    ms_queue_add_nominated(q, anti, NODE_A);
    assert_int_equal(ms_queue_nominated_anti_affinity_count(q), 1);
    ms_queue_delete(q, anti);
    assert_int_equal(ms_queue_nominated_anti_affinity_count(q), 0);
    ms_queue_add_nominated(q, anti, NODE_A);
    ms_queue_add(q, anti, 3);
    ms_queue_delete(q, plain);
    ms_queued_pod *qp = ms_queue_pop(q, 3);
    assert_non_null(qp);
    assert_int_equal(qp->pod->meta.uid_hash, 1);
    assert_int_equal(ms_queue_nominated_anti_affinity_count(q), 1);
    ms_queue_done(q, qp);   /* scheduled: its nomination goes */
    assert_int_equal(ms_queue_nominated_anti_affinity_count(q), 0);
    assert_int_equal(ms_queue_nominated_count(q), 0);
    ms_queue_free(q);
    ms_pod_unref(anti);
    ms_pod_unref(anti2);
    ms_pod_unref(plain);
}

/* The nominator answers "none" for most nodes without a map lookup (a bit
 * per node name id): ids on both sides of a word boundary and far beyond
 * the first words, a node emptied beside one that is not. */
static void test_nominated_for_node_ids(void **state) {
    (void)state;
    enum { N63 = 63, N64 = 64, N65 = 65, FAR = 200001 };
    ms_queue *q = newq();
    ms_pod *p1 = mkpod(1, 5), *p2 = mkpod(2, 5), *p3 = mkpod(3, 5);
    ms_queue_add_nominated(q, p1, N63);
    ms_queue_add_nominated(q, p2, N64);
    ms_queue_add_nominated(q, p3, FAR);
    expect_nominated(q, N63, (uint64_t[]){1}, 1);
    expect_nominated(q, N64, (uint64_t[]){2}, 1);
    expect_nominated(q, FAR, (uint64_t[]){3}, 1);
    expect_nominated(q, N65, NULL, 0);
    expect_nominated(q, FAR - 1, NULL, 0);
    expect_nominated(q, FAR + 640, NULL, 0);   /* past every word */
    ms_queue_delete_nominated(q, p2);
    expect_nominated(q, N64, NULL, 0);
    expect_nominated(q, N63, (uint64_t[]){1}, 1);
    ms_queue_add_nominated(q, p2, N65);         /* same word as the emptied node */
    expect_nominated(q, N65, (uint64_t[]){2}, 1);
    expect_nominated(q, N64, NULL, 0);
    ms_queue_add_nominated(q, p3, N64);         /* moved: FAR is empty now */
    expect_nominated(q, FAR, NULL, 0);
    expect_nominated(q, N64, (uint64_t[]){3}, 1);
    ms_queue_free(q);
    ms_pod_unref(p1);
    ms_pod_unref(p2);
    ms_pod_unref(p3);
}

/* A long run nominates to many nodes that come and go: once their
 * nominations end, the storage held does not grow with the number of
 * distinct node names ever nominated. */
static void test_nominator_storage_bounded_by_live_nodes(void **state) {
    (void)state;
    enum { NAMES = 20000, BATCH = 8 };
    ms_queue *q = newq();
    ms_pod *pods[BATCH];
    for (int k = 0; k < BATCH; k++) pods[k] = mkpod((uint64_t)k + 1, k % 3);
    for (ms_str base = 1; base + BATCH <= NAMES; base += BATCH) {
        for (int k = 0; k < BATCH; k++) ms_queue_add_nominated(q, pods[k], base + (ms_str)k);
        assert_true(ms_queue_nominated_lists(q) <= BATCH + 1);
        for (int k = 0; k < BATCH; k++) ms_queue_delete_nominated(q, pods[k]);
        assert_int_equal(ms_queue_nominated_count(q), 0);
        assert_true(ms_queue_nominated_lists(q) <= 1);
    }
    /* Moves leave no list behind either: one pod walks over every name. */
    for (ms_str n = 1; n < NAMES; n++) ms_queue_add_nominated(q, pods[0], n);
    expect_nominated(q, NAMES - 1, (uint64_t[]){1}, 1);
    assert_true(ms_queue_nominated_lists(q) <= 2);
    free_releasing(q, pods, BATCH);
}

/* The node's stamp, from the array of every node's stamps (a node past
 * its end reads 0). */
static uint64_t stamp_of(const ms_queue *q, ms_str node) {
    uint32_t n;
    const uint64_t *stamps = ms_queue_nominated_stamps(q, &n);
    return ms_nominated_stamp_at(stamps, n, node);
}

/* A node's stamp changes with each change of its nominated pods, also
 * when the last one leaves and its list is let go, and when it comes
 * back on a reused list; another node's changes leave it as it is. Kept
 * Filter verdicts rely on it (schedule_one.c, filter_kept), which reads
 * the array of every node's stamps. */
static void test_nominated_stamp_changes_with_the_node_only(void **state) {
    (void)state;
    enum { A = 10, B = 11 };
    ms_queue *q = newq();
    ms_pod *p1 = mkpod(1, 5), *p2 = mkpod(2, 5);
    uint64_t seen[8];
    int nseen = 0;
    assert_int_equal(stamp_of(q, A), 0);
    ms_queue_add_nominated(q, p1, A);
    seen[nseen++] = stamp_of(q, A);
    ms_queue_add_nominated(q, p2, A);
    seen[nseen++] = stamp_of(q, A);
    ms_queue_delete_nominated(q, p2);
    seen[nseen++] = stamp_of(q, A);
    ms_queue_delete_nominated(q, p1);              /* empty: its list let go */
    assert_int_equal(stamp_of(q, A), 0);
    ms_queue_add_nominated(q, p2, B);              /* B takes the kept list */
    assert_int_equal(stamp_of(q, A), 0);
    uint64_t b = stamp_of(q, B);
    ms_queue_add_nominated(q, p1, A);              /* back on A: a new list */
    seen[nseen++] = stamp_of(q, A);
    assert_int_equal(stamp_of(q, B), b);
    ms_queue_add_nominated(q, p1, B);              /* moved: A empty again */
    assert_int_equal(stamp_of(q, A), 0);
    assert_int_not_equal(stamp_of(q, B), b);
    ms_queue_add_nominated(q, p2, A);              /* p2 moves from B */
    seen[nseen++] = stamp_of(q, A);
    for (int i = 0; i < nseen; i++) {
        assert_int_not_equal(seen[i], 0);
        for (int j = 0; j < i; j++) assert_int_not_equal(seen[i], seen[j]);
    }
    ms_queue_free(q);
    ms_pod_unref(p1);
    ms_pod_unref(p2);
}

/* Random nominations, moves and removals over near and far node ids: each
 * node's list holds exactly the pods a plain model nominates there, in
 * priority order, and every pod is released once the queue is freed. */
static void test_nominator_random_against_model(void **state) {
    (void)state;
    enum { U = 40, NODES = 12 };
    static const ms_str ids[NODES] = {1, 2, 3, 63, 64, 65, 127, 128, 1000, 4097, 70000, 70001};
    ms_queue *q = newq();
    ms_pod *pods[U];
    ms_str model[U] = {0};
    for (int u = 0; u < U; u++) pods[u] = mkpod((uint64_t)u + 1, u % 4);
    uint64_t r = 7;
    for (int step = 0; step < 5000; step++) {
        r = r * 6364136223846793005ULL + 1442695040888963407ULL;
        int u = (int)((r >> 33) % U);
        if ((r >> 20) % 4 == 0) {
            ms_queue_delete_nominated(q, pods[u]);
            model[u] = MS_STR_NONE;
        } else {
            model[u] = ids[(r >> 40) % NODES];
            ms_queue_add_nominated(q, pods[u], model[u]);
        }
        assert_int_equal(ms_queue_nominated_node(q, (uint64_t)u + 1), model[u]);
        for (int k = 0; k < NODES; k++) {
            uint32_t n = 99, want = 0;
            ms_pod *const *got = ms_queue_nominated_for(q, ids[k], &n);
            for (int v = 0; v < U; v++) want += model[v] == ids[k];
            assert_int_equal(n, want);
            for (uint32_t i = 0; i < n; i++) {
                assert_int_equal(model[got[i]->meta.uid_hash - 1], ids[k]);
                if (i) assert_true(got[i - 1]->priority >= got[i]->priority);
            }
        }
    }
    free_releasing(q, pods, U);
}

/* The only reference to a pod may be the nominator's own. */
static void test_renominate_sole_reference(void **state) {
    (void)state;
    ms_queue *q = newq();
    ms_pod *p = mkpod(1, 0);
    ms_queue_add_nominated(q, p, 10);
    ms_pod_unref(p);
    uint32_t n;
    ms_pod *held = ms_queue_nominated_for(q, 10, &n)[0];
    ms_queue_add_nominated(q, held, 11);   /* ASan: no use after free */
    assert_int_equal(ms_queue_nominated_for(q, 11, &n)[0]->meta.uid_hash, 1);
    ms_queue_free(q);
}

/* A custom QueueSort: lowest uid first, whatever the priority. */
static bool uid_less(void *ctx, const ms_queued_pod *a, const ms_queued_pod *b) {
    int *calls = ctx;
    (*calls)++;
    return a->pod->meta.uid_hash < b->pod->meta.uid_hash;
}

/* A QueueSort that says nothing: ties must fall back to insertion order. */
static bool never_less(void *ctx, const ms_queued_pod *a, const ms_queued_pod *b) {
    (void)ctx;
    (void)a;
    (void)b;
    return false;
}

static void test_custom_less(void **state) {
    (void)state;
    int calls = 0;
    ms_queue_config c;
    ms_queue_config_default(&c);
    c.less = uid_less;
    c.less_ctx = &calls;
    ms_queue *q = ms_queue_new(&c);
    uint64_t uids[] = {5, 3, 9, 1, 7};
    for (int i = 0; i < 5; i++) add(q, uids[i], (int32_t)uids[i] * 10, (double)i);
    assert_true(calls > 0);
    uint64_t want[] = {1, 3, 5, 7, 9};
    for (int i = 0; i < 5; i++) {
        ms_queued_pod *qp = ms_queue_pop(q, 10);
        assert_int_equal(qp->pod->meta.uid_hash, want[i]);
        ms_queue_done(q, qp);
    }
    ms_queue_free(q);

    c.less = never_less;
    q = ms_queue_new(&c);
    for (int i = 0; i < 5; i++) add(q, uids[i], (int32_t)i, 0);
    for (int i = 0; i < 5; i++) {
        ms_queued_pod *qp = ms_queue_pop(q, 10);
        assert_int_equal(qp->pod->meta.uid_hash, uids[i]);
        ms_queue_done(q, qp);
    }
    ms_queue_free(q);
}

static void count_each(void *ctx, const ms_queued_pod *qp) {
    uint64_t *seen = ctx;
    seen[qp->pod->meta.uid_hash]++;
}

static void test_each_visits_every_held_pod(void **state) {
    (void)state;
    ms_queue *q = newq();
    for (uint64_t u = 1; u <= 5; u++) add(q, u, (int32_t)(10 - u), 0);
    fail_cycle(q, 1, MS_EV_NODE_ADD, 0);
    ms_queued_pod *qp = ms_queue_pop(q, 0);
    ms_queue_add_backoff(q, qp, 0);
    ms_queued_pod *flying = ms_queue_pop(q, 0);
    ms_queued_pod *gone = ms_queue_pop(q, 0);
    ms_queue_delete(q, gone->pod);
    uint64_t seen[7] = {0};
    ms_queue_each(q, count_each, seen);
    uint64_t want[7] = {0, 1, 1, 1, 0, 1, 0};
    assert_memory_equal(seen, want, sizeof want);
    ms_queue_done(q, flying);
    ms_queue_done(q, gone);
    ms_queue_free(q);
}

/* Random operations against simple invariants: every live pod is in
 * exactly one place and the counts agree (ASan watches the memory). */
static void test_random_operations(void **state) {
    (void)state;
    enum { U = 64 };
    gate g = {.refused = 7};
    ms_queue *q = gated_queue(&g, 0);
    ms_queued_pod *flight[U] = {0};
    uint64_t r = 99;
    double now = 0;
    for (int step = 0; step < 30000; step++) {
        r = r * 6364136223846793005ULL + 1442695040888963407ULL;
        uint64_t uid = 1 + (r >> 33) % U;
        int op = (int)((r >> 20) % 9);
        now += 0.05;
        ms_pod *p;
        switch (op) {
        case 0:
        case 1:
            p = mkpod(uid, (int32_t)((r >> 40) % 5));
            if ((r >> 50) % 3 == 0) p->nominated_node_name = 1 + (r >> 45) % 3;
            ms_queue_add(q, p, now);
            ms_pod_unref(p);
            break;
        case 2:
            p = mkpod(uid, (int32_t)((r >> 40) % 5));
            if (!flight[uid % U] || (r >> 52) % 2) ms_queue_update(q, p, now);
            ms_pod_unref(p);
            break;
        case 3: {
            ms_pod key = {0};
            key.meta.uid_hash = uid;
            ms_queue_delete(q, &key);
            break;
        }
        case 4: {
            ms_queued_pod *qp = ms_queue_pop(q, now);
            if (!qp) break;
            uint64_t u = qp->pod->meta.uid_hash % U;
            if (flight[u]) {
                /* the old one (deleted and re-added) goes back first */
                ms_queue_done(q, flight[u]);
            }
            flight[u] = qp;
            if ((r >> 41) % 4 == 0) ms_queue_add_nominated(q, qp->pod, 2);
            break;
        }
        case 5:
            for (int i = 0; i < U; i++) {
                if (!flight[i]) continue;
                flight[i]->interest = (ms_event_mask)1u << ((r >> 30) % 6);
                if ((r >> 44) % 3 == 0) ms_queue_add_unschedulable(q, flight[i], ms_queue_cycle(q), now);
                else if ((r >> 44) % 3 == 1) ms_queue_add_backoff(q, flight[i], now);
                else ms_queue_done(q, flight[i]);
                flight[i] = NULL;
                break;
            }
            break;
        case 6:
            ms_queue_move_on_event(q, (ms_event_mask)1u << ((r >> 36) % 6), now);
            break;
        case 7:
            ms_queue_flush(q, now + (double)((r >> 38) % 400));
            break;
        case 8:
            g.refused = (r >> 39) % 2 ? 7 : 0;
            break;
        }
        uint64_t seen[U + 1] = {0};
        ms_queue_each(q, count_each, seen);
        uint32_t total = 0;
        for (int i = 0; i <= U; i++) {
            assert_true(seen[i] <= 1);
            total += (uint32_t)seen[i];
        }
        uint32_t inflight_live = 0;
        for (int i = 0; i < U; i++) {
            if (!flight[i]) continue;
            const ms_queued_pod *held = ms_queue_get(q, flight[i]->pod->meta.uid_hash);
            if (held == flight[i]) inflight_live++;
        }
        assert_int_equal(total, ms_queue_len_active(q) + ms_queue_len_backoff(q) +
                                    ms_queue_len_unschedulable(q) + ms_queue_len_gated(q) +
                                    inflight_live);
        /* a gated pod is never nominated */
        for (uint64_t u = 1; u <= U; u++) {
            const ms_queued_pod *qp = ms_queue_get(q, u);
            if (qp && qp->gated) assert_int_equal(ms_queue_nominated_node(q, u), MS_STR_NONE);
        }
    }
    for (int i = 0; i < U; i++)
        if (flight[i]) ms_queue_done(q, flight[i]);
    ms_queue_free(q);
}

static double seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* 10,000 pods through add, pop, fail, move and pop again; checks the order
 * and prints the time (the hot path of a 20,000 pods/s scheduler). */
static void test_ten_thousand_pods(void **state) {
    (void)state;
    enum { N = 10000 };
    ms_queue *q = newq();
    static ms_pod *pods[N];
    for (int i = 0; i < N; i++) pods[i] = mkpod((uint64_t)i + 1, (int32_t)((i * 7919) % 1000));
    double t0 = seconds();
    for (int i = 0; i < N; i++) assert_int_equal(ms_queue_add(q, pods[i], (double)i * 1e-4), MS_OK);
    double t1 = seconds();
    int32_t last_prio = INT32_MAX;
    double last_ts = -1;
    for (int i = 0; i < N; i++) {
        ms_queued_pod *qp = ms_queue_pop(q, 1);
        assert_non_null(qp);
        assert_true(qp->pod->priority <= last_prio);
        if (qp->pod->priority == last_prio) assert_true(qp->timestamp > last_ts);
        last_prio = qp->pod->priority;
        last_ts = qp->timestamp;
        qp->interest = (i % 2) ? MS_EV_NODE_ADD : MS_EV_ASSIGNED_POD_DELETE;
        ms_queue_add_unschedulable(q, qp, ms_queue_cycle(q), 2);
    }
    double t2 = seconds();
    assert_int_equal(ms_queue_len_unschedulable(q), N);
    /* many events that help nobody: must not scan the unschedulable pods */
    for (int i = 0; i < 20000; i++) ms_queue_move_on_event(q, MS_EV_NODE_TAINT, 2);
    double t3 = seconds();
    ms_queue_move_on_event(q, MS_EV_NODE_ADD, 3);
    assert_int_equal(ms_queue_len_active(q), N / 2);
    ms_queue_move_on_event(q, MS_EV_ASSIGNED_POD_DELETE, 3);
    assert_int_equal(ms_queue_len_active(q), N);
    for (int i = 0; i < N; i++) ms_queue_done(q, ms_queue_pop(q, 4));
    double t4 = seconds();
    fprintf(stderr, "# 10k pods: add %.2f ms, pop+fail %.2f ms, 20k idle events %.2f ms, "
            "move+pop+done %.2f ms\n",
            (t1 - t0) * 1e3, (t2 - t1) * 1e3, (t3 - t2) * 1e3, (t4 - t3) * 1e3);
    assert_int_equal(ms_queue_len_active(q), 0);
    ms_queue_free(q);
    for (int i = 0; i < N; i++) {
        assert_int_equal(refs(pods[i]), 1);
        ms_pod_unref(pods[i]);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_order_priority_then_timestamp),
        cmocka_unit_test(test_pop_counts_attempts_and_cycles),
        cmocka_unit_test(test_backoff_growth),
        cmocka_unit_test(test_backoff_custom_durations),
        cmocka_unit_test(test_backoff_queue_ordered_by_expiry),
        cmocka_unit_test(test_move_request_cycle),
        cmocka_unit_test(test_event_interest_filtering),
        cmocka_unit_test(test_flush_backoff_and_long_unschedulable),
        cmocka_unit_test(test_flush_unschedulable_still_backing_off),
        cmocka_unit_test(test_pre_enqueue_gating),
        cmocka_unit_test(test_pre_enqueue_on_update_and_backoff),
        cmocka_unit_test(test_gated_pod_lifted_by_its_update),
        cmocka_unit_test(test_add_gated_after_bind),
        cmocka_unit_test(test_update_in_each_queue),
        cmocka_unit_test(test_update_in_flight),
        cmocka_unit_test(test_update_status_only_keeps_unschedulable),
        cmocka_unit_test(test_delete_in_each_queue),
        cmocka_unit_test(test_free_with_pods_in_flight),
        cmocka_unit_test(test_duplicate_add),
        cmocka_unit_test(test_nominator_ordering_and_cleanup),
        cmocka_unit_test(test_renominate_sole_reference),
        cmocka_unit_test(test_nominated_count),
        cmocka_unit_test(test_nominated_anti_affinity_count),
        cmocka_unit_test(test_nominated_for_node_ids),
        cmocka_unit_test(test_nominator_random_against_model),
        cmocka_unit_test(test_nominator_storage_bounded_by_live_nodes),
        cmocka_unit_test(test_nominated_stamp_changes_with_the_node_only),
        cmocka_unit_test(test_custom_less),
        cmocka_unit_test(test_each_visits_every_held_pod),
        cmocka_unit_test(test_random_operations),
        cmocka_unit_test(test_ten_thousand_pods),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
