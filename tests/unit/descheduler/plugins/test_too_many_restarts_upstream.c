/* RemovePodsHavingTooManyRestarts against upstream v0.36's
 * TestRemovePodsHavingTooManyRestarts table (toomanyrestarts_test.go), in
 * our own data: ten pods on node1, pod-i with 5*i init container restarts
 * and two containers of 10*i each; pod-6 a DaemonSet's, pod-7 with local
 * storage, pod-8 a mirror pod; the same args, limits and expected counts. */
#include "testutil.h"
#include "fixtures.h"
#include "descheduler/desched_fixtures.h"

#define PL "RemovePodsHavingTooManyRestarts"

typedef enum variant { PLAIN, CRASH_LOOP, RUNNING, PENDING, INIT_CRASH_LOOP } variant;

typedef struct restart_case {
    const char *name;            /* upstream's description */
    const char *nodes;           /* besides node1: "node2-tainted", "node3-unschedulable", "node4-small", "node5" */
    variant v;
    const char *args, *top, *evictor;
    uint32_t want;
} restart_case;

static void build(dx_env *e, const restart_case *c) {
    dx_node(e, "node1", 2000, 3000, 10, "", "");
    if (strstr(c->nodes, "node2-tainted"))
        dx_node(e, "node2", 2000, 3000, 10, "", "taints: [{key: hardware, value: gpu, effect: NoSchedule}]");
    if (strstr(c->nodes, "node3-unschedulable")) dx_node(e, "node3", 2000, 3000, 10, "", "unschedulable: true");
    if (strstr(c->nodes, "node4-small")) dx_node(e, "node4", 200, 3000, 10, "", "");
    if (strstr(c->nodes, "node5")) dx_node(e, "node5", 2000, 3000, 10, "", "");
    for (int i = 0; i <= 9; i++) {
        const char *owner = i == 6 ? "DaemonSet" : "ReplicaSet";
        char status[512], text[2048];
        const char *wait = c->v == CRASH_LOOP ? ", state: {waiting: {reason: CrashLoopBackOff}}" : "";
        const char *phase = c->v == RUNNING ? "phase: Running, " : c->v == PENDING ? "phase: Pending, " : "";
        if (c->v == INIT_CRASH_LOOP)
            snprintf(status, sizeof status,
                     "initContainerStatuses: [{name: i, restartCount: 0, state: {waiting: {reason: CrashLoopBackOff}}}], "
                     "containerStatuses: [{name: c, restartCount: %d}, {name: d, restartCount: %d}]", 10 * i, 10 * i);
        else
            snprintf(status, sizeof status,
                     "%sinitContainerStatuses: [{name: i, restartCount: %d}], containerStatuses: [{name: c, "
                     "restartCount: %d%s}, {name: d, restartCount: %d}]", phase, 5 * i, 10 * i, wait, 10 * i);
        snprintf(text, sizeof text,
                 "kind: Pod\nmetadata: {name: pod-%d, namespace: default, uid: uid-%d, creationTimestamp: "
                 "'2023-12-31T23:00:00Z', ownerReferences: [{apiVersion: apps/v1, kind: %s, name: o, uid: o-uid}]%s}\n"
                 "spec: {containers: [{name: c, image: i, resources: {requests: {cpu: 100m}}}, {name: d, image: i}]%s}\n"
                 "status: {%s}\n",
                 i, i, owner, i == 8 ? ", annotations: {kubernetes.io/config.mirror: mirror}" : "",
                 i == 7 ? ", volumes: [{name: h, hostPath: {path: /x}}, {name: s, emptyDir: {}}]" : "", status);
        dx_pod_yaml(e, "node1", text);
    }
    if (strstr(c->nodes, "node4-small")) dx_pod(e, "CPU-consumer-1", "node4", 150, 0, "", "");
    if (strstr(c->nodes, "node5")) dx_pod(e, "CPU-consumer-2", "node5", 150, 0, "", "");
}

#define LIMIT_NODE "maxNoOfPodsToEvictPerNode: 3\n"

static const restart_case cases[] = {
    {"All pods have total restarts under threshold, no pod evictions", "", PLAIN,
     "podRestartThreshold: 10000, includingInitContainers: true", "", "", 0},
    {"Some pods have total restarts bigger than threshold", "", PLAIN,
     "podRestartThreshold: 1, includingInitContainers: true", "", "", 6},
    {"Nine pods have total restarts equals threshold(includingInitContainers=true), 6 pod evictions", "", PLAIN,
     "podRestartThreshold: 25, includingInitContainers: true", "", "", 6},
    {"Nine pods have total restarts equals threshold(includingInitContainers=false), 5 pod evictions", "", PLAIN,
     "podRestartThreshold: 25", "", "", 5},
    {"All pods have total restarts equals threshold(includingInitContainers=true), 6 pod evictions", "", PLAIN,
     "podRestartThreshold: 20, includingInitContainers: true", "", "", 6},
    {"Nine pods have total restarts equals threshold(includingInitContainers=false), 6 pod evictions", "", PLAIN,
     "podRestartThreshold: 20", "", "", 6},
    {"Five pods have total restarts bigger than threshold(includingInitContainers=true), but only 1 pod eviction",
     "", PLAIN, "podRestartThreshold: 126, includingInitContainers: true", "", "", 1},
    {"Five pods have total restarts bigger than threshold(includingInitContainers=false), but only 1 pod eviction",
     "", PLAIN, "podRestartThreshold: 101", "", "", 1},
    {"All pods have total restarts equals threshold(maxPodsToEvictPerNode=3), 3 pod evictions", "", PLAIN,
     "podRestartThreshold: 1, includingInitContainers: true", LIMIT_NODE, "", 3},
    {"All pods have total restarts equals threshold(maxNoOfPodsToEvictPerNamespace=3), 3 pod evictions", "", PLAIN,
     "podRestartThreshold: 1, includingInitContainers: true", "maxNoOfPodsToEvictPerNamespace: 3\n", "", 3},
    {"All pods have total restarts equals threshold(maxPodsToEvictPerNode=3) but the only other node is tainted, 0 "
     "pod evictions",
     "node2-tainted", PLAIN, "podRestartThreshold: 1, includingInitContainers: true", LIMIT_NODE, "nodeFit: true", 0},
    {"All pods have total restarts equals threshold(maxPodsToEvictPerNode=3) but the only other node is not "
     "schedulable, 0 pod evictions",
     "node3-unschedulable", PLAIN, "podRestartThreshold: 1, includingInitContainers: true", LIMIT_NODE,
     "nodeFit: true", 0},
    {"All pods have total restarts equals threshold(maxPodsToEvictPerNode=3) but the only other node does not have "
     "enough CPU, 0 pod evictions",
     "node4-small", PLAIN, "podRestartThreshold: 1, includingInitContainers: true", LIMIT_NODE, "nodeFit: true", 0},
    {"All pods have total restarts equals threshold(maxPodsToEvictPerNode=3) but the only other node has enough CPU, "
     "3 pod evictions",
     "node5", PLAIN, "podRestartThreshold: 1, includingInitContainers: true", LIMIT_NODE, "nodeFit: true", 3},
    {"pods are in CrashLoopBackOff with states=CrashLoopBackOff, 3 pod evictions", "node5", CRASH_LOOP,
     "podRestartThreshold: 1, states: [CrashLoopBackOff]", LIMIT_NODE, "nodeFit: true", 3},
    {"pods without CrashLoopBackOff with states=CrashLoopBackOff, 0 pod evictions", "node5", PLAIN,
     "podRestartThreshold: 1, states: [CrashLoopBackOff]", LIMIT_NODE, "nodeFit: true", 0},
    {"pods running with state=Running, 3 pod evictions", "", RUNNING, "podRestartThreshold: 1, states: [Running]",
     LIMIT_NODE, "", 3},
    {"pods pending with state=Running, 0 pod evictions", "", PENDING, "podRestartThreshold: 1, states: [Running]",
     LIMIT_NODE, "", 0},
    {"pods pending with initContainer with states=CrashLoopBackOff threshold(includingInitContainers=true), 3 pod "
     "evictions",
     "", INIT_CRASH_LOOP, "podRestartThreshold: 1, states: [CrashLoopBackOff], includingInitContainers: true",
     LIMIT_NODE, "", 3},
    {"pods pending with initContainer with states=CrashLoopBackOff threshold(includingInitContainers=false), 0 pod "
     "evictions",
     "", INIT_CRASH_LOOP, "podRestartThreshold: 1, states: [CrashLoopBackOff]", LIMIT_NODE, "", 0},
};

static void test_upstream_table(void **state) {
    (void)state;
    size_t n = sizeof cases / sizeof cases[0];
    int agree = 0;
    for (size_t i = 0; i < n; i++) {
        dx_env e;
        dx_init(&e);
        build(&e, &cases[i]);
        dx_policy_one(&e, cases[i].top, PL, "deschedule", cases[i].args, cases[i].evictor);
        dx_run(&e);
        if (e.pass.nevictions == cases[i].want) agree++;
        else print_message("%s: %s: got %u, want %u\n", PL, cases[i].name, e.pass.nevictions, cases[i].want);
        dx_free(&e);
    }
    print_message("%s: %d of %zu upstream cases agree\n", PL, agree, n);
    assert_int_equal(agree, (int)n);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_upstream_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
