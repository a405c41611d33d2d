/* PodLifeTime against eleven of upstream v0.36's tables
 * (pod_lifetime_test.go): TestPodLifeTime, _EvictorConfiguration,
 * _GenericFiltering, _ContainerWaitingReasons, _EvictionLimits,
 * _PodStatusReasons, _AgeThreshold, _PodPhaseStates,
 * TestStatesWithTerminatedReasons, TestOwnerKindsFiltering and
 * TestStatesWithEphemeralContainers and one case of TestCombinedFilters,
 * in our own data
 * (pod-i is the case's i-th pod), maxPodLifeTimeSeconds 600, the pass's
 * clock 2024-01-01T00:00:00Z. */
#include "testutil.h"
#include "fixtures.h"
#include "descheduler/desched_fixtures.h"
#include "descheduler/upstream_cases.h"

#define PL "PodLifeTime"
#define NODE1 {"node1", 0, 0, "", ""}
#define OLDER "2009-11-10T23:00:00Z"
#define NEWER "2024-01-01T00:00:00Z"
#define POD(created, status) {1, "node1", "", NULL, "", status, 0, NULL, created}
#define BARE(created) {1, "node1", "", "", "", "phase: Running", 0, NULL, created}
#define RUN "phase: Running"
#define PEND "phase: Pending"
#define PEND_REASON(r) "phase: Pending, reason: " r
#define AGE "maxPodLifeTimeSeconds: 600"
#define STATES(s) AGE ", states: [" s "]"
#define WAIT(list, r) "phase: Pending, " list ": [{name: c, state: {waiting: {reason: " r "}}}]"
#define C_WAIT(r) WAIT("containerStatuses", r)
/* upstream's buildPod leaves creationTimestamp unset: the zero time, older
 * than any maximum */
#define UNSET "0001-01-01T00:00:00Z"
#define FAILED_BY(kind) {1, "node1", "", ", ownerReferences: [{apiVersion: batch/v1, kind: " kind ", name: o}]", "", "phase: Failed", 0, NULL, UNSET}
#define TERM(list, r) list ": [{name: c, state: {terminated: {reason: " r "}}}]"
#define GONE(created) {1, "node1", "foo: bar", UC_OWNER ", deletionTimestamp: '2023-12-31T23:59:00Z'", "", RUN, 0, NULL, created}

static const uc_case cases[] = {
    /* TestPodLifeTime */
    {"No pod should be evicted since pod terminating", {NODE1}, {GONE(OLDER), GONE(OLDER)}, NULL,
     AGE ", labelSelector: {matchLabels: {foo: bar}}", "", 0},
    /* TestPodLifeTime_EvictorConfiguration */
    {"Does not evict pvc pods with ignorePvcPods set to true", {NODE1},
     {{1, "node1", "", NULL, ", volumes: [{name: pvc, persistentVolumeClaim: {claimName: foo}}]", RUN, 0, NULL, OLDER}},
     NULL, AGE, "ignorePvcPods: true", 0},
    {"Evicts pvc pods with ignorePvcPods set to false (or unset)", {NODE1},
     {{1, "node1", "", NULL, ", volumes: [{name: pvc, persistentVolumeClaim: {claimName: foo}}]", RUN, 0, NULL, OLDER}},
     NULL, AGE, "", 1},
    /* TestPodLifeTime_GenericFiltering */
    {"1 pod matching label selector should be evicted", {NODE1},
     {{1, "node1", "foo: bar", NULL, "", RUN, 0, NULL, OLDER}, {1, "node1", "foo: bar1", NULL, "", RUN, 0, NULL, OLDER}},
     NULL, AGE ", labelSelector: {matchLabels: {foo: bar}}", "", 1, "pod-0"},
    /* TestPodLifeTime_ContainerWaitingReasons */
    {"Two pods, one with ContainerCreating state. 1 should be evicted.", {NODE1},
     {POD(OLDER, PEND), POD(OLDER, C_WAIT("ContainerCreating"))}, NULL, STATES("ContainerCreating"), "", 1},
    {"Two pods, one with PodInitializing state. 1 should be evicted.", {NODE1},
     {POD(OLDER, PEND), POD(OLDER, C_WAIT("PodInitializing"))}, NULL, STATES("PodInitializing"), "", 1},
    {"1 pod with container status ImagePullBackOff should be evicted", {NODE1}, {POD(OLDER, C_WAIT("ImagePullBackOff"))},
     NULL, STATES("ImagePullBackOff"), "", 1},
    {"1 pod with container status CrashLoopBackOff should be evicted", {NODE1}, {POD(OLDER, C_WAIT("CrashLoopBackOff"))},
     NULL, STATES("CrashLoopBackOff"), "", 1},
    {"1 pod with container status CreateContainerConfigError should be evicted", {NODE1},
     {POD(OLDER, C_WAIT("CreateContainerConfigError"))}, NULL, STATES("CreateContainerConfigError"), "", 1},
    {"1 pod with container status ErrImagePull should be evicted", {NODE1}, {POD(OLDER, C_WAIT("ErrImagePull"))}, NULL,
     STATES("ErrImagePull"), "", 1},
    {"1 pod with init container status CreateContainerError should not be evicted without includingInitContainers",
     {NODE1}, {POD(OLDER, WAIT("initContainerStatuses", "CreateContainerError"))}, NULL, STATES("CreateContainerError"),
     "", 0},
    {"1 pod with init container status CreateContainerError should be evicted with includingInitContainers", {NODE1},
     {POD(OLDER, WAIT("initContainerStatuses", "CreateContainerError"))}, NULL,
     STATES("CreateContainerError") ", includingInitContainers: true", "", 1},
    {"1 pod with ephemeral container status CreateContainerError should not be evicted without "
     "includingEphemeralContainers",
     {NODE1}, {POD(OLDER, WAIT("ephemeralContainerStatuses", "CreateContainerError"))}, NULL,
     STATES("CreateContainerError"), "", 0},
    {"1 pod with ephemeral container status CreateContainerError should be evicted with includingEphemeralContainers",
     {NODE1}, {POD(OLDER, WAIT("ephemeralContainerStatuses", "CreateContainerError"))}, NULL,
     STATES("CreateContainerError") ", includingEphemeralContainers: true", "", 0, NULL,
     "includingEphemeralContainers is accepted and not applied (documented): the ephemeral container's state is not "
     "read, nothing is evicted"},
    {"1 pod with container status CreateContainerError should be evicted", {NODE1},
     {POD(OLDER, C_WAIT("CreateContainerError"))}, NULL, STATES("CreateContainerError"), "", 1},
    {"1 pod with container status InvalidImageName should be evicted", {NODE1}, {POD(OLDER, C_WAIT("InvalidImageName"))},
     NULL, STATES("InvalidImageName"), "", 1},
    {"1 pod with ImagePullBackOff status should be ignored when States filter is ContainerCreating", {NODE1},
     {POD(OLDER, C_WAIT("ImagePullBackOff"))}, NULL, STATES("ContainerCreating"), "", 0},
    /* TestPodLifeTime_EvictionLimits */
    {"2 Oldest pods should be evicted when maxPodsToEvictPerNode and maxPodsToEvictPerNamespace are not set", {NODE1},
     {POD(NEWER, RUN), POD(OLDER, RUN), POD(OLDER, PEND)}, NULL, AGE, "", 2, "pod-1,pod-2"},
    {"1 Oldest pod should be evicted when maxPodsToEvictPerNamespace is set to 1", {NODE1},
     {POD(NEWER, RUN), POD(OLDER, RUN)}, "maxNoOfPodsToEvictPerNamespace: 1\n", AGE, "", 1, "pod-1"},
    {"1 Oldest pod should be evicted when maxPodsToEvictTotal is set to 1", {NODE1}, {POD(NEWER, RUN), POD(OLDER, RUN)},
     "maxNoOfPodsToEvictPerNamespace: 2\nmaxNoOfPodsToEvictTotal: 1\n", AGE, "", 1, "pod-1"},
    {"1 Oldest pod should be evicted when maxPodsToEvictPerNode is set to 1", {NODE1},
     {POD(NEWER, RUN), POD(OLDER, RUN)}, "maxNoOfPodsToEvictPerNode: 1\n", AGE, "", 1, "pod-1"},
    /* TestPodLifeTime_PodStatusReasons */
    {"1 pod with pod status reason NodeLost should be evicted", {NODE1}, {POD(OLDER, PEND_REASON("NodeLost"))}, NULL,
     STATES("NodeLost"), "", 1},
    {"1 pod with pod status reason NodeAffinity should be evicted", {NODE1}, {POD(OLDER, PEND_REASON("NodeAffinity"))},
     NULL, STATES("NodeAffinity"), "", 1},
    {"1 pod with pod status reason Shutdown should be evicted", {NODE1}, {POD(OLDER, PEND_REASON("Shutdown"))}, NULL,
     STATES("Shutdown"), "", 1},
    {"1 pod with pod status reason UnexpectedAdmissionError should be evicted", {NODE1},
     {POD(OLDER, PEND_REASON("UnexpectedAdmissionError"))}, NULL, STATES("UnexpectedAdmissionError"), "", 1},
    /* TestPodLifeTime_AgeThreshold */
    {"Two pods in the default namespace, 1 is new and 1 very is old. 1 should be evicted.", {NODE1},
     {POD(NEWER, RUN), POD(OLDER, RUN)}, NULL, AGE, "", 1, "pod-1"},
    {"Two pods in the default namespace, 2 are new and 0 are old. 0 should be evicted.", {NODE1},
     {POD(NEWER, RUN), POD(NEWER, RUN)}, NULL, AGE, "", 0},
    {"Two pods in the default namespace, 1 created 605 seconds ago. 1 should be evicted.", {NODE1},
     {POD(NEWER, RUN), POD("2023-12-31T23:49:55Z", RUN)}, NULL, AGE, "", 1, "pod-1"},
    {"Two pods in the default namespace, 1 created 595 seconds ago. 0 should be evicted.", {NODE1},
     {BARE(NEWER), BARE("2023-12-31T23:50:05Z")}, NULL, AGE, "", 0},
    /* TestPodLifeTime_PodPhaseStates */
    {"Two old pods with different states. 1 should be evicted.", {NODE1}, {POD(OLDER, PEND), POD(OLDER, RUN)}, NULL,
     STATES("Pending"), "", 1, "pod-0"},
    {"1 pod with pod status phase v1.PodSucceeded should be evicted", {NODE1}, {POD(OLDER, "phase: Succeeded")}, NULL,
     STATES("Succeeded"), "", 1},
    {"1 pod with pod status phase v1.PodFailed should be evicted", {NODE1}, {POD(OLDER, "phase: Failed")}, NULL,
     STATES("Failed"), "", 1},
    {"1 pod with pod status phase v1.PodUnknown should be evicted", {NODE1}, {POD(OLDER, "phase: Unknown")}, NULL,
     STATES("Unknown"), "", 1},
    /* TestStatesWithTerminatedReasons */
    {"evict pod with matching terminated reason via states", {NODE1},
     {POD(UNSET, "phase: Failed, " TERM("containerStatuses", "NodeAffinity"))}, NULL, "states: [NodeAffinity]", "", 1},
    {"evict pod with matching pod status reason via states", {NODE1}, {POD(UNSET, "phase: Failed, reason: Shutdown")},
     NULL, "states: [Shutdown]", "", 1},
    {"states matches terminated reason on init container", {NODE1},
     {POD(UNSET, TERM("initContainerStatuses", "CreateContainerConfigError"))}, NULL,
     "states: [CreateContainerConfigError], includingInitContainers: true", "", 1},
    {"states does not match terminated reason on init container without flag", {NODE1},
     {POD(UNSET, TERM("initContainerStatuses", "CreateContainerConfigError"))}, NULL,
     "states: [CreateContainerConfigError]", "", 0},
    /* TestOwnerKindsFiltering */
    {"exclude Job owner kind: Job-owned pod not evicted", {NODE1}, {FAILED_BY("Job")}, NULL,
     "states: [Failed], ownerKinds: {exclude: [Job]}", "", 0},
    {"exclude Job owner kind: non-Job pod still evicted", {NODE1}, {FAILED_BY("Job"), FAILED_BY("ReplicaSet")}, NULL,
     "states: [Failed], ownerKinds: {exclude: [Job]}", "", 1, "pod-1"},
    {"include only Job owner kind", {NODE1}, {FAILED_BY("Job"), FAILED_BY("ReplicaSet")}, NULL,
     "states: [Failed], ownerKinds: {include: [Job]}", "", 1, "pod-0"},
    /* TestStatesWithEphemeralContainers */
    {"states matches terminated reason on ephemeral container", {NODE1},
     {POD(UNSET, TERM("ephemeralContainerStatuses", "OOMKilled"))}, NULL,
     "states: [OOMKilled], includingEphemeralContainers: true", "", 0, NULL,
     "includingEphemeralContainers is accepted and not applied (documented): nothing is evicted"},
    {"states does not match ephemeral container without flag", {NODE1},
     {POD(UNSET, TERM("ephemeralContainerStatuses", "OOMKilled"))}, NULL, "states: [OOMKilled]", "", 0},
    /* TestCombinedFilters */
    {"failed pod removal compat: Failed + min age + exclude Job", {NODE1},
     {POD(UNSET, "phase: Failed, " TERM("containerStatuses", "Error")), FAILED_BY("Job")}, NULL,
     "states: [Failed], maxPodLifeTimeSeconds: 0, ownerKinds: {exclude: [Job]}", "", 1, "pod-0"},
};

static void test_upstream_table(void **state) {
    (void)state;
    uc_run(PL, "deschedule", cases, sizeof cases / sizeof cases[0]);
}

/* upstream's TestConditionFiltering (3 cases), TestTransitionTimeFiltering
 * (4), TestExitCodesFiltering (2) and the conditions case of
 * TestCombinedFilters: moonsched refuses conditions and exitCodes as not
 * supported (documented) rather than ignore them. */
static void test_conditions_and_exit_codes_refused(void **state) {
    (void)state;
    uc_refused(PL, "deschedule", "conditions: [{reason: PodCompleted}]", "conditions: not supported",
               "8 conditions and transition time cases", "conditions refused as not supported");
    uc_refused(PL, "deschedule", "exitCodes: [1]", "exitCodes: not supported", "2 exitCodes cases",
               "exitCodes refused as not supported");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_upstream_table),
        cmocka_unit_test(test_conditions_and_exit_codes_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
