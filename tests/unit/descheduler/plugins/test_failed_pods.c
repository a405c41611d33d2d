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
    /* most restarts first: running (7) before oom (2) */
    expect(p, "podRestartThreshold: 2", "running,oom");
    expect(p, "podRestartThreshold: 8", "");
    expect(p, "podRestartThreshold: 8, includingInitContainers: true", "running");
    expect(p, "podRestartThreshold: 4, includingInitContainers: true", "running,initfail");
    expect(p, "podRestartThreshold: 2, states: [CrashLoopBackOff]", "running");
    expect(p, "podRestartThreshold: 2, states: [Running]", "running");
}

/* upstream v0.34's order decides which pod a node's limit lets go: the
 * one with the most restarts, wherever it is on the node. */
static void test_most_restarts_first(void **state) {
    (void)state;
    dx_expect(cluster, "maxNoOfPodsToEvictPerNode: 1\n", "RemovePodsHavingTooManyRestarts", "deschedule",
              "podRestartThreshold: 2", "running");
}

/* A pod whose init container waits in CrashLoopBackOff, its container
 * not waiting. */
static void init_crash_loop(dx_env *e) {
    dx_node(e, "n1", 4000, 4096, 110, "", "");
    failed(e, "initloop", "2023-12-31T00:00:00Z", "ReplicaSet",
           "{phase: Pending, containerStatuses: [{name: c, restartCount: 0, state: {waiting: {reason: PodInitializing}}}],"
           " initContainerStatuses: [{name: i, restartCount: 6, state: {waiting: {reason: CrashLoopBackOff}}}]}");
}

static void test_init_containers_states(void **state) {
    (void)state;
    const char *p = "RemovePodsHavingTooManyRestarts";
    dx_expect(init_crash_loop, "", p, "deschedule",
              "podRestartThreshold: 3, includingInitContainers: true, states: [CrashLoopBackOff]", "initloop");
    /* without includingInitContainers its restarts do not count either */
    dx_expect(init_crash_loop, "", p, "deschedule", "podRestartThreshold: 3, states: [CrashLoopBackOff]", "");
    dx_expect(init_crash_loop, "", p, "deschedule",
              "podRestartThreshold: 3, includingInitContainers: true, states: [Running]", "");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_failed_pods),
        cmocka_unit_test(test_too_many_restarts),
        cmocka_unit_test(test_most_restarts_first),
        cmocka_unit_test(test_init_containers_states),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
