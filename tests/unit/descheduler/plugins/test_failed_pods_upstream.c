/* RemoveFailedPods against upstream v0.36's TestRemoveFailedPods table
 * (failedpods_test.go), in our own data. upstream's cases build the args
 * without its defaults, so a case without minPodLifetimeSeconds has no
 * minimum: here it is written 0 (moonsched, as upstream's defaulting,
 * would make it 3600). The pods were created at the pass's clock. */
#include "testutil.h"
#include "fixtures.h"
#include "descheduler/desched_fixtures.h"
#include "descheduler/upstream_cases.h"

#define PL "RemoveFailedPods"
#define NOW "2024-01-01T00:00:00Z"
#define C_TERM(r) "phase: Failed, containerStatuses: [{name: c, state: {terminated: {reason: " r "}}}]"
#define I_TERM(r) "phase: Failed, initContainerStatuses: [{name: i, state: {terminated: {reason: " r "}}}]"
#define I_WAIT(r) "phase: Failed, initContainerStatuses: [{name: i, state: {waiting: {reason: " r "}}}]"
#define POD(node, status) {1, node, "", NULL, "", status, 1, NULL, NOW}
#define GONE(node, status) {1, node, "", UC_OWNER ", deletionTimestamp: '" NOW "'", "", status, 1, NULL, NOW}
#define NODE1 {"node1", 0, 0, "", ""}
#define AGE0 "minPodLifetimeSeconds: 0"

static const uc_case cases[] = {
    {"default empty args, 0 failures, 0 evictions", {NODE1}, {{0}}, NULL, AGE0, "", 0},
    {"0 failures, 0 evictions", {NODE1}, {{0}}, NULL, AGE0, "", 0},
    {"1 container terminated with reason NodeAffinity, 1 eviction", {NODE1}, {POD("node1", C_TERM("NodeAffinity"))},
     NULL, AGE0, "", 1},
    {"1 init container terminated with reason NodeAffinity, 1 eviction", {NODE1},
     {POD("node1", I_TERM("NodeAffinity"))}, NULL, AGE0 ", includingInitContainers: true", "", 1},
    {"1 init container waiting with reason CreateContainerConfigError, 1 eviction", {NODE1},
     {POD("node1", I_WAIT("CreateContainerConfigError"))}, NULL, AGE0 ", includingInitContainers: true", "", 1},
    {"2 init container waiting with reason CreateContainerConfigError, 2 nodes, 2 evictions",
     {NODE1, {"node2", 0, 0, "", ""}},
     {POD("node1", I_TERM("CreateContainerConfigError")), POD("node2", I_TERM("CreateContainerConfigError"))}, NULL,
     AGE0 ", includingInitContainers: true", "", 2},
    {"include reason=CreateContainerConfigError, 1 container terminated with reason CreateContainerConfigError, 1 "
     "eviction",
     {NODE1}, {POD("node1", C_TERM("CreateContainerConfigError"))}, NULL,
     AGE0 ", reasons: [CreateContainerConfigError]", "", 1},
    {"include reason=CreateContainerConfigError+NodeAffinity, 1 container terminated with reason "
     "CreateContainerConfigError, 1 eviction",
     {NODE1}, {POD("node1", C_TERM("CreateContainerConfigError"))}, NULL,
     AGE0 ", reasons: [CreateContainerConfigError, NodeAffinity]", "", 1},
    {"include reason=CreateContainerConfigError, 1 container terminated with reason NodeAffinity, 0 eviction", {NODE1},
     {POD("node1", C_TERM("NodeAffinity"))}, NULL, AGE0 ", reasons: [CreateContainerConfigError]", "", 0},
    {"include init container=false, 1 init container waiting with reason CreateContainerConfigError, 0 eviction",
     {NODE1}, {POD("node1", I_WAIT("CreateContainerConfigError"))}, NULL,
     AGE0 ", reasons: [CreateContainerConfigError]", "", 0},
    {"lifetime 1 hour, 1 container terminated with reason NodeAffinity, 0 eviction", {NODE1},
     {POD("node1", C_TERM("NodeAffinity"))}, NULL, "minPodLifetimeSeconds: 3600", "", 0},
    {"nodeFit=true, 1 unschedulable node, 1 container terminated with reason NodeAffinity, 0 eviction",
     {NODE1, {"node2", 0, 0, "", "unschedulable: true"}}, {POD("node1", C_TERM("NodeAffinity"))}, NULL, AGE0,
     "nodeFit: true", 0},
    {"nodeFit=true, only available node does not have enough resources, 1 container terminated with reason "
     "CreateContainerConfigError, 0 eviction",
     {{"node1", 1, 0, "", ""}, {"node2", -1, 0, "", ""}}, {POD("node1", C_TERM("CreateContainerConfigError"))}, NULL,
     AGE0 ", reasons: [CreateContainerConfigError]", "nodeFit: true", 0},
    {"excluded owner kind=ReplicaSet, 1 init container terminated with owner kind=ReplicaSet, 0 eviction", {NODE1},
     {POD("node1", I_TERM("NodeAffinity"))}, NULL,
     AGE0 ", includingInitContainers: true, excludeOwnerKinds: [ReplicaSet]", "", 0},
    {"excluded owner kind=DaemonSet, 1 init container terminated with owner kind=ReplicaSet, 1 eviction", {NODE1},
     {POD("node1", I_TERM("NodeAffinity"))}, NULL,
     AGE0 ", includingInitContainers: true, excludeOwnerKinds: [DaemonSet]", "", 1},
    {"excluded owner kind=DaemonSet, 1 init container terminated with owner kind=ReplicaSet, 1 pod in termination; "
     "nothing should be moved",
     {NODE1}, {GONE("node1", I_TERM("NodeAffinity"))}, NULL,
     AGE0 ", includingInitContainers: true, excludeOwnerKinds: [DaemonSet]", "", 0},
    {"1 container terminated with reason ShutDown, 0 evictions", {NODE1},
     {POD("node1", "phase: Failed, reason: Shutdown")}, NULL, AGE0, "nodeFit: true", 0},
    {"include reason=Shutdown, 2 containers terminated with reason ShutDown, 2 evictions", {NODE1},
     {POD("node1", "phase: Failed, reason: Shutdown"), POD("node1", "phase: Failed, reason: Shutdown")}, NULL,
     AGE0 ", reasons: [Shutdown]", "", 2},
};

static void test_upstream_table(void **state) {
    (void)state;
    uc_run(PL, "deschedule", cases, sizeof cases / sizeof cases[0]);
}

/* upstream's seven exitCodes cases ("1 container terminated with exitCode
 * 1, 1 eviction", "... reason NodeAffinity", "... expected exitCode 2, 0
 * eviction", "2 containers terminated with exitCode 1 and 2 ...", "...
 * expected exitCode 1, 1 eviction", "1 init container terminated with
 * exitCode 1", "... exitCode 2, expected 1"): moonsched does not read
 * containers' exit codes and refuses the arg rather than ignore it (a
 * documented difference). */
static void test_exit_codes_refused(void **state) {
    (void)state;
    uc_refused(PL, "deschedule", "exitCodes: [1]", "exitCodes: not supported", "7 exitCodes cases",
               "exitCodes refused as not supported");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_upstream_table),
        cmocka_unit_test(test_exit_codes_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
