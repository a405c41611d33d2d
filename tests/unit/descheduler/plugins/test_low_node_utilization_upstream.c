/* LowNodeUtilization against upstream v0.36's TestLowNodeUtilization
 * table (lownodeutilization_test.go), with requests (upstream's default),
 * in our own data: 400m pods on a busy n1 (9 pods allowed), n2 with one,
 * n3 unschedulable; thresholds cpu 30 / pods 30, targets cpu 50 / pods
 * 50; nodeFit, as upstream's test runs the evictor. The extended resource
 * is example.com/accel, requested by pods of 0 cpu as upstream's are.
 * Not applicable: each case's "with metrics enabled" run and
 * TestLowNodeUtilizationWithPrometheusMetrics (usage read from
 * metrics-server or Prometheus, a source moonsched does not have:
 * metricsUtilization is refused). evictionLimits is refused too; its case
 * is run with the policy's per-node limit instead.
 * And TestLowNodeUtilizationWithTaints: eight 200m pods on n1, thresholds
 * pods 20 / 70, nodeFit, the per-node limit set to the expected count as
 * upstream's test sets it. */
#include "testutil.h"
#include "fixtures.h"
#include "descheduler/desched_fixtures.h"
#include "descheduler/upstream_cases.h"

#define PL "LowNodeUtilization"
#define NODES {"n1", 4000, 9, "", ""}, {"n2", 4000, 10, "", ""}, {"n3", 4000, 10, "", "unschedulable: true"}
#define DS ", ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: ds, uid: ds}]"
#define RS_IN(ns) {1, "n1", "", NULL, "", NULL, 400, ns}
#define MIRROR_LOCAL                                                                              \
    {1, "n1", "", UC_OWNER ", annotations: {kubernetes.io/config.mirror: m}",                       \
     ", volumes: [{name: h, hostPath: {path: /x}}, {name: s, emptyDir: {}}]", NULL, 400}
#define CRITICAL {1, "n1", "", "", ", priority: 2000000000", NULL, 400, "kube-system"}
#define N2_POD {1, "n2", "", NULL, "", NULL, 400}
#define BEST_EFFORT {1, "n1", "", NULL, "", NULL, 0, NULL, NULL, "{name: c, image: i}"}
#define FIT "nodeFit: true"   /* upstream's TestLowNodeUtilization runs DefaultEvictor with nodeFit */
#define TAINT_ARGS "thresholds: {pods: 20}, targetThresholds: {pods: 70}"
#define N3_TAINTED {"n3", 1000, 10, "", "taints: [{key: key, value: value, effect: NoSchedule}]"}
#define TOLERATES ", tolerations: [{key: key, value: value}]"
#define ARGS "thresholds: {cpu: 30, pods: 30}, targetThresholds: {cpu: 50, pods: 50}"
#define POD_OWNER ", ownerReferences: [{apiVersion: v1, kind: Pod, name: owner, uid: owner}]"
#define ACCEL(k) ", example.com/accel: " #k
#define ACCEL_REQ(k) "{name: c, image: img, resources: {requests: {cpu: 0m, memory: 0, example.com/accel: " #k "}}}"
#define ACCEL_POD(n, node, meta, k) {n, node, "", meta, "", NULL, 0, NULL, NULL, ACCEL_REQ(k)}
#define ZERO_POD(n, node) {n, node, "", NULL, "", NULL, 0, NULL, NULL, "{name: c, image: img, resources: {requests: {cpu: 0m, memory: 0}}}"}
#define ACCEL_ARGS(lo, hi) "thresholds: {pods: " #lo ", example.com/accel: " #lo "}, " \
                           "targetThresholds: {pods: " #hi ", example.com/accel: " #hi "}"
#define MIRROR_META UC_OWNER ", annotations: {kubernetes.io/config.mirror: m}"
#define LOCAL ", volumes: [{name: h, hostPath: {path: /x}}, {name: s, emptyDir: {}}]"
#define MEM_REQ(mem) "{name: c, image: img, resources: {requests: {cpu: 400m, memory: " mem "}}}"
#define MEM_POD(n, node, meta, spec, ns, mem) {n, node, "", meta, spec, NULL, 0, ns, NULL, MEM_REQ(mem)}
#define WEST_AFFINITY                                                                                            \
    ", affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "           \
    "[{matchExpressions: [{key: datacenter, operator: In, values: [west]}]}]}}}"

static const uc_case cases[] = {
    {"no evictable pods", {NODES}, {{4, "n1", "", DS, "", NULL, 400}, MIRROR_LOCAL, CRITICAL, N2_POD}, NULL, ARGS, FIT,
     0},
    {"without priorities", {NODES},
     {{5, "n1", "", NULL, "", NULL, 400}, {1, "n1", "", DS, "", NULL, 400}, MIRROR_LOCAL, CRITICAL, N2_POD}, NULL, ARGS,
     FIT, 4},
    {"without priorities, but excluding namespaces", {NODES},
     {RS_IN("namespace1"), RS_IN("namespace1"), RS_IN("namespace1"), RS_IN("namespace1"), RS_IN("namespace1"),
      {1, "n1", "", DS, "", NULL, 400}, MIRROR_LOCAL, CRITICAL, N2_POD},
     NULL, ARGS ", evictableNamespaces: {exclude: [namespace1]}", FIT, 0},
    {"without priorities stop when cpu capacity is depleted", {NODES},
     {{5, "n1", "", NULL, "", NULL, 400}, {1, "n1", "", DS, "", NULL, 400}, MIRROR_LOCAL, CRITICAL, N2_POD}, NULL, ARGS,
     FIT, 4},
    {"with priorities", {NODES},
     {{4, "n1", "", NULL, ", priority: 10000", NULL, 400}, {1, "n1", "", NULL, ", priority: 1000", NULL, 400},
      {1, "n1", "", DS, ", priority: 10000", NULL, 400},
      {1, "n1", "", UC_OWNER ", annotations: {kubernetes.io/config.mirror: m}",
       ", priority: 1000, volumes: [{name: h, hostPath: {path: /x}}, {name: s, emptyDir: {}}]", NULL, 400},
      CRITICAL, N2_POD},
     NULL, ARGS, FIT, 4},
    {"without priorities evicting best-effort pods only", {NODES},
     {BEST_EFFORT, BEST_EFFORT, {1, "n1", "", NULL, "", NULL, 400}, BEST_EFFORT, BEST_EFFORT,
      {1, "n1", "", DS, "", NULL, 400}, MIRROR_LOCAL, CRITICAL, N2_POD},
     NULL, ARGS, FIT, 4, "pod-0,pod-1,pod-3,pod-4"},
    {"without priorities, but only other node is unschedulable", {{"n1", 4000, 9}, {"n2", 4000, 10, "", "unschedulable: true"}},
     {{5, "n1", "", NULL, "", NULL, 400}, {1, "n1", "", DS, "", NULL, 400}, MIRROR_LOCAL, CRITICAL}, NULL, ARGS, FIT, 0},
    {"without priorities, but only other node doesn't match pod node selector for p4 and p5",
     {{"n1", 4000, 9}, {"n2", 4000, 10, "datacenter: east"}},
     {{3, "n1", "", NULL, "", NULL, 400}, {2, "n1", "", NULL, ", nodeSelector: {datacenter: west}", NULL, 400},
      {1, "n1", "", DS, "", NULL, 400}, MIRROR_LOCAL, CRITICAL},
     NULL, ARGS, FIT, 3},
    {"without priorities, but only other node doesn't match pod node affinity for p4 and p5",
     {{"n1", 4000, 9}, {"n2", 4000, 10, "datacenter: east"}},
     {{3, "n1", "", NULL, "", NULL, 400},
      {2, "n1", "", NULL,
       ", affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
       "[{matchExpressions: [{key: datacenter, operator: In, values: [west]}]}]}}}", NULL, 400},
      {1, "n1", "", DS, "", NULL, 400}, MIRROR_LOCAL, CRITICAL, {1, "n2", "", NULL, "", NULL, 0, NULL, NULL, "{name: c, image: i}"}},
     NULL, ARGS, FIT, 3},
    /* 4 pods may go by the pods count, but n2 takes only 3 more of the resource before reaching its target */
    {"with extended resource",
     {{"n1", 4000, 9, "", "", 0, ACCEL(8)}, {"n2", 4000, 10, "", "", 0, ACCEL(8)}, {"n3", 4000, 10, "", "unschedulable: true"}},
     {ACCEL_POD(5, "n1", NULL, 1), ACCEL_POD(1, "n1", POD_OWNER, 1),
      {1, "n1", "", MIRROR_META, LOCAL, NULL, 0, NULL, NULL, ACCEL_REQ(1)},
      {1, "n1", "", POD_OWNER, ", priority: 2000000000", NULL, 0, "kube-system", NULL, ACCEL_REQ(1)},
      ACCEL_POD(1, "n2", NULL, 1)},
     NULL, ACCEL_ARGS(30, 50), FIT, 3},
    /* n2 has none of the resource: no node is under both thresholds */
    {"with extended resource in some of nodes",
     {{"n1", 4000, 9, "", "", 0, ACCEL(8)}, {"n2", 4000, 10}, {"n3", 4000, 10, "", "unschedulable: true"}},
     {ACCEL_POD(1, "n1", NULL, 1), ZERO_POD(1, "n2")}, NULL, ACCEL_ARGS(30, 50), FIT, 0},
    {"with extended resource in some of nodes with deviation",
     {{"n1", 4000, 10, "", "", 0, ACCEL(8)}, {"n2", 4000, 10, "", "", 0, ACCEL(8)},
      {"n3", 4000, 10, "", "unschedulable: true"}},
     {ACCEL_POD(1, "n1", NULL, 1), ACCEL_POD(1, "n2", NULL, 7), ZERO_POD(1, "n2"), ZERO_POD(2, "n3")}, NULL,
     "thresholds: {pods: 5, example.com/accel: 10}, targetThresholds: {pods: 5, example.com/accel: 10}, "
     "useDeviationThresholds: true",
     FIT, 1},
    {"deviation thresholds", {NODES},
     {{5, "n1", "", NULL, "", NULL, 400}, {1, "n1", "", DS, "", NULL, 400}, MIRROR_LOCAL, CRITICAL, N2_POD}, NULL,
     "thresholds: {cpu: 5, pods: 5}, targetThresholds: {cpu: 5, pods: 5}, useDeviationThresholds: true", FIT, 2},
    /* n1 and n2 have no memory left: nodeFit finds no node for any pod */
    {"deviation thresholds and overevicting memory",
     {{"n1", 4000, 10}, {"n2", 4000, 10}, {"n3", 4000, 10, "", "unschedulable: true"}},
     {MEM_POD(5, "n1", NULL, "", NULL, "375Mi"), MEM_POD(1, "n1", DS, "", NULL, "375Mi"),
      MEM_POD(1, "n1", MIRROR_META, LOCAL, NULL, "375Mi"),
      MEM_POD(1, "n1", POD_OWNER, ", priority: 2000000000", "kube-system", "375Mi"),
      MEM_POD(1, "n2", NULL, "", NULL, "3000Mi")},
     NULL, "thresholds: {cpu: 5, pods: 5}, targetThresholds: {cpu: 5, pods: 5}, useDeviationThresholds: true", FIT,
     0},
    /* the two pods bound to datacenter west fit nowhere else */
    {"without priorities different evictions for requested and actual resources",
     {{"n1", 4000, 9}, {"n2", 4000, 10, "datacenter: east"}},
     {{3, "n1", "", NULL, "", NULL, 400}, {2, "n1", "", POD_OWNER, WEST_AFFINITY, NULL, 400},
      {1, "n1", "", DS, "", NULL, 400}, MIRROR_LOCAL,
      {1, "n1", "", POD_OWNER, ", priority: 2000000000", NULL, 400, "kube-system"}, ZERO_POD(1, "n2")},
     NULL, ARGS, FIT, 3},
    {"without priorities with node eviction limit", {NODES},
     {{5, "n1", "", NULL, "", NULL, 400}, {1, "n1", "", DS, "", NULL, 400}, MIRROR_LOCAL, CRITICAL, N2_POD},
     "maxNoOfPodsToEvictPerNode: 2\n", ARGS, FIT, 2, NULL,
     "evictionLimits is refused at load (below); the policy's maxNoOfPodsToEvictPerNode: 2 stands in for "
     "evictionLimits.node: 2 and gives upstream's count"},
    /* TestLowNodeUtilizationWithTaints */
    {"No taints", {{"n1", 2000}, {"n2", 1000}, {"n3", 1000}}, {{8, "n1", "", NULL, "", NULL, 200}, {1, "n2", "", NULL, "", NULL, 200}},
     "maxNoOfPodsToEvictPerNode: 1\n", TAINT_ARGS, "nodeFit: true", 1},
    {"No pod tolerates node taint", {{"n1", 2000}, N3_TAINTED},
     {{8, "n1", "", NULL, "", NULL, 200}, {1, "n3", "", NULL, "", NULL, 200}}, "maxNoOfPodsToEvictPerNode: 0\n", TAINT_ARGS,
     "nodeFit: true", 0},
    {"Pod which tolerates node taint", {{"n1", 2000}, N3_TAINTED},
     {{7, "n1", "", NULL, "", NULL, 200}, {1, "n1", "", NULL, TOLERATES, NULL, 200}, {1, "n3", "", NULL, "", NULL, 200}},
     "maxNoOfPodsToEvictPerNode: 1\n", TAINT_ARGS, "nodeFit: true", 1},
    {"Pod which tolerates node taint, set maxPodsToEvictTotal(0), should not be expelled", {{"n1", 2000}, N3_TAINTED},
     {{7, "n1", "", NULL, "", NULL, 200}, {1, "n1", "", NULL, TOLERATES, NULL, 200}, {1, "n3", "", NULL, "", NULL, 200}},
     "maxNoOfPodsToEvictPerNode: 0\nmaxNoOfPodsToEvictTotal: 0\n", TAINT_ARGS, "nodeFit: true", 0},
};

static void test_upstream_table(void **state) {
    (void)state;
    uc_run(PL, "balance", cases, sizeof cases / sizeof cases[0]);
}

/* upstream's "without priorities, but include only default namespace"
 * builds the plugin without validating its args; upstream's validation,
 * as moonsched's, refuses evictableNamespaces.include. */
static void test_include_namespaces_refused(void **state) {
    (void)state;
    uc_refused(PL, "balance", ARGS ", evictableNamespaces: {include: [default]}",
               "only Exclude namespaces can be set, inclusion is not supported",
               "without priorities, but include only default namespace",
               "refused at load, as upstream's validation refuses it (its test skips validation)");
}

/* upstream's "without priorities with node eviction limit" sets
 * evictionLimits.node, which moonsched refuses as not supported. */
static void test_eviction_limits_refused(void **state) {
    (void)state;
    uc_refused(PL, "balance", ARGS ", evictionLimits: {node: 2}", "evictionLimits: not supported",
               "without priorities with node eviction limit",
               "evictionLimits refused at load as not supported (the table runs the case with "
               "maxNoOfPodsToEvictPerNode)");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_upstream_table),
        cmocka_unit_test(test_include_namespaces_refused),
        cmocka_unit_test(test_eviction_limits_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
