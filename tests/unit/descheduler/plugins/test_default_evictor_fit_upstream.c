/* DefaultEvictor's PreEvictionFilter (nodeFit) against upstream v0.36's
 * TestDefaultEvictorPreEvictionFilter table (defaultevictor_test.go), in
 * our own data: the pod on node1 and the other nodes tainted, labelled or
 * small, memory in Mi where upstream counts bytes. The verdict is read
 * through a strategy that would evict every pod old enough (PodLifeTime,
 * maxPodLifeTimeSeconds 0). Its two namespaceLabelSelector cases, and
 * TestNamespaceLabelSelectorAllOperations and
 * TestMultipleProfilesWithDifferentNamespaceLabelSelectors (one case per
 * profile), run with the namespaces the pass knows: the pods evicted are
 * those upstream's PreEvictionFilter lets through. */
#include "testutil.h"
#include "fixtures.h"
#include "descheduler/desched_fixtures.h"
#include "descheduler/upstream_cases.h"

#define PL "PodLifeTime"
#define NODE1 {"node1", 0, 0, "", ""}
#define TAINTED(n) {n, 0, 0, "", "taints: [{key: hardware, value: gpu, effect: NoSchedule}]"}
#define EAST(n, cpu, mem) {n, cpu, 10, "datacenter: east", "", mem}
#define P1(spec) {1, "node1", "", NULL, spec}
#define SMALL_P1 {1, "node1", "", NULL, ", nodeSelector: {datacenter: east}", NULL, 0, NULL, NULL, \
                  "{name: c, image: i, resources: {requests: {cpu: 12m, memory: 8Mi}}}"}
#define FILLER(node, cpu) {1, node, "test: 'true'", "", "", NULL, 0, NULL, NULL, \
                           "{name: c, image: i, resources: {requests: {cpu: " cpu ", memory: 10Mi}}}"}
#define EAST_SEL ", nodeSelector: {datacenter: east}"
#define FIT "nodeFit: true"
#define ALL "maxPodLifeTimeSeconds: 0"
#define POD_OWNER ", ownerReferences: [{apiVersion: v1, kind: Pod, name: owner, uid: owner}]"
#define IN_NS(ns) {1, "node1", "", POD_OWNER, "", NULL, 100, ns}
#define NS_SEL(sel) "namespaceLabelSelector: {" sel "}"
#define META_NAME(ns) ns "{kubernetes.io/metadata.name=" ns "}"
/* TestNamespaceLabelSelectorAllOperations: pod-0 in ns-prod, pod-1 in
 * ns-staging, pod-2 in ns-test, pod-3 in ns-nolabels */
#define FOUR_NS "ns-prod{env=prod;tier=frontend} ns-staging{env=staging;tier=backend} ns-test{env=test} ns-nolabels{}"
#define FOUR_PODS IN_NS("ns-prod"), IN_NS("ns-staging"), IN_NS("ns-test"), IN_NS("ns-nolabels")
/* TestMultipleProfilesWithDifferentNamespaceLabelSelectors: pod-0 in
 * ns-prod, pod-1 in ns-test, pod-2 in ns-backend */
#define THREE_NS                                                                                                  \
    "ns-prod{kubernetes.io/metadata.name=ns-prod;env=prod} ns-test{kubernetes.io/metadata.name=ns-test;env=test} " \
    "ns-backend{kubernetes.io/metadata.name=ns-backend;team=backend}"
#define THREE_PODS IN_NS("ns-prod"), IN_NS("ns-test"), IN_NS("ns-backend")

static const uc_case cases[] = {
    {"Pod with no tolerations running on normal node, all other nodes tainted",
     {NODE1, TAINTED("node2"), TAINTED("node3")}, {P1("")}, NULL, ALL, FIT, 0},
    {"Pod with correct tolerations running on normal node, all other nodes tainted",
     {NODE1, TAINTED("node2"), TAINTED("node3")},
     {P1(", tolerations: [{key: hardware, value: gpu, effect: NoSchedule}]")}, NULL, ALL, FIT, 1},
    {"Pod with incorrect node selector", {NODE1, EAST("node2", 0, 0), EAST("node3", 0, 0)},
     {P1(", nodeSelector: {datacenter: fail}")}, NULL, ALL, FIT, 0},
    {"Pod with correct node selector", {NODE1, EAST("node2", 0, 0), EAST("node3", 0, 0)}, {P1(EAST_SEL)}, NULL, ALL,
     FIT, 1},
    {"Pod with correct node selector, but only available node doesn't have enough CPU",
     {NODE1, EAST("node2-TEST", 10, 16), EAST("node3-TEST", 10, 16)}, {SMALL_P1}, NULL, ALL, FIT, 0},
    {"Pod with correct node selector, and one node has enough memory",
     {NODE1, EAST("node2", 100, 16), EAST("node3", 100, 20)}, {SMALL_P1, FILLER("node2", "20m"), FILLER("node3", "20m")},
     NULL, ALL, FIT, 1},
    {"Pod with correct node selector, but both nodes don't have enough memory",
     {NODE1, EAST("node2", 100, 16), EAST("node3", 100, 16)}, {SMALL_P1, FILLER("node2", "10m"), FILLER("node3", "10m")},
     NULL, ALL, FIT, 0},
    {"Pod with incorrect node selector, but nodefit false, should still be evicted",
     {NODE1, EAST("node2", 0, 0), EAST("node3", 0, 0)}, {P1(", nodeSelector: {datacenter: fail}")}, NULL, ALL, "", 1},
};

static const uc_case ns_cases[] = {
    {"Pod with namespace matched namespace selector, should be evicted",
     {NODE1, EAST("node2", 1000, 2000), EAST("node3", 1000, 2000)},
     {{1, "node1", "", POD_OWNER, EAST_SEL, NULL, 400, "test"}}, NULL, ALL,
     FIT ", " NS_SEL("matchLabels: {kubernetes.io/metadata.name: test}"), 1, "pod-0", NULL,
     META_NAME("default") " " META_NAME("test")},
    {"Pod with namespace does not matched namespace selector, should not be evicted",
     {NODE1, EAST("node2", 1000, 2000), EAST("node3", 1000, 2000)},
     {{1, "node1", "", POD_OWNER, ", nodeSelector: {datacenter: fail}", NULL, 400, "default"}}, NULL, ALL,
     FIT ", " NS_SEL("matchLabels: {kubernetes.io/metadata.name: test}"), 0, NULL, NULL,
     META_NAME("default") " " META_NAME("test")},
    /* TestNamespaceLabelSelectorAllOperations */
    {"MatchLabels and MatchExpressions In", {NODE1}, {FOUR_PODS}, NULL, ALL,
     NS_SEL("matchLabels: {tier: frontend}, matchExpressions: [{key: env, operator: In, values: [prod, staging]}]"), 1,
     "pod-0", NULL, FOUR_NS},
    {"MatchLabels and MatchExpressions Exists", {NODE1}, {FOUR_PODS}, NULL, ALL,
     NS_SEL("matchLabels: {tier: backend}, matchExpressions: [{key: env, operator: Exists}]"), 1, "pod-1", NULL,
     FOUR_NS},
    {"Exists and In", {NODE1}, {FOUR_PODS}, NULL, ALL,
     NS_SEL("matchExpressions: [{key: tier, operator: Exists}, {key: env, operator: In, values: [staging]}]"), 1,
     "pod-1", NULL, FOUR_NS},
    {"DoesNotExist", {NODE1}, {FOUR_PODS}, NULL, ALL,
     NS_SEL("matchExpressions: [{key: tier, operator: DoesNotExist}]"), 2, "pod-2,pod-3", NULL, FOUR_NS},
    /* upstream checks ns-staging passes and ns-prod, ns-test fail; ns-nolabels,
     * not checked there, passes: NotIn holds for a key the namespace lacks */
    {"NotIn", {NODE1}, {FOUR_PODS}, NULL, ALL,
     NS_SEL("matchExpressions: [{key: env, operator: NotIn, values: [prod, test]}]"), 2, "pod-1,pod-3", NULL,
     FOUR_NS},
    /* TestMultipleProfilesWithDifferentNamespaceLabelSelectors */
    {"profile1", {NODE1}, {THREE_PODS}, NULL, ALL, NS_SEL("matchLabels: {env: prod}"), 1, "pod-0", NULL, THREE_NS},
    {"profile2", {NODE1}, {THREE_PODS}, NULL, ALL, NS_SEL("matchLabels: {team: backend}"), 1, "pod-2", NULL,
     THREE_NS},
};

static void test_upstream_table(void **state) {
    (void)state;
    uc_run_as("DefaultEvictor (PreEvictionFilter)", PL, "deschedule", cases, sizeof cases / sizeof cases[0]);
}

static void test_upstream_namespace_selector(void **state) {
    (void)state;
    uc_run_as("DefaultEvictor (namespaceLabelSelector)", PL, "deschedule", ns_cases,
              sizeof ns_cases / sizeof ns_cases[0]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_upstream_table),
        cmocka_unit_test(test_upstream_namespace_selector),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
