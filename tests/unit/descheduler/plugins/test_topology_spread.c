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

#define WEB_SPREAD ", topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, " \
                   "labelSelector: {matchLabels: {app: web}}}]"

/* Identical constraints carried by a pod pinned to ssd nodes and by pods
 * without selector: two constraints (upstream's nodeAffinityPolicy Honor
 * builds each with its own pod's affinity). Under the pinned pod's, zone b
 * (no ssd) does not count and a and c are even; under the others', b is
 * empty and a and c each give one. The pinned pod comes first. */
static void affinities(dx_env *e) {
    dx_node(e, "a1", 8000, 8192, 110, "zone: a, disk: ssd", "");
    dx_node(e, "b1", 8000, 8192, 110, "zone: b", "");
    dx_node(e, "c1", 8000, 8192, 110, "zone: c, disk: ssd", "");
    dx_pod(e, "a-ssd", "a1", 100, 100, ", labels: {app: web}", ", nodeSelector: {disk: ssd}" WEB_SPREAD);
    dx_pod(e, "a-2", "a1", 100, 100, ", labels: {app: web}", WEB_SPREAD);
    dx_pod(e, "a-3", "a1", 100, 100, ", labels: {app: web}", WEB_SPREAD);
    dx_pod(e, "c-1", "c1", 100, 100, ", labels: {app: web}", WEB_SPREAD);
    dx_pod(e, "c-2", "c1", 100, 100, ", labels: {app: web}", WEB_SPREAD);
    dx_pod(e, "c-3", "c1", 100, 100, ", labels: {app: web}", WEB_SPREAD);
}

/* Zone a: two small pods and one too big for zone b's node, first or
 * last in the file. One pod must move: the big one cannot, so a small one
 * goes, wherever the big one is written. */
static void two_zones(dx_env *e) {
    dx_node(e, "a1", 8000, 8192, 110, "zone: a", "");
    dx_node(e, "b1", 2000, 8192, 110, "zone: b", "");
}

static void pinned(dx_env *e, bool big_first) {
    two_zones(e);
    if (big_first) dx_pod(e, "big", "a1", 4000, 100, ", labels: {app: web}", WEB_SPREAD);
    dx_pod(e, "small-1", "a1", 100, 100, ", labels: {app: web}", WEB_SPREAD);
    dx_pod(e, "small-2", "a1", 100, 100, ", labels: {app: web}", WEB_SPREAD);
    if (!big_first) dx_pod(e, "big", "a1", 4000, 100, ", labels: {app: web}", WEB_SPREAD);
}
static void pinned_last(dx_env *e) { pinned(e, false); }
static void pinned_first(dx_env *e) { pinned(e, true); }

#define HASH_SPREAD ", topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, " \
                    "labelSelector: {matchLabels: {app: web}}, matchLabelKeys: [pod-template-hash]}]"

/* upstream's "matchLabelKeys on two different replicasets": zone a holds
 * one pod of each, per ReplicaSet [1, 0], within maxSkew; "on the same
 * replicaset": [2, 0], one moves. */
static void replicasets(dx_env *e, const char *second) {
    two_zones(e);
    dx_pod(e, "r1", "a1", 100, 100, ", labels: {app: web, pod-template-hash: h1}", HASH_SPREAD);
    dx_pod(e, "r2", "a1", 100, 100, second, HASH_SPREAD);
}
static void two_replicasets(dx_env *e) { replicasets(e, ", labels: {app: web, pod-template-hash: h2}"); }
static void one_replicaset(dx_env *e) { replicasets(e, ", labels: {app: web, pod-template-hash: h1}"); }

/* upstream's "sizes [4,2], 2 pods in termination": [2, 2] once the
 * terminating pods are left out. */
static void terminating(dx_env *e) {
    two_zones(e);
    dx_pod(e, "a-1", "a1", 100, 100, ", labels: {app: web}", WEB_SPREAD);
    dx_pod(e, "a-2", "a1", 100, 100, ", labels: {app: web}", WEB_SPREAD);
    dx_pod(e, "a-3", "a1", 100, 100, ", labels: {app: web}, deletionTimestamp: '2023-12-31T23:59:00Z'", WEB_SPREAD);
    dx_pod(e, "a-4", "a1", 100, 100, ", labels: {app: web}, deletionTimestamp: '2023-12-31T23:59:00Z'", WEB_SPREAD);
    dx_pod(e, "b-1", "b1", 100, 100, ", labels: {app: web}", WEB_SPREAD);
    dx_pod(e, "b-2", "b1", 100, 100, ", labels: {app: web}", WEB_SPREAD);
}

static void test_each_pods_affinity(void **state) {
    (void)state;
    /* the pods without selector: zone c gives one, then zone a gives
     * one (the ssd pod cannot go to b and is kept at the front) */
    dx_expect(affinities, "", PL, "balance", "", "c-3,a-3");
}

static void test_movable_pods_taken(void **state) {
    (void)state;
    dx_expect(pinned_last, "", PL, "balance", "", "small-2");
    dx_expect(pinned_first, "", PL, "balance", "", "small-2");
}

static void test_match_label_keys(void **state) {
    (void)state;
    dx_expect(two_replicasets, "", PL, "balance", "", "");
    dx_expect(one_replicaset, "", PL, "balance", "", "r2");
}

static void test_terminating_not_counted(void **state) {
    (void)state;
    dx_expect(terminating, "", PL, "balance", "", "");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_balance_domains),
        cmocka_unit_test(test_constraints_arg),
        cmocka_unit_test(test_node_fit),
        cmocka_unit_test(test_each_pods_affinity),
        cmocka_unit_test(test_movable_pods_taken),
        cmocka_unit_test(test_match_label_keys),
        cmocka_unit_test(test_terminating_not_counted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
