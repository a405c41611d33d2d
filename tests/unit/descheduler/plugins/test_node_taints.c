/* RemovePodsViolatingNodeTaints, after upstream's table: untolerated
 * NoSchedule taints evict, PreferNoSchedule only when asked, excluded and
 * included taints, and the policy's limits. */
#include "testutil.h"
#include "fixtures.h"
#include "descheduler/desched_fixtures.h"

#define TOL_KEY1 ", tolerations: [{key: key1, operator: Equal, value: v1, effect: NoSchedule}]"

static void cluster(dx_env *e) {
    dx_node(e, "n1", 4000, 4096, 110, "", "taints: [{key: key1, value: v1, effect: NoSchedule}]");
    dx_node(e, "n2", 4000, 4096, 110, "", "taints: [{key: key2, value: v2, effect: PreferNoSchedule}]");
    dx_node(e, "n3", 4000, 4096, 110, "", "");
    dx_pod(e, "a", "n1", 100, 100, "", "");
    dx_pod(e, "b", "n1", 100, 100, "", TOL_KEY1);
    dx_pod(e, "c", "n1", 100, 100, "", "");
    dx_pod(e, "d", "n2", 100, 100, "", "");
    dx_pod(e, "e", "n3", 100, 100, "", "");
}

static void expect(const char *top, const char *args, const char *want) {
    dx_expect(cluster, top, "RemovePodsViolatingNodeTaints", "deschedule", args, want);
}

static void test_no_schedule(void **state) {
    (void)state;
    expect("", "", "a,c");
}

static void test_prefer_no_schedule(void **state) {
    (void)state;
    expect("", "includePreferNoSchedule: true", "a,c,d");
}

static void test_excluded_taints(void **state) {
    (void)state;
    expect("", "excludedTaints: [key1]", "");
    expect("", "excludedTaints: ['key1=v1']", "");
    expect("", "excludedTaints: ['key1=other']", "a,c");
    expect("", "includePreferNoSchedule: true, excludedTaints: [key1]", "d");
}

static void test_included_taints(void **state) {
    (void)state;
    expect("", "includePreferNoSchedule: true, includedTaints: [key2]", "d");
    expect("", "includedTaints: ['key1=v1']", "a,c");
    expect("", "includedTaints: []", "");
}

static void test_limits(void **state) {
    (void)state;
    expect("maxNoOfPodsToEvictPerNode: 1\n", "includePreferNoSchedule: true", "a,d");
    expect("maxNoOfPodsToEvictTotal: 2\n", "includePreferNoSchedule: true", "a,c");
    expect("maxNoOfPodsToEvictPerNamespace: 1\n", "", "a");
}

static void test_namespaces_and_selector(void **state) {
    (void)state;
    expect("", "namespaces: {exclude: [default]}", "");
    expect("", "namespaces: {include: [default]}", "a,c");
    expect("", "labelSelector: {matchLabels: {app: nothing}}", "");
}

static void test_evictor_skips_with_reason(void **state) {
    (void)state;
    dx_env e;
    dx_init(&e);
    dx_node(&e, "n1", 4000, 4096, 110, "", "taints: [{key: key1, value: v1, effect: NoSchedule}]");
    dx_pod_yaml(&e, "n1", "metadata: {name: bare, namespace: default, uid: u-bare}\n"
                          "spec: {containers: [{name: c, image: i}]}\nstatus: {phase: Running}\n");
    dx_policy_one(&e, "", "RemovePodsViolatingNodeTaints", "deschedule", "", "");
    dx_run(&e);
    assert_int_equal(e.pass.nevictions, 0);
    assert_string_equal(dx_skip_reason(&e, "bare"), "pod does not have any ownerRefs");
    dx_free(&e);
}

static void test_node_fit(void **state) {
    (void)state;
    /* With nodeFit, a pod that fits no other node stays. */
    dx_env e;
    dx_init(&e);
    dx_node(&e, "n1", 4000, 4096, 110, "", "taints: [{key: key1, value: v1, effect: NoSchedule}]");
    dx_node(&e, "n2", 4000, 4096, 110, "", "unschedulable: true");
    dx_pod(&e, "a", "n1", 100, 100, "", "");
    dx_policy_one(&e, "", "RemovePodsViolatingNodeTaints", "deschedule", "", "nodeFit: true");
    dx_run(&e);
    assert_int_equal(e.pass.nevictions, 0);
    assert_non_null(dx_skip_reason(&e, "a"));
    dx_free(&e);
}

/* minReplicas counts the owner's pods on the pass's nodes: the cluster
 * has three pods of ReplicaSet rs (a, b, c on n1; d on n2; e on n3: five). */
static void test_min_replicas(void **state) {
    (void)state;
    static const struct {
        const char *evictor;
        const char *want;
    } cases[] = {{"minReplicas: 5", "a,c"}, {"minReplicas: 6", ""}};
    for (size_t i = 0; i < 2; i++) {
        dx_env e;
        dx_init(&e);
        cluster(&e);
        dx_policy_one(&e, "", "RemovePodsViolatingNodeTaints", "deschedule", "", cases[i].evictor);
        dx_run(&e);
        char buf[64];
        assert_string_equal(dx_evicted(&e, buf, sizeof buf), cases[i].want);
        if (!*cases[i].want) assert_string_equal(dx_skip_reason(&e, "a"), "owner has fewer replicas than minReplicas");
        dx_free(&e);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_schedule),
        cmocka_unit_test(test_prefer_no_schedule),
        cmocka_unit_test(test_excluded_taints),
        cmocka_unit_test(test_included_taints),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_namespaces_and_selector),
        cmocka_unit_test(test_evictor_skips_with_reason),
        cmocka_unit_test(test_node_fit),
        cmocka_unit_test(test_min_replicas),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
