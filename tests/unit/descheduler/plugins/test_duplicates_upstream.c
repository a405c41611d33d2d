/* RemoveDuplicates against upstream v0.36's TestFindDuplicatePods and the
 * TestRemoveDuplicatesUniformly (removeduplicates_test.go),
 * in our own data: pods of one ReplicaSet (or two, or none) on n1..n3,
 * the same nodes, node fit and expected counts. */
#include "testutil.h"
#include "fixtures.h"
#include "descheduler/desched_fixtures.h"
#include "descheduler/upstream_cases.h"

#define PL "RemoveDuplicates"
#define N(n) {n, 0, 0, "", ""}
#define RS(count, node, ns) {count, node, "", NULL, "", NULL, 0, ns}
#define RS1 ", ownerReferences: [{apiVersion: v1, kind: ReplicaSet, name: replicaset-1}]"
#define RS2 ", ownerReferences: [{apiVersion: v1, kind: ReplicaSet, name: replicaset-2}]"
#define RS12 ", ownerReferences: [{apiVersion: v1, kind: ReplicaSet, name: replicaset-1}, " \
             "{apiVersion: v1, kind: ReplicaSet, name: replicaset-2}]"
#define IMG(img) "{name: c, image: img, resources: {requests: {cpu: 100m}}}, {name: " img ", image: " img "}"
#define DS_POD {1, "n1", "", ", ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: ds, uid: ds}]"}
#define LOCAL_POD                                                                                     \
    {1, "n1", "", ", ownerReferences: [{apiVersion: v1, kind: Pod, name: x}]",                          \
     ", volumes: [{name: h, hostPath: {path: /x}}, {name: s, emptyDir: {}}]"}
#define MIRROR_POD {1, "n1", "", ", annotations: {kubernetes.io/config.mirror: m}"}
#define CRITICAL_POD {1, "n1", "", "", ", priority: 2000000000", NULL, 0, "kube-system"}
#define TOL(k, v) ", tolerations: [{key: " k ", value: " v ", operator: Equal, effect: NoSchedule}]"
#define NOT_MASTER(k)                                                                                       \
    ", affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "      \
    "[{matchExpressions: [{key: node-role.kubernetes.io/control-plane, operator: DoesNotExist}, {key: " k    \
    ", operator: DoesNotExist}]}]}}}"
#define WORKER_SEL(v) ", nodeSelector: {node-role.kubernetes.io/worker: " v "}"
/* nine pods of replicaset-1, five on worker1, three on worker2, one on
 * worker3, alternating two variants of spec */
#define NINE(a, b)                                                                                         \
    {1, "worker1", "", RS1, a}, {1, "worker1", "", RS1, b}, {1, "worker1", "", RS1, a},                    \
        {1, "worker1", "", RS1, b}, {1, "worker1", "", RS1, a}, {1, "worker2", "", RS1, b},                \
        {1, "worker2", "", RS1, a}, {1, "worker2", "", RS1, b}, {1, "worker3", "", RS1, a}
#define MASTER(n) {n, 0, 0, "", "taints: [{key: node-role.kubernetes.io/control-plane, effect: NoSchedule}]"}
#define LABELLED_MASTER(n) {n, 0, 0, "node-role.kubernetes.io/control-plane: ''", ""}
#define WORKER(n) {n, 0, 0, "node-role.kubernetes.io/worker: k2", ""}
#define TAINTED(n) {n, 0, 0, "", "taints: [{key: hardware, value: gpu, effect: NoSchedule}]"}

static const uc_case cases[] = {
    {"Three pods in the `dev` Namespace, bound to same ReplicaSet. 1 should be evicted.", {N("n1"), N("n2")},
     {RS(3, "n1", "dev")}, NULL, "", "", 1},
    {"Three pods in the `dev` Namespace, bound to same ReplicaSet, but ReplicaSet kind is excluded. 0 should be "
     "evicted.",
     {N("n1"), N("n2")}, {RS(3, "n1", "dev")}, NULL, "excludeOwnerKinds: [ReplicaSet]", "", 0},
    {"Three Pods in the `test` Namespace, bound to same ReplicaSet. 1 should be evicted.", {N("n1"), N("n2")},
     {RS(3, "n1", "test")}, NULL, "", "", 1},
    {"Three Pods in the `dev` Namespace, three Pods in the `test` Namespace. Bound to ReplicaSet with same name. 4 "
     "should be evicted.",
     {N("n1"), N("n2")}, {RS(3, "n1", "dev"), RS(3, "n1", "test")}, NULL, "", "", 2},
    {"Pods are: part of DaemonSet, with local storage, mirror pod annotation, critical pod annotation - none should be "
     "evicted.",
     {N("n1"), N("n2")}, {DS_POD, LOCAL_POD, MIRROR_POD, CRITICAL_POD}, NULL, "", "", 0},
    {"Test all Pods: 4 should be evicted.", {N("n1"), N("n2")},
     {RS(3, "n1", "dev"), DS_POD, LOCAL_POD, MIRROR_POD, CRITICAL_POD, RS(3, "n1", "test")}, NULL, "", "", 2},
    {"Pods with the same owner but different images should not be evicted", {N("n1"), N("n2")},
     {{1, "n1", "", NULL, "", NULL, 0, "different-images", NULL, "{name: c, image: foo}"},
      {1, "n1", "", NULL, "", NULL, 0, "different-images", NULL, "{name: c, image: bar}"}},
     NULL, "", "", 0},
    {"Pods with multiple containers should not match themselves", {N("n1"), N("n2")},
     {{1, "n1", "", NULL, "", NULL, 0, "different-images", NULL, IMG("foo")}}, NULL, "", "", 0},
    {"Pods with matching ownerrefs and at not all matching image should not trigger an eviction", {N("n1"), N("n2")},
     {{1, "n1", "", NULL, "", NULL, 0, "different-images", NULL, "{name: c, image: foo}"},
      {1, "n1", "", NULL, "", NULL, 0, "different-images", NULL, IMG("foo")}},
     NULL, "", "", 0},
    {"Three pods in the `dev` Namespace, bound to same ReplicaSet. Only node available has a taint, and nodeFit set to "
     "true. 0 should be evicted.",
     {N("n1"), TAINTED("n3")}, {RS(3, "n1", "dev")}, NULL, "", "nodeFit: true", 0},
    {"Three pods in the `node-fit` Namespace, bound to same ReplicaSet, all with a nodeSelector. Only node available "
     "has an incorrect node label, and nodeFit set to true. 0 should be evicted.",
     {N("n1"), {"n4", 0, 0, "datacenter: east", ""}},
     {{3, "n1", "", NULL, ", nodeSelector: {datacenter: west}", NULL, 0, "node-fit"}}, NULL, "", "nodeFit: true", 0},
    {"Three pods in the `node-fit` Namespace, bound to same ReplicaSet. Only node available is not schedulable, and "
     "nodeFit set to true. 0 should be evicted.",
     {N("n1"), {"n5", 0, 0, "", "unschedulable: true"}}, {RS(3, "n1", "dev")}, NULL, "", "nodeFit: true", 0},
    {"Three pods in the `node-fit` Namespace, bound to same ReplicaSet. Only node available does not have enough CPU, "
     "and nodeFit set to true. 0 should be evicted.",
     {N("n1"), {"n6", 200, 0, "", ""}}, {RS(3, "n1", "dev"), {1, "n6", "", "", "", NULL, 150, "test"}}, NULL, "",
     "nodeFit: true", 0},
    {"Three pods in the `node-fit` Namespace, bound to same ReplicaSet. Only node available has enough CPU, and "
     "nodeFit set to true. 1 should be evicted.",
     {N("n1"), {"n6", 200, 0, "", ""}}, {RS(3, "n1", "dev"), {1, "n6", "", "", "", NULL, 100, "test"}}, NULL, "",
     "nodeFit: true", 1},
    /* TestRemoveDuplicatesUniformly */
    {"Evict pods uniformly", {N("n1"), N("n2"), N("n3")},
     {{5, "n1", "", RS1}, {3, "n2", "", RS1}, {1, "n3", "", RS1}}, NULL, "", "", 2},
    {"Evict pods uniformly with one node left out", {N("n1"), N("n2")},
     {{5, "n1", "", RS1}, {3, "n2", "", RS1}, {1, "n3", "", RS1}}, NULL, "", "", 1},
    {"Evict pods uniformly with two replica sets", {N("n1"), N("n2"), N("n3")},
     {{5, "n1", "", RS12}, {3, "n2", "", RS12}, {1, "n3", "", RS12}}, NULL, "", "", 2, "pod-3,pod-4",
     "upstream counts 4 evictions: the same two pods of n1, once for each of their two owners; moonsched evicts a "
     "pod once"},
    {"Evict pods uniformly with two owner references", {N("n1"), N("n2"), N("n3")},
     {{5, "n1", "", RS1}, {3, "n2", "", RS1}, {1, "n3", "", RS1}, {1, "n1", "", RS2}, {3, "n2", "", RS2},
      {5, "n3", "", RS2}},
     NULL, "", "", 4},
    {"Evict pods with number of pods less than nodes", {N("n1"), N("n2"), N("n3")}, {{2, "n1", "", RS1}}, NULL, "", "",
     1},
    {"Evict pods with number of pods less than nodes, but ignore different pods with the same ownerref",
     {N("n1"), N("n2"), N("n3")},
     {{1, "n1", "", RS1, "", NULL, 0, NULL, NULL, IMG("foo")}, {1, "n1", "", RS1, "", NULL, 0, NULL, NULL, IMG("bar")},
      {1, "n1", "", RS1, "", NULL, 0, NULL, NULL, IMG("baz")}, {1, "n1", "", RS1, "", NULL, 0, NULL, NULL, IMG("foo")}},
     NULL, "", "", 1},
    {"Evict pods with a single pod with three nodes", {N("n1"), N("n2"), N("n3")}, {{1, "n1", "", RS1}}, NULL, "", "",
     0},
    {"Evict pods uniformly respecting taints",
     {N("worker1"), N("worker2"), N("worker3"), MASTER("master1"), MASTER("master2"), MASTER("master3")},
     {NINE(TOL("k1", "v1"), TOL("k2", "v2"))}, NULL, "", "", 2},
    {"Evict pods uniformly respecting RequiredDuringSchedulingIgnoredDuringExecution node affinity",
     {N("worker1"), N("worker2"), N("worker3"), LABELLED_MASTER("master1"), LABELLED_MASTER("master2"),
      LABELLED_MASTER("master3")},
     {NINE(NOT_MASTER("k1"), NOT_MASTER("k2"))}, NULL, "", "", 2},
    {"Evict pods uniformly respecting node selector",
     {WORKER("worker1"), WORKER("worker2"), WORKER("worker3"), N("master1"), N("master2"), N("master3")},
     {NINE(WORKER_SEL("k1"), WORKER_SEL("k2"))}, NULL, "", "", 2},
    {"Evict pods uniformly respecting node selector with zero target nodes",
     {N("worker1"), N("worker2"), N("worker3"), N("master1"), N("master2"), N("master3")},
     {NINE(WORKER_SEL("k1"), WORKER_SEL("k2"))}, NULL, "", "", 0},
};

UC_TABLE_MAIN(PL, "balance", cases)
