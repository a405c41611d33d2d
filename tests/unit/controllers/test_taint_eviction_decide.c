/* The toleration arithmetic of taint eviction: upstream's table cases for
 * getMinTolerationTime and GetMatchingTolerations, and the verdict with
 * the taints' start times and the pod's creation. */
#include "testutil.h"

#include "taint_fixtures.h"

#include "controllers/taint_eviction_decide.h"

/* A toleration of key k (NoExecute, Equal "v") with seconds; secs < -100:
 * no tolerationSeconds. */
static ms_toleration tol_for(const char *key, const char *op, const char *effect, int64_t secs) {
    ms_toleration t = make_tol(&(tol_spec){key, op, key && op && strcmp(op, "Equal") == 0 ? "v" : NULL, effect});
    t.has_seconds = secs > -100;
    t.toleration_seconds = t.has_seconds ? secs : 0;
    return t;
}

static void test_min_toleration_seconds(void **state) {
    (void)state;
    ms_toleration one = tol_for("k", "Exists", "NoExecute", 1), two = tol_for("k", "Exists", "NoExecute", 2);
    ms_toleration never = tol_for("k", "Exists", "NoExecute", -1000);
    ms_toleration zero = tol_for("k", "Exists", "NoExecute", 0), neg = tol_for("k", "Exists", "NoExecute", -5);
    static const struct {
        const char *name;
        int which[3];              /* 1 one, 2 two, 3 never, 4 zero, 5 negative; 0 ends */
        int64_t want;
    } cases[] = {
        {"no tolerations: now", {0}, 0},
        {"one with 1 s", {1}, 1},
        {"1 s and 2 s: the smaller", {1, 2}, 1},
        {"2 s and 1 s: the smaller", {2, 1}, 1},
        {"1 s and one for ever", {1, 3}, 1},
        {"for ever and 1 s", {3, 1}, 1},
        {"both for ever", {3, 3}, -1},
        {"zero: now", {2, 4}, 0},
        {"negative: now", {5, 2}, 0},
    };
    const ms_toleration *by[] = {NULL, &one, &two, &never, &zero, &neg};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const ms_toleration *used[3];
        uint32_t n = 0;
        while (n < 3 && cases[i].which[n]) {
            used[n] = by[cases[i].which[n]];
            n++;
        }
        int64_t got = ms_te_min_toleration_seconds(used, n);
        if (got != cases[i].want) fail_msg("%s: got %lld, want %lld", cases[i].name, (long long)got,
                                           (long long)cases[i].want);
    }
}

static void test_matching_tolerations(void **state) {
    (void)state;
    ms_node *n = node_with("n", (taint_spec[]){{"a", "v", "NoExecute"}, {"b", NULL, "NoSchedule"},
                                               {"c", "v", "NoExecute"}, {0}});
    const ms_toleration *used[3];
    /* no tolerations: not tolerated */
    assert_false(ms_te_matching_tolerations(n->taints, 3, NULL, 0, used));
    /* the first toleration that tolerates each NoExecute taint; NoSchedule ignored */
    ms_toleration tols[] = {tol_for("a", "Equal", "NoExecute", 10), tol_for("a", "Exists", NULL, 1),
                            tol_for("c", "Exists", NULL, -1000)};
    assert_true(ms_te_matching_tolerations(n->taints, 3, tols, 3, used));
    assert_ptr_equal(used[0], &tols[0]);
    assert_null(used[1]);
    assert_ptr_equal(used[2], &tols[2]);
    /* tolerate all: empty key with Exists and no effect */
    ms_toleration all = tol_for(NULL, "Exists", NULL, -1000);
    assert_true(ms_te_matching_tolerations(n->taints, 3, &all, 1, used));
    /* empty key with Exists but effect NoSchedule: NoExecute not tolerated */
    ms_toleration ns = tol_for(NULL, "Exists", "NoSchedule", -1000);
    assert_false(ms_te_matching_tolerations(n->taints, 3, &ns, 1, used));
    ms_node_unref(n);
}

/* The verdict for a pod with tols on node n, each taint started at t0. */
static ms_te_verdict verdict(const ms_toleration *tols, uint32_t ntol, const ms_node *n, const double *since,
                             double created, double *at) {
    ms_pod *p = pod_with(NULL);
    p->tolerations = (ms_toleration *)tols;
    p->ntolerations = ntol;
    p->meta.creation = created;
    ms_te_verdict v = ms_te_decide(p, n->taints, since, n->ntaints, at);
    p->tolerations = NULL;
    p->ntolerations = 0;
    ms_pod_unref(p);
    return v;
}

static void test_decide(void **state) {
    (void)state;
    double at, t0[] = {1000, 1000, 1000};
    ms_node *plain = node_with("p", (taint_spec[]){{"x", NULL, "NoSchedule"}, {0}});
    ms_node *n = node_with("n", (taint_spec[]){{"k", "v", "NoExecute"}, {0}});
    /* no NoExecute taint: never */
    assert_int_equal(verdict(NULL, 0, plain, t0, 0, &at), MS_TE_NEVER);
    /* untolerated: now */
    assert_int_equal(verdict(NULL, 0, n, t0, 0, &at), MS_TE_DELETE_NOW);
    ms_toleration other = tol_for("other", "Exists", "NoExecute", -1000);
    assert_int_equal(verdict(&other, 1, n, t0, 0, &at), MS_TE_DELETE_NOW);
    /* tolerated for ever */
    ms_toleration forever = tol_for("k", "Equal", "NoExecute", -1000);
    assert_int_equal(verdict(&forever, 1, n, t0, 0, &at), MS_TE_NEVER);
    /* tolerated with seconds: from the taint's start */
    ms_toleration five = tol_for("k", "Equal", "NoExecute", 5);
    assert_int_equal(verdict(&five, 1, n, t0, 0, &at), MS_TE_DELETE_AT);
    assert_true(at == 1005);
    /* ... but not before the pod existed */
    assert_int_equal(verdict(&five, 1, n, t0, 2000, &at), MS_TE_DELETE_AT);
    assert_true(at == 2005);
    /* zero and negative: at the start */
    ms_toleration zero = tol_for("k", "Equal", "NoExecute", 0), neg = tol_for("k", "Equal", "NoExecute", -3);
    assert_int_equal(verdict(&zero, 1, n, t0, 0, &at), MS_TE_DELETE_AT);
    assert_true(at == 1000);
    assert_int_equal(verdict(&neg, 1, n, t0, 0, &at), MS_TE_DELETE_AT);
    assert_true(at == 1000);
    /* empty effect tolerates NoExecute too */
    ms_toleration any = tol_for("k", "Exists", NULL, 7);
    assert_int_equal(verdict(&any, 1, n, t0, 0, &at), MS_TE_DELETE_AT);
    assert_true(at == 1007);
    ms_node_unref(plain);
    ms_node_unref(n);
}

/* Two taints started at different times: each counts from its own start;
 * the earliest deadline wins (upstream: "Pod with multiple tolerations
 * are evicted when first one runs out"). */
static void test_decide_several_taints(void **state) {
    (void)state;
    double at;
    ms_node *n = node_with("n", (taint_spec[]){{"a", "v", "NoExecute"}, {"b", "v", "NoExecute"}, {0}});
    ms_toleration tols[] = {tol_for("a", "Equal", "NoExecute", 100), tol_for("b", "Equal", "NoExecute", 1)};
    double same[] = {50, 50}, apart[] = {0, 500};
    assert_int_equal(verdict(tols, 2, n, same, 0, &at), MS_TE_DELETE_AT);
    assert_true(at == 51);
    assert_int_equal(verdict(tols, 2, n, apart, 0, &at), MS_TE_DELETE_AT);
    assert_true(at == 100);
    /* one tolerated for a while, one for ever: the finite one */
    ms_toleration mixed[] = {tol_for("a", "Equal", "NoExecute", -1000), tol_for("b", "Equal", "NoExecute", 3)};
    assert_int_equal(verdict(mixed, 2, n, same, 0, &at), MS_TE_DELETE_AT);
    assert_true(at == 53);
    /* one of two not tolerated: now */
    assert_int_equal(verdict(tols, 1, n, same, 0, &at), MS_TE_DELETE_NOW);
    ms_node_unref(n);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_min_toleration_seconds),
        cmocka_unit_test(test_matching_tolerations),
        cmocka_unit_test(test_decide),
        cmocka_unit_test(test_decide_several_taints),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
