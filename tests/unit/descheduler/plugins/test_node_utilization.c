/* LowNodeUtilization and HighNodeUtilization with requests: who is under
 * and over the thresholds, how far pods move, upstream's early returns. */
#include "testutil.h"
#include "fixtures.h"
#include "descheduler/desched_fixtures.h"

#define LOW_ARGS "thresholds: {cpu: 20, memory: 20, pods: 20}, targetThresholds: {cpu: 50, memory: 50, pods: 50}"

/* n1 hot: 8 pods of 1000m on 10 cpus (80%); n2 and n3 idle. */
static void hot_and_idle(dx_env *e) {
    dx_node(e, "n1", 10000, 10240, 20, "", "");
    dx_node(e, "n2", 10000, 10240, 20, "", "");
    dx_node(e, "n3", 10000, 10240, 20, "", "");
    char name[16];
    for (int i = 0; i < 8; i++) {
        snprintf(name, sizeof name, "p%d", i);
        dx_pod(e, name, "n1", 1000, 512, "", "");
    }
    dx_pod(e, "q", "n2", 1000, 512, "", "");
}

static void all_busy(dx_env *e) {
    hot_and_idle(e);
    dx_pod(e, "r", "n3", 1000, 512, "", "");
}

static void expect_low(void (*setup)(dx_env *), const char *top, const char *args, const char *want) {
    dx_expect(setup, top, "LowNodeUtilization", "balance", args, want);
}

static void test_moves_until_target(void **state) {
    (void)state;
    /* 80% -> 50%: three pods leave n1 (pods count 8/20 = 40% is not over 50) */
    dx_env e;
    dx_init(&e);
    hot_and_idle(&e);
    dx_policy_one(&e, "", "LowNodeUtilization", "balance", LOW_ARGS, "");
    dx_run(&e);
    assert_int_equal(e.pass.nevictions, 3);
    for (uint32_t i = 0; i < e.pass.nevictions; i++) {
        assert_string_equal(ms_str_get(e.fx.in, e.pass.evictions[i].node), "n1");
        assert_string_equal(e.pass.evictions[i].strategy, "LowNodeUtilization");
    }
    dx_free(&e);
}

static void test_lowest_priority_first(void **state) {
    (void)state;
    dx_env e;
    dx_init(&e);
    dx_node(&e, "n1", 10000, 10240, 20, "", "");
    dx_node(&e, "n2", 10000, 10240, 20, "", "");
    dx_pod(&e, "high", "n1", 4000, 512, "", ", priority: 100");
    dx_pod(&e, "low", "n1", 4000, 512, "", ", priority: 1");
    dx_policy_one(&e, "", "LowNodeUtilization", "balance", LOW_ARGS, "");
    dx_run(&e);
    char buf[64];
    assert_string_equal(dx_evicted(&e, buf, sizeof buf), "low");
    dx_free(&e);
}

static void test_early_returns(void **state) {
    (void)state;
    /* two underutilized nodes are not more than numberOfNodes: 2 */
    expect_low(hot_and_idle, "", LOW_ARGS ", numberOfNodes: 2", "");
    /* no node over target */
    expect_low(hot_and_idle, "", "thresholds: {cpu: 20}, targetThresholds: {cpu: 90}", "");
    /* no node under thresholds */
    expect_low(all_busy, "", "thresholds: {cpu: 5}, targetThresholds: {cpu: 50}", "");
    expect_low(all_busy, "", "thresholds: {cpu: 10}, targetThresholds: {cpu: 50}", "p0,p1,p2");
    /* the policy's limit per node */
    expect_low(hot_and_idle, "maxNoOfPodsToEvictPerNode: 1\n", LOW_ARGS, "p0");
    /* excluded namespace */
    expect_low(hot_and_idle, "", LOW_ARGS ", evictableNamespaces: {exclude: [default]}", "");
}

/* Deviation: mean cpu use is 30%; n1 (80%) is over mean+10, n2 (10%) and
 * n3 (0%) under mean-10. */
static void test_deviation(void **state) {
    (void)state;
    dx_env e;
    dx_init(&e);
    hot_and_idle(&e);
    dx_policy_one(&e, "", "LowNodeUtilization", "balance",
                  "useDeviationThresholds: true, thresholds: {cpu: 10}, targetThresholds: {cpu: 10}", "");
    dx_run(&e);
    /* 80% down to 40% (mean + 10): four pods */
    assert_int_equal(e.pass.nevictions, 4);
    dx_free(&e);
}

static void test_destination_taints(void **state) {
    (void)state;
    dx_env e;
    dx_init(&e);
    dx_node(&e, "n1", 10000, 10240, 20, "", "");
    dx_node(&e, "n2", 10000, 10240, 20, "", "taints: [{key: k, effect: NoSchedule}]");
    dx_pod(&e, "a", "n1", 8000, 512, "", "");
    dx_policy_one(&e, "", "LowNodeUtilization", "balance", LOW_ARGS, "");
    dx_run(&e);
    assert_int_equal(e.pass.nevictions, 0);
    dx_free(&e);
}

static void test_high_node_utilization(void **state) {
    (void)state;
    dx_env e;
    dx_init(&e);
    dx_node(&e, "n1", 10000, 10240, 20, "", "");
    dx_node(&e, "n2", 10000, 10240, 20, "", "");
    dx_node(&e, "n3", 10000, 10240, 20, "", "");
    dx_pod(&e, "a", "n1", 500, 256, "", "");
    dx_pod(&e, "b", "n2", 5000, 5120, "", "");
    dx_pod(&e, "c", "n3", 6000, 5120, "", "");
    dx_policy_one(&e, "", "HighNodeUtilization", "balance", "thresholds: {cpu: 20, memory: 20}", "");
    dx_run(&e);
    char buf[64];
    assert_string_equal(dx_evicted(&e, buf, sizeof buf), "a");
    dx_free(&e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_moves_until_target),
        cmocka_unit_test(test_lowest_priority_first),
        cmocka_unit_test(test_early_returns),
        cmocka_unit_test(test_deviation),
        cmocka_unit_test(test_destination_taints),
        cmocka_unit_test(test_high_node_utilization),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
