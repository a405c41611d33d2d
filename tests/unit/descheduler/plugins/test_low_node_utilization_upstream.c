/* LowNodeUtilization against eleven cases of upstream v0.36's
 * TestLowNodeUtilization table (lownodeutilization_test.go), with
 * requests (upstream's default; the metrics columns are not ported), in
 * our own data: 400m pods on a busy n1 (9 pods allowed), n2 with one, n3
 * unschedulable; thresholds cpu 30 / pods 30, targets cpu 50 / pods 50;
 * nodeFit, as upstream's test runs the evictor. The cases with an
 * extended resource, metrics or evictionLimits are not ported.
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
    {"deviation thresholds", {NODES},
     {{5, "n1", "", NULL, "", NULL, 400}, {1, "n1", "", DS, "", NULL, 400}, MIRROR_LOCAL, CRITICAL, N2_POD}, NULL,
     "thresholds: {cpu: 5, pods: 5}, targetThresholds: {cpu: 5, pods: 5}, useDeviationThresholds: true", FIT, 2},
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_upstream_table),
        cmocka_unit_test(test_include_namespaces_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
