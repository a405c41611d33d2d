/* RemovePodsViolatingNodeAffinity against upstream v0.36's
 * TestRemovePodsViolatingNodeAffinity table (node_affinity_test.go), in
 * our own data: a pod with a required or preferred node affinity to
 * kubernetes.io/desiredNode=yes and two pods without, on a node with or
 * without that label; the same limits, node fit and expected counts. */
#include "testutil.h"
#include "fixtures.h"
#include "descheduler/desched_fixtures.h"
#include "descheduler/upstream_cases.h"

#define PL "RemovePodsViolatingNodeAffinity"
#define EXPR "{matchExpressions: [{key: kubernetes.io/desiredNode, operator: In, values: ['yes']}]}"
#define REQ ", affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [" EXPR "]}}}"
#define PREF ", affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 10, preference: " EXPR "}]}}"
#define PODS(node, aff) {1, node, "", NULL, aff}, {2, node, ""}
#define GONE UC_OWNER ", deletionTimestamp: '2023-12-31T23:59:00Z'"
#define PODS_GONE(node, aff) {1, node, "", GONE, aff}, {2, node, "", GONE}
#define WITH {"nodeWithLabels", 0, 0, "kubernetes.io/desiredNode: 'yes'", ""}
#define WITHOUT {"nodeWithoutLabels", 0, 0, "", ""}
#define UNSCHED {"unschedulableNodeWithLabels", 0, 0, "kubernetes.io/desiredNode: 'yes'", "unschedulable: true"}
#define A_REQ "nodeAffinityType: [requiredDuringSchedulingIgnoredDuringExecution]"
#define A_PREF "nodeAffinityType: [preferredDuringSchedulingIgnoredDuringExecution]"

static const uc_case cases[] = {
    {"Pod is correctly scheduled on node, no eviction expected [required affinity]", {WITH},
     {PODS("nodeWithLabels", REQ)}, NULL, A_REQ, "", 0},
    {"Pod is correctly scheduled on node, no eviction expected [preferred affinity]", {WITH},
     {PODS("nodeWithLabels", PREF)}, NULL, A_PREF, "", 0},
    {"Pod is scheduled on node without matching labels, another schedulable node available, should be evicted",
     {WITHOUT, WITH}, {PODS("nodeWithoutLabels", REQ)}, NULL, A_REQ, "", 1},
    {"Pod is scheduled on node without matching labels, another schedulable node available with better fit, should be "
     "evicted",
     {WITHOUT, WITH}, {PODS("nodeWithoutLabels", PREF)}, NULL, A_PREF, "", 1},
    {"..., maxPodsToEvictPerNode set to 1, should be evicted [required affinity]", {WITHOUT, WITH},
     {PODS("nodeWithoutLabels", REQ)}, "maxNoOfPodsToEvictPerNode: 1\n", A_REQ, "", 1},
    {"..., maxPodsToEvictPerNode set to 1, should be evicted [preferred affinity]", {WITHOUT, WITH},
     {PODS("nodeWithoutLabels", PREF)}, "maxNoOfPodsToEvictPerNode: 1\n", A_PREF, "", 1},
    {"..., maxPodsToEvictPerNode set to 0, should be not evicted [required affinity]", {WITHOUT, WITH},
     {PODS("nodeWithoutLabels", REQ)}, "maxNoOfPodsToEvictPerNode: 0\n", A_REQ, "", 0},
    {"..., maxPodsToEvictPerNode set to 0, should be not evicted [preferred affinity]", {WITHOUT, WITH},
     {PODS("nodeWithoutLabels", PREF)}, "maxNoOfPodsToEvictPerNode: 0\n", A_PREF, "", 0},
    {"..., maxPodsToEvictPerNode set to 1, no pod evicted since pod terminating [required affinity]", {WITHOUT, WITH},
     {PODS_GONE("nodeWithoutLabels", REQ)}, "maxNoOfPodsToEvictPerNode: 1\n", A_REQ, "", 0},
    {"..., maxPodsToEvictPerNode set to 1, no pod evicted since pod terminating [preferred affinity]", {WITHOUT, WITH},
     {PODS_GONE("nodeWithoutLabels", PREF)}, "maxNoOfPodsToEvictPerNode: 1\n", A_PREF, "", 0},
    {"..., maxNoOfPodsToEvictPerNamespace set to 1, should be evicted [required affinity]", {WITHOUT, WITH},
     {PODS("nodeWithoutLabels", REQ)}, "maxNoOfPodsToEvictPerNamespace: 1\n", A_REQ, "", 1},
    {"..., maxNoOfPodsToEvictTotal set to 0, should not be evicted [required affinity]", {WITHOUT, WITH},
     {PODS("nodeWithoutLabels", REQ)}, "maxNoOfPodsToEvictPerNamespace: 1\nmaxNoOfPodsToEvictTotal: 0\n", A_REQ, "", 0},
    {"..., maxNoOfPodsToEvictPerNamespace set to 1, should be evicted [preferred affinity]", {WITHOUT, WITH},
     {PODS("nodeWithoutLabels", PREF)}, "maxNoOfPodsToEvictPerNamespace: 1\n", A_PREF, "", 1},
    {"..., maxNoOfPodsToEvictPerNamespace set to 0, should not be evicted [required affinity]", {WITHOUT, WITH},
     {PODS("nodeWithoutLabels", REQ)}, "maxNoOfPodsToEvictPerNamespace: 0\n", A_REQ, "", 0},
    {"..., maxNoOfPodsToEvictPerNamespace set to 0, should not be evicted [preferred affinity]", {WITHOUT, WITH},
     {PODS("nodeWithoutLabels", PREF)}, "maxNoOfPodsToEvictPerNamespace: 0\n", A_PREF, "", 0},
    {"..., maxNoOfPodsToEvictPerNamespace set to 1, no pod evicted since pod terminting [required affinity]",
     {WITHOUT, WITH}, {PODS_GONE("nodeWithoutLabels", REQ)}, "maxNoOfPodsToEvictPerNamespace: 1\n", A_REQ, "", 0},
    {"..., maxNoOfPodsToEvictPerNamespace set to 1, no pod evicted since pod terminting [preferred affinity]",
     {WITHOUT, WITH}, {PODS_GONE("nodeWithoutLabels", PREF)}, "maxNoOfPodsToEvictPerNamespace: 1\n", A_PREF, "", 0},
    {"..., but no node where pod fits is available, should not evict [required affinity]", {WITHOUT, UNSCHED},
     {PODS("nodeWithoutLabels", REQ)}, NULL, A_REQ, "nodeFit: true", 0},
    {"..., but no node where pod fits is available, should not evict [preferred affinity]", {WITHOUT, UNSCHED},
     {PODS("nodeWithoutLabels", PREF)}, NULL, A_PREF, "nodeFit: true", 0},
    {"..., and unschedulable node where pod could fit is available, should not evict [required affinity]",
     {WITH, UNSCHED}, {PODS("nodeWithoutLabels", REQ)}, "maxNoOfPodsToEvictPerNode: 1\n", A_REQ, "nodeFit: true", 0},
    {"..., and unschedulable node where pod could fit is available, should not evict [preferred affinity]",
     {WITH, UNSCHED}, {PODS("nodeWithoutLabels", PREF)}, "maxNoOfPodsToEvictPerNode: 1\n", A_PREF, "nodeFit: true",
     0},
};

static void test_upstream_table(void **state) {
    (void)state;
    uc_run(PL, "deschedule", cases, sizeof cases / sizeof cases[0]);
}

/* upstream's "Invalid Affinity type, should not evict any pods": upstream
 * accepts a nodeAffinityType it does not know and logs it at each pass,
 * evicting nothing; moonsched refuses the policy when it loads, so that a
 * typo does not silently turn the strategy off (a deliberate difference). */
static void test_invalid_affinity_type_refused(void **state) {
    (void)state;
    uc_refused(PL, "deschedule", "nodeAffinityType: [requiredDuringSchedulingRequiredDuringExecution]",
               "invalid nodeAffinityType: requiredDuringSchedulingRequiredDuringExecution",
               "Invalid Affinity type, should not evict any pods", "refused at load");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_upstream_table),
        cmocka_unit_test(test_invalid_affinity_type_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
