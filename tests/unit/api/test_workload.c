/* Which pods a Service, ReplicationController, ReplicaSet or StatefulSet
 * selects (upstream's listers), and the scheduler's set of them. */
#include "testutil.h"

#include "api/workload_set.h"
#include "fixtures.h"

FX_DECODER_FIXTURE

static ms_workload *W(ms_workload_kind kind, const char *text) { return fx_workload(&env.d, (int)kind, text); }

static bool selects(ms_workload_kind kind, const char *workload, const char *pod) {
    ms_workload *w = W(kind, workload);
    ms_pod *p = fx_pod(&env.d, pod);
    bool r = ms_workload_selects(w, p, env.in);
    ms_pod_unref(p);
    ms_workload_unref(w);
    return r;
}

#define WEB_POD "metadata: {name: p, labels: {app: web, tier: front}}\nspec: {containers: [{name: c}]}"

static void test_selects(void **state) {
    (void)state;
    assert_true(selects(MS_WK_SERVICE, "metadata: {name: s}\nspec: {selector: {app: web}}", WEB_POD));
    assert_false(selects(MS_WK_SERVICE, "metadata: {name: s}\nspec: {selector: {app: db}}", WEB_POD));
    /* another namespace */
    assert_false(selects(MS_WK_SERVICE, "metadata: {name: s, namespace: x}\nspec: {selector: {app: web}}",
                         WEB_POD));
    /* nil and empty selectors select nothing */
    assert_false(selects(MS_WK_SERVICE, "metadata: {name: s}\nspec: {}", WEB_POD));
    assert_false(selects(MS_WK_SERVICE, "metadata: {name: s}\nspec: {selector: {}}", WEB_POD));
    assert_false(selects(MS_WK_REPLICATION_CONTROLLER, "metadata: {name: r}\nspec: {selector: {}}", WEB_POD));
    assert_true(selects(MS_WK_REPLICATION_CONTROLLER, "metadata: {name: r}\nspec: {selector: {tier: front}}",
                        WEB_POD));
    assert_true(selects(MS_WK_REPLICA_SET,
                        "metadata: {name: r}\nspec: {selector: {matchExpressions: [{key: app, operator: In, "
                        "values: [web, api]}]}}",
                        WEB_POD));
    assert_false(selects(MS_WK_REPLICA_SET, "metadata: {name: r}\nspec: {selector: {}}", WEB_POD));
    assert_false(selects(MS_WK_STATEFUL_SET,
                         "metadata: {name: r}\nspec: {selector: {matchLabels: {app: web, tier: back}}}", WEB_POD));
    /* the listers refuse pods without labels, even to a DoesNotExist selector */
    assert_false(selects(MS_WK_REPLICA_SET,
                         "metadata: {name: r}\nspec: {selector: {matchExpressions: [{key: app, operator: "
                         "DoesNotExist}]}}",
                         "metadata: {name: p}\nspec: {containers: [{name: c}]}"));
}

static bool in_set(const ms_workload_set *s, const char *ns, const ms_workload *w) {
    uint32_t n;
    void *const *ws = ms_workload_set_in(s, S(ns), &n);
    for (uint32_t i = 0; i < n; i++)
        if (ws[i] == w) return true;
    return false;
}

static void test_set(void **state) {
    (void)state;
    ms_workload_set *s = ms_workload_set_new();
    assert_non_null(s);
    ms_workload *svc = W(MS_WK_SERVICE, "metadata: {name: web}\nspec: {selector: {app: web}}");
    /* same namespace and name, another kind: a different object */
    ms_workload *rs = W(MS_WK_REPLICA_SET, "metadata: {name: web}\nspec: {selector: {matchLabels: {app: web}}}");
    ms_workload *other = W(MS_WK_SERVICE, "metadata: {name: web, namespace: b}\nspec: {selector: {app: web}}");
    assert_int_equal(ms_workload_set_update(s, svc), MS_OK);
    assert_int_equal(ms_workload_set_update(s, rs), MS_OK);
    assert_int_equal(ms_workload_set_update(s, other), MS_OK);
    assert_int_equal(ms_workload_set_len(s), 3);
    uint32_t n;
    ms_workload_set_in(s, S("default"), &n);
    assert_int_equal(n, 2);
    assert_true(in_set(s, "default", svc) && in_set(s, "default", rs) && in_set(s, "b", other));

    /* an update replaces the object in place */
    ms_workload *svc2 = W(MS_WK_SERVICE, "metadata: {name: web}\nspec: {selector: {app: web2}}");
    assert_int_equal(ms_workload_set_update(s, svc2), MS_OK);
    assert_int_equal(ms_workload_set_len(s), 3);
    assert_true(in_set(s, "default", svc2));
    assert_false(in_set(s, "default", svc));

    assert_int_equal(ms_workload_set_delete(s, MS_WK_SERVICE, S("default"), S("web")), MS_OK);
    assert_int_equal(ms_workload_set_delete(s, MS_WK_SERVICE, S("default"), S("web")), MS_ENOENT);
    assert_true(in_set(s, "default", rs));
    assert_int_equal(ms_workload_set_delete(s, MS_WK_SERVICE, S("b"), S("web")), MS_OK);
    assert_null(ms_workload_set_in(s, S("b"), &n));
    assert_int_equal(n, 0);
    assert_int_equal(ms_workload_set_len(s), 1);
    ms_workload_unref(svc);
    ms_workload_unref(svc2);
    ms_workload_unref(rs);
    ms_workload_unref(other);
    ms_workload_set_free(s);
}

static void test_kind_names(void **state) {
    (void)state;
    for (int k = 0; k < MS_WK_COUNT; k++)
        assert_int_equal(ms_workload_kind_from_name(ms_workload_kind_name((ms_workload_kind)k)), k);
    assert_int_equal(ms_workload_kind_from_name("Deployment"), -1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_selects),
        cmocka_unit_test(test_set),
        cmocka_unit_test(test_kind_names),
    };
    return cmocka_run_group_tests(tests, fx_group_setup, fx_group_teardown);
}
