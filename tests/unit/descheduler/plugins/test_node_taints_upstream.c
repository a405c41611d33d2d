/* RemovePodsViolatingNodeTaints against upstream v0.36's
 * TestDeletePodsViolatingNodeTaints table (node_taint_test.go), in our own
 * data: nodes tainted testTaint1=test1 (upstream's helpers give every taint
 * that key, whatever they are asked for), pods tolerating it or not, the
 * same evictor flags, limits, args and expected counts. */
#include "testutil.h"
#include "fixtures.h"
#include "descheduler/desched_fixtures.h"
#include "descheduler/upstream_cases.h"

#define PL "RemovePodsViolatingNodeTaints"
#define TAINT "{key: testTaint1, value: test1, effect: NoSchedule}"
#define TAINTED(n) {n, 0, 0, "", "taints: [" TAINT "]"}
#define BOTH_TAINTS(n) {n, 0, 0, "", "taints: [" TAINT ", " TAINT "]"}
#define SOFT_TAINTED(n, cpu, pods) {n, cpu, pods, "", "taints: [{key: testTaint1, value: test1, effect: PreferNoSchedule}]"}
#define TOL(k, v, e) ", tolerations: [{key: " k ", value: " v ", effect: " e "}]"
#define TOL1 TOL("testTaint1", "test1", "NoSchedule")
#define TOLX TOL("testTaintX1", "testX1", "NoSchedule")
#define PLAIN(node) {1, node, ""}
#define TOLERANT(node) {1, node, "", NULL, TOL1}
#define CRITICAL(node) {1, node, "", NULL, ", priority: 2000000000", NULL, 0, "kube-system"}
#define DAEMON(node) {1, node, "", ", ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: ds, uid: ds-uid}]"}
#define LOCAL(node) {1, node, "", NULL, ", volumes: [{name: h, hostPath: {path: /x}}, {name: s, emptyDir: {}}]"}
#define MIRROR(node) {1, node, "", UC_OWNER ", annotations: {kubernetes.io/config.mirror: m}"}

static const uc_case cases[] = {
    {"Pods not tolerating node taint should be evicted", {TAINTED("n1")}, {TOLERANT("n1"), PLAIN("n1"), TOLERANT("n1")},
     NULL, "", "", 1},
    {"Pods with tolerations but not tolerating node taint should be evicted", {TAINTED("n1")},
     {TOLERANT("n1"), TOLERANT("n1"), {1, "n1", "", NULL, TOLX}}, NULL, "", "", 1},
    {"Only <maxNoOfPodsToEvictTotal> number of Pods not tolerating node taint should be evicted", {TAINTED("n1")},
     {TOLERANT("n1"), {2, "n1", ""}}, "maxNoOfPodsToEvictPerNode: 2\nmaxNoOfPodsToEvictTotal: 1\n", "", "", 1},
    {"Only <maxPodsToEvictPerNode> number of Pods not tolerating node taint should be evicted", {TAINTED("n1")},
     {TOLERANT("n1"), {2, "n1", ""}}, "maxNoOfPodsToEvictPerNode: 1\n", "", "", 1},
    {"Only <maxNoOfPodsToEvictPerNamespace> number of Pods not tolerating node taint should be evicted",
     {TAINTED("n1")}, {TOLERANT("n1"), {2, "n1", ""}}, "maxNoOfPodsToEvictPerNamespace: 1\n", "", "", 1},
    {"Only <maxNoOfPodsToEvictPerNamespace> number of Pods not tolerating node taint should be evicted (again)",
     {TAINTED("n1")}, {TOLERANT("n1"), {2, "n1", ""}}, "maxNoOfPodsToEvictPerNamespace: 1\n", "", "", 1},
    {"Critical pods not tolerating node taint should not be evicted", {TAINTED("n2")},
     {CRITICAL("n2"), DAEMON("n2"), LOCAL("n2"), MIRROR("n2")}, NULL, "", "", 0},
    {"Critical pods except storage pods not tolerating node taint should not be evicted", {TAINTED("n2")},
     {CRITICAL("n2"), DAEMON("n2"), LOCAL("n2"), MIRROR("n2")}, NULL, "", "evictLocalStoragePods: true", 1},
    {"Critical and non critical pods, only non critical pods not tolerating node taint should be evicted",
     {TAINTED("n2")}, {CRITICAL("n2"), DAEMON("n2"), MIRROR("n2"), PLAIN("n2")}, NULL, "", "", 1},
    {"Critical and non critical pods, pods not tolerating node taint should be evicted even if they are critical",
     {TAINTED("n1"), TAINTED("n2")}, {PLAIN("n1"), CRITICAL("n2"), LOCAL("n2"), MIRROR("n2")}, NULL, "",
     "evictSystemCriticalPods: true", 2},
    {"Pod p2 doesn't tolerate taint on it's node, but also doesn't tolerate taints on other nodes",
     {TAINTED("n1"), TAINTED("n2")}, {TOLERANT("n1"), PLAIN("n1"), TOLERANT("n1")}, NULL, "", "nodeFit: true", 0},
    {"Pod p12 doesn't tolerate taint on it's node, but other nodes don't match it's selector",
     {TAINTED("n1"), {"n3", 0, 0, "datacenter: east", ""}},
     {TOLERANT("n1"), TOLERANT("n1"), {1, "n2", "", NULL, ", nodeSelector: {datacenter: west}"}}, NULL, "",
     "nodeFit: true", 0},
    {"Pod p2 doesn't tolerate taint on it's node, but other nodes are unschedulable",
     {TAINTED("n1"), {"n4", 0, 0, "", "unschedulable: true"}}, {TOLERANT("n1"), PLAIN("n1"), TOLERANT("n1")}, NULL, "",
     "nodeFit: true", 0},
    {"Pods not tolerating PreferNoSchedule node taint should not be evicted when not enabled",
     {SOFT_TAINTED("n5", 0, 0)}, {{1, "n5", "", NULL, TOL("testTaint0", "test0", "PreferNoSchedule")}}, NULL, "", "",
     0},
    {"Pods not tolerating PreferNoSchedule node taint should be evicted when enabled", {SOFT_TAINTED("n5", 0, 0)},
     {{1, "n5", "", NULL, TOL("testTaint0", "test0", "PreferNoSchedule")}}, NULL, "includePreferNoSchedule: true", "",
     1},
    {"Pods not tolerating excluded node taints (by key) should not be evicted", {TAINTED("n1")}, {PLAIN("n1")}, NULL,
     "excludedTaints: [excludedTaint1, testTaint1]", "", 0},
    {"Pods not tolerating excluded node taints (by key and value) should not be evicted", {TAINTED("n1")},
     {PLAIN("n1")}, NULL, "excludedTaints: [testTaint1=test1]", "", 0},
    {"The excluded taint matches the key of node1's taint, but does not match the value", {TAINTED("n1")},
     {PLAIN("n1")}, NULL, "excludedTaints: [testTaint1=test2]", "", 1},
    {"Critical and non critical pods, pods not tolerating node taint can't be evicted because the only available node "
     "does not have enough resources.",
     {TAINTED("n1"), SOFT_TAINTED("n6", 1, 1)}, {PLAIN("n1"), CRITICAL("n2"), LOCAL("n2"), MIRROR("n2")}, NULL, "",
     "evictSystemCriticalPods: true, nodeFit: true", 0},
    {"Pods tolerating included taints should not get evicted even with other taints present", {BOTH_TAINTS("n7")},
     {TOLERANT("n1")}, NULL, "includedTaints: [testTaint1=test1]", "", 0},
    {"Pods not tolerating not included taints should not get evicted", {TAINTED("n1")},
     {TOLERANT("n1"), PLAIN("n1"), {1, "n1", "", NULL, TOLX}}, NULL, "includedTaints: [testTaint2=test2]", "", 0},
    {"Pods tolerating includedTaint should not get evicted. Pods not tolerating includedTaints should get evicted",
     {TAINTED("n1")}, {TOLERANT("n1"), PLAIN("n1"), TOLERANT("n1")}, NULL, "includedTaints: [testTaint1=test1]", "",
     1},
    {"Pods not tolerating all taints are evicted when includedTaints is empty", {BOTH_TAINTS("n7")},
     {TOLERANT("n7"), {1, "n7", "", NULL, TOL("testingTaint1", "testing1", "NoSchedule")}}, NULL, "", "", 1},
};

UC_TABLE_MAIN(PL, "deschedule", cases)
