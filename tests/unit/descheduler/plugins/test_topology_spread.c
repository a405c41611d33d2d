/* RemovePodsViolatingTopologySpreadConstraint: upstream's domain
 * balancing (half the excess skew, towards the average), the order pods
 * are chosen in, ScheduleAnyway only when asked, node fit. */
#include "testutil.h"
#include "fixtures.h"
#include "descheduler/desched_fixtures.h"

#define PL "RemovePodsViolatingTopologySpreadConstraint"

static void zones(dx_env *e, const char *when, const char *b_spec) {
    dx_node(e, "a1", 8000, 8192, 110, "zone: a", "");
    dx_node(e, "a2", 8000, 8192, 110, "zone: a", "");
    dx_node(e, "b1", 8000, 8192, 110, "zone: b", b_spec);
    char spec[512], prio[600];
    snprintf(spec, sizeof spec,
             ", topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: %s, "
             "labelSelector: {matchLabels: {app: web}}}]", when);
    snprintf(prio, sizeof prio, ", priority: 5%s", spec);
    dx_pod(e, "w1", "a1", 100, 100, ", labels: {app: web}", spec);
    dx_pod(e, "w2", "a1", 100, 100, ", labels: {app: web}", spec);
    dx_pod(e, "w3", "a2", 100, 100, ", labels: {app: web}", spec);
    dx_pod(e, "w4", "a2", 100, 100, ", labels: {app: web}", prio);
}

static void hard(dx_env *e) { zones(e, "DoNotSchedule", ""); }
static void soft(dx_env *e) { zones(e, "ScheduleAnyway", ""); }
static void b_tainted(dx_env *e) { zones(e, "DoNotSchedule", "taints: [{key: k, effect: NoSchedule}]"); }

static void within_skew(dx_env *e) {
    hard(e);
    dx_pod(e, "w5", "b1", 100, 100, ", labels: {app: web}", "");
    dx_pod(e, "w6", "b1", 100, 100, ", labels: {app: web}", "");
    dx_pod(e, "w7", "b1", 100, 100, ", labels: {app: web}", "");
}

static void skew_two(dx_env *e) {
    hard(e);
    dx_pod(e, "w5", "b1", 100, 100, ", labels: {app: web}", "");
    dx_pod(e, "w6", "b1", 100, 100, ", labels: {app: web}", "");
}

static void test_balance_domains(void **state) {
    (void)state;
    /* 4 in zone a, 0 in b, maxSkew 1: two move, w4 (priority 5) last */
    dx_expect(hard, "", PL, "balance", "", "w3,w2");
    /* 4 and 3: within maxSkew */
    dx_expect(within_skew, "", PL, "balance", "", "");
    /* 4 and 2: one moves */
    dx_expect(skew_two, "", PL, "balance", "", "w3");
}

static void test_constraints_arg(void **state) {
    (void)state;
    dx_expect(soft, "", PL, "balance", "", "");
    dx_expect(soft, "", PL, "balance", "constraints: [ScheduleAnyway]", "w3,w2");
    dx_expect(hard, "", PL, "balance", "constraints: [ScheduleAnyway]", "");
}

static void test_node_fit(void **state) {
    (void)state;
    /* zone b's only node is tainted: nothing fits there */
    dx_expect(b_tainted, "", PL, "balance", "", "");
    dx_expect(b_tainted, "", PL, "balance", "topologyBalanceNodeFit: false", "w3,w2");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_balance_domains),
        cmocka_unit_test(test_constraints_arg),
        cmocka_unit_test(test_node_fit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
