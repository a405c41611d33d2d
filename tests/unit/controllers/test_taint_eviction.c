/* The taint eviction controller's state and timers, with a recording
 * sink and times given by the test: scheduling, firing, cancelling (taint
 * gone, tolerated for ever, pod gone, Terminating), the kept deadline of a
 * changed taint, timeAdded and first-seen starts, nodes that arrive after
 * their pods, retries, and many pods on one node. */
#include "testutil.h"

#include "taint_fixtures.h"

#include "base/map.h"
#include "controllers/taint_eviction.h"

typedef struct rec {
    uint32_t evicted, cancelled;
    double last_fire_at;
    ms_str last_evicted, last_cancelled;
} rec;

static void on_evict(void *ctx, ms_pod *pod, double fire_at) {
    rec *r = ctx;
    r->evicted++;
    r->last_fire_at = fire_at;
    r->last_evicted = pod->meta.name;
}

static void on_cancel(void *ctx, const ms_pod *pod) {
    rec *r = ctx;
    r->cancelled++;
    r->last_cancelled = pod->meta.name;
}

static ms_taint_manager *manager(rec *r) {
    memset(r, 0, sizeof *r);
    ms_te_sink sink = {.ctx = r, .evict = on_evict, .cancelled = on_cancel};
    ms_taint_manager *m = ms_taint_manager_new(&sink);
    assert_non_null(m);
    return m;
}

/* A pod named name bound to node, tolerating k=v:NoExecute for secs
 * (-1: no toleration, -2: for ever). uid_hash from the name. */
static ms_pod *bound_pod(const char *name, const char *node, int64_t secs) {
    ms_pod *p = pod_with(secs == -1 ? NULL : (tol_spec[]){{"k", "Equal", "v", "NoExecute"}, {0}});
    p->meta.name = S(name);
    p->meta.uid_hash = ms_hash_bytes(name, strlen(name));
    p->node_name = S(node);
    if (secs >= 0) {
        p->tolerations[0].has_seconds = true;
        p->tolerations[0].toleration_seconds = secs;
    }
    return p;
}

static ms_node *tainted(const char *name, const char *value, double time_added) {
    ms_node *n = node_with(name, (taint_spec[]){{"k", value, "NoExecute"}, {0}});
    n->taints[0].time_added = time_added;
    return n;
}

/* Feeds and drops the caller's reference. */
static void pod_update(ms_taint_manager *m, ms_pod *p, double now) {
    ms_taint_manager_pod_update(m, p, now);
    ms_pod_unref(p);
}
static void node_update(ms_taint_manager *m, ms_node *n, double now) {
    ms_taint_manager_node_update(m, n, now);
    ms_node_unref(n);
}

static void test_untolerated_now_and_seconds_later(void **state) {
    (void)state;
    rec r;
    ms_taint_manager *m = manager(&r);
    pod_update(m, bound_pod("none", "n1", -1), 100);
    pod_update(m, bound_pod("five", "n1", 5), 100);
    pod_update(m, bound_pod("ever", "n1", -2), 100);
    assert_int_equal(ms_taint_manager_fire(m, 100, 0), 0);     /* no taint yet */
    node_update(m, tainted("n1", "v", 0), 110);
    assert_int_equal(ms_taint_manager_fire(m, 110, 0), 1);     /* the untolerated one, at once */
    assert_int_equal(r.last_evicted, S("none"));
    assert_true(ms_taint_manager_next(m) == 115);
    assert_int_equal(ms_taint_manager_fire(m, 114.9, 0), 0);
    assert_int_equal(ms_taint_manager_fire(m, 115, 0), 1);
    assert_int_equal(r.last_evicted, S("five"));
    assert_true(r.last_fire_at == 115);
    assert_true(ms_taint_manager_next(m) < 0);                 /* the one for ever stays */
    assert_int_equal(r.cancelled, 0);
    ms_taint_manager_free(m);
}

static void test_cancel_when_taint_goes(void **state) {
    (void)state;
    rec r;
    ms_taint_manager *m = manager(&r);
    pod_update(m, bound_pod("thirty", "n1", 30), 0);
    node_update(m, tainted("n1", "v", 0), 10);
    assert_true(ms_taint_manager_next(m) == 40);
    node_update(m, node_with("n1", NULL), 13);
    assert_int_equal(r.cancelled, 1);
    assert_int_equal(r.last_cancelled, S("thirty"));
    assert_int_equal(ms_taint_manager_fire(m, 100, 0), 0);
    /* tainted again: a new countdown */
    node_update(m, tainted("n1", "v", 0), 200);
    assert_true(ms_taint_manager_next(m) == 230);
    ms_taint_manager_free(m);
}

static void test_cancel_when_pod_goes_or_tolerates_for_ever(void **state) {
    (void)state;
    rec r;
    ms_taint_manager *m = manager(&r);
    node_update(m, tainted("n1", "v", 0), 0);
    ms_pod *p = bound_pod("a", "n1", 30);
    ms_taint_manager_pod_update(m, p, 1);
    assert_true(ms_taint_manager_deadline(m, p) == 30);        /* from the taint's first sight */
    ms_taint_manager_pod_delete(m, p, 2);
    ms_pod_unref(p);
    assert_int_equal(r.cancelled, 1);
    ms_taint_manager_stats_get(m, &(ms_taint_manager_stats){0});
    pod_update(m, bound_pod("b", "n1", 30), 3);
    assert_true(ms_taint_manager_next(m) == 30);
    pod_update(m, bound_pod("b", "n1", -2), 4);                /* now tolerates for ever */
    assert_int_equal(r.cancelled, 2);
    assert_int_equal(r.last_cancelled, S("b"));
    assert_true(ms_taint_manager_next(m) < 0);
    /* a Terminating pod: dropped without a word */
    ms_pod *t = bound_pod("c", "n1", 30);
    ms_taint_manager_pod_update(m, t, 5);
    t->meta.deletion = 6;
    ms_taint_manager_pod_update(m, t, 6);
    ms_pod_unref(t);
    assert_int_equal(r.cancelled, 2);
    assert_true(ms_taint_manager_next(m) < 0);
    ms_taint_manager_free(m);
}

/* A changed taint (other value, smaller toleration) keeps the earlier
 * deadline, as upstream keeps the first worker; an untolerated change
 * cancels and deletes at once. */
static void test_changed_taint_keeps_deadline(void **state) {
    (void)state;
    rec r;
    ms_taint_manager *m = manager(&r);
    ms_pod *p = pod_with((tol_spec[]){{"k", "Exists", NULL, "NoExecute"}, {0}});
    p->meta.name = S("p");
    p->meta.uid_hash = 42;
    p->node_name = S("n1");
    p->tolerations[0].has_seconds = true;
    p->tolerations[0].toleration_seconds = 60;
    ms_taint_manager_pod_update(m, p, 0);
    node_update(m, tainted("n1", "v", 0), 10);
    assert_true(ms_taint_manager_next(m) == 70);
    node_update(m, tainted("n1", "other", 0), 20);             /* same key and effect */
    assert_true(ms_taint_manager_next(m) == 70);
    assert_int_equal(r.cancelled, 0);
    /* a second taint the pod does not tolerate: cancelled, then now */
    node_update(m, node_with("n1", (taint_spec[]){{"k", "v", "NoExecute"}, {"x", NULL, "NoExecute"}, {0}}), 30);
    assert_int_equal(r.cancelled, 1);
    assert_true(ms_taint_manager_next(m) == 30);
    assert_int_equal(ms_taint_manager_fire(m, 30, 0), 1);
    /* fired: further changes do not schedule it again ... */
    ms_taint_manager_pod_update(m, p, 31);
    assert_true(ms_taint_manager_next(m) < 0);
    /* ... unless its deletion failed: then again, but not at once */
    ms_taint_manager_retry(m, p, 32, 37);
    assert_true(ms_taint_manager_next(m) == 37);
    ms_pod_unref(p);
    ms_taint_manager_free(m);
}

/* timeAdded is the start when present; otherwise the first sight, kept
 * over later updates of the node; a pod created later counts from its
 * creation. */
static void test_starts(void **state) {
    (void)state;
    rec r;
    ms_taint_manager *m = manager(&r);
    node_update(m, tainted("n1", "v", 500), 900);
    pod_update(m, bound_pod("a", "n1", 600), 900);
    assert_true(ms_taint_manager_next(m) == 1100);
    node_update(m, tainted("n2", "v", 0), 1000);
    node_update(m, tainted("n2", "v", 0), 1050);               /* e.g. a status change */
    ms_pod *b = bound_pod("b", "n2", 100);
    ms_taint_manager_pod_update(m, b, 1060);
    assert_true(ms_taint_manager_deadline(m, b) == 1100);
    ms_pod *c = bound_pod("c", "n2", 100);
    c->meta.creation = 1070;
    ms_taint_manager_pod_update(m, c, 1070);
    assert_true(ms_taint_manager_deadline(m, c) == 1170);
    ms_taint_manager_stats s;
    ms_taint_manager_stats_get(m, &s);
    assert_int_equal(s.nodes, 2);
    assert_int_equal(s.pods, 3);
    assert_int_equal(s.scheduled, 3);
    ms_pod_unref(b);
    ms_pod_unref(c);
    /* a node gone: scheduled deletions stay, as upstream's */
    ms_taint_manager_node_delete(m, S("n2"), 1080);
    ms_taint_manager_stats_get(m, &s);
    assert_int_equal(s.nodes, 1);
    assert_int_equal(s.scheduled, 3);
    ms_taint_manager_free(m);
}

static void test_unbound_ignored_and_many_pods(void **state) {
    (void)state;
    rec r;
    ms_taint_manager *m = manager(&r);
    ms_pod *u = bound_pod("u", "n1", -1);
    u->node_name = MS_STR_NONE;
    pod_update(m, u, 0);
    char name[32];
    for (int i = 0; i < 10000; i++) {
        snprintf(name, sizeof name, "p%d", i);
        pod_update(m, bound_pod(name, "big", i % 2 ? -1 : 10), 0);
    }
    pod_update(m, bound_pod("other", "small", -1), 0);
    node_update(m, tainted("big", "v", 0), 100);
    node_update(m, tainted("small", "v", 0), 100);
    /* at most max per call, earliest first */
    assert_int_equal(ms_taint_manager_fire(m, 100, 256), 256);
    assert_int_equal(ms_taint_manager_fire(m, 100, 0), 5001 - 256);
    assert_int_equal(ms_taint_manager_fire(m, 109, 0), 0);
    assert_int_equal(ms_taint_manager_fire(m, 110, 0), 5000);
    assert_int_equal(r.evicted, 10001);
    ms_taint_manager_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_untolerated_now_and_seconds_later),
        cmocka_unit_test(test_cancel_when_taint_goes),
        cmocka_unit_test(test_cancel_when_pod_goes_or_tolerates_for_ever),
        cmocka_unit_test(test_changed_taint_keeps_deadline),
        cmocka_unit_test(test_starts),
        cmocka_unit_test(test_unbound_ignored_and_many_pods),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
