/* RemoveFailedPods: failed pods past minPodLifetimeSeconds, with reasons
 * and excludeOwnerKinds; and RemovePodsHavingTooManyRestarts. */
#include "testutil.h"
#include "fixtures.h"
#include "descheduler/desched_fixtures.h"

static ms_pod *failed(dx_env *e, const char *name, const char *created, const char *kind, const char *status) {
    char text[1024];
    snprintf(text, sizeof text,
             "metadata: {name: %s, namespace: default, uid: u-%s, creationTimestamp: '%s',\n"
             "  ownerReferences: [{apiVersion: apps/v1, kind: %s, name: o, uid: r}]}\n"
             "spec: {containers: [{name: c, image: i}], initContainers: [{name: i, image: i}]}\nstatus: %s\n",
             name, name, created, kind, status);
    return dx_pod_yaml(e, "n1", text);
}

static void cluster(dx_env *e) {
    dx_node(e, "n1", 4000, 4096, 110, "", "");
    failed(e, "oom", "2023-12-31T00:00:00Z", "ReplicaSet",
           "{phase: Failed, containerStatuses: [{name: c, restartCount: 2, state: {terminated: {reason: OOMKilled}}}]}");
    failed(e, "nodelost", "2023-12-31T00:00:00Z", "Job", "{phase: Failed, reason: NodeLost}");
    failed(e, "recent", "2023-12-31T23:59:00Z", "ReplicaSet", "{phase: Failed}");
    failed(e, "running", "2023-12-31T00:00:00Z", "ReplicaSet",
           "{phase: Running, containerStatuses: [{name: c, restartCount: 7, state: {waiting: {reason: CrashLoopBackOff}}}],"
           " initContainerStatuses: [{name: i, restartCount: 5, state: {terminated: {reason: Error}}}]}");
    failed(e, "initfail", "2023-12-31T00:00:00Z", "ReplicaSet",
           "{phase: Failed, initContainerStatuses: [{name: i, restartCount: 4, state: {terminated: {reason: Error}}}]}");
}

static void expect(const char *plugin, const char *args, const char *want) {
    dx_expect(cluster, "", plugin, "deschedule", args, want);
}

static void test_failed_pods(void **state) {
    (void)state;
    expect("RemoveFailedPods", "", "oom,nodelost,initfail");
    expect("RemoveFailedPods", "minPodLifetimeSeconds: 0", "oom,nodelost,recent,initfail");
    expect("RemoveFailedPods", "reasons: [OOMKilled]", "oom");
    expect("RemoveFailedPods", "reasons: [NodeLost]", "nodelost");
    expect("RemoveFailedPods", "reasons: [Error]", "");
    expect("RemoveFailedPods", "reasons: [Error], includingInitContainers: true", "initfail");
    expect("RemoveFailedPods", "excludeOwnerKinds: [Job]", "oom,initfail");
}

static void test_too_many_restarts(void **state) {
    (void)state;
    const char *p = "RemovePodsHavingTooManyRestarts";
    expect(p, "podRestartThreshold: 2", "oom,running");
    expect(p, "podRestartThreshold: 8", "");
    expect(p, "podRestartThreshold: 8, includingInitContainers: true", "running");
    expect(p, "podRestartThreshold: 4, includingInitContainers: true", "running,initfail");
    expect(p, "podRestartThreshold: 2, states: [CrashLoopBackOff]", "running");
    expect(p, "podRestartThreshold: 2, states: [Running]", "running");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_failed_pods),
        cmocka_unit_test(test_too_many_restarts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
