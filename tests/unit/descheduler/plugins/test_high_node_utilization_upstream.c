/* HighNodeUtilization against upstream v0.36's TestHighNodeUtilization
 * table (highnodeutilization_test.go), in our own data: 400m pods on three
 * nodes, the same thresholds, nodeFit and expected counts (and pods, pod-i
 * being upstream's p(i+1)); the extended resource is example.com/accel.
 * And TestHighNodeUtilizationWithTaints: 1000m nodes, 200m pods, cpu 40,
 * no nodeFit, the per-node limit set to the expected count as upstream's
 * test sets it. */
#include "testutil.h"
#include "fixtures.h"
#include "descheduler/desched_fixtures.h"
#include "descheduler/upstream_cases.h"

#define PL "HighNodeUtilization"
#define RS(n, node) {n, node, "", NULL, "", NULL, 400}
#define DS(n, node) {n, node, "", ", ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: ds, uid: ds}]", "", NULL, 400}
#define DS_META ", ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: ds, uid: ds}]"
#define MEM(n, node, meta, mem) {n, node, "", meta, "", NULL, 0, NULL, NULL, \
                                 "{name: c, image: i, resources: {requests: {cpu: 400m, memory: " mem "}}}"}
#define CRITICAL(node) {1, node, "", NULL, ", priority: 2000000000", NULL, 400, "kube-system"}
#define MIRROR_LOCAL(node)                                                                         \
    {1, node, "", UC_OWNER ", annotations: {kubernetes.io/config.mirror: m}",                        \
     ", volumes: [{name: h, hostPath: {path: /x}}, {name: s, emptyDir: {}}]", NULL, 400}
#define UNSCHED "unschedulable: true"
#define FIT "nodeFit: true"   /* upstream's test runs DefaultEvictor with nodeFit */
#define ARGS(v) "thresholds: {cpu: " #v ", pods: " #v "}"
#define ACCEL(k) ", example.com/accel: " #k
#define ACCEL_POD(n, node, cpu, k) {n, node, "", NULL, "", NULL, 0, NULL, NULL, \
    "{name: c, image: img, resources: {requests: {cpu: " #cpu "m, example.com/accel: " #k "}}}"}
#define CPU_POD(n, node, cpu) {n, node, "", NULL, "", NULL, cpu}
#define TAINTED_N3 {"n3", 1000, 10, "", "taints: [{key: key, value: value, effect: NoSchedule}]"}

static const uc_case cases[] = {
    {"no node below threshold usage", {{"n1", 4000}, {"n2", 4000}, {"n3", 4000}},
     {RS(3, "n1"), RS(3, "n2"), RS(3, "n3")}, NULL, ARGS(20), FIT, 0},
    {"no evictable pods", {{"n1", 4000, 9}, {"n2", 4000}, {"n3", 4000}},
     {MIRROR_LOCAL("n1"), CRITICAL("n1"), DS(2, "n2"), RS(4, "n3")}, NULL, ARGS(40), FIT, 0},
    {"no node to schedule evicted pods", {{"n1", 4000}, {"n2", 4000}, {"n3", 4000, 0, "", UNSCHED}},
     {RS(1, "n1"), RS(1, "n2"), RS(3, "n3")}, NULL, ARGS(20), FIT, 0},
    {"without priorities", {{"n1", 4000}, {"n2", 4000}, {"n3", 4000, 0, "", UNSCHED}},
     {RS(1, "n1"), CRITICAL("n1"), RS(4, "n2"), RS(1, "n3")}, NULL, ARGS(30), FIT, 2, "pod-0,pod-6"},
    {"without priorities stop when resource capacity is depleted",
     {{"n1", 2000}, {"n2", 2000}, {"n3", 2000, 0, "", UNSCHED}}, {RS(1, "n1"), RS(4, "n2"), RS(1, "n3")}, NULL,
     ARGS(30), FIT, 1},
    {"with priorities", {{"n1", 4000}, {"n2", 2000}, {"n3", 2000, 0, "", UNSCHED}},
     {{1, "n1", "", NULL, ", priority: 1000", NULL, 400}, {1, "n1", "", NULL, ", priority: 10000", NULL, 400},
      RS(4, "n2"), DS(1, "n3")},
     NULL, "thresholds: {cpu: 30}", FIT, 1, "pod-0"},
    {"without priorities evicting best-effort pods only", {{"n1", 3000}, {"n2", 3000, 5}, {"n3", 3000, 0, "", UNSCHED}},
     {{1, "n1", "", NULL, "", NULL, 0, NULL, NULL, "{name: c, image: i}"}, RS(1, "n1"), RS(4, "n2")}, NULL,
     "thresholds: {cpu: 30}", FIT, 1, "pod-0"},
    {"with extended resource", {{"n1", 4000, 10, "", "", 0, ACCEL(8)}, {"n2", 4000, 10, "", "", 0, ACCEL(8)},
                                {"n3", 4000, 10, "", UNSCHED}},
     {ACCEL_POD(2, "n1", 100, 1), ACCEL_POD(4, "n2", 500, 1)}, NULL, "thresholds: {cpu: 20, example.com/accel: 40}",
     FIT, 2, "pod-0,pod-1"},
    /* n2 has none of the resource to take n1's pods */
    {"with extended resource in some of nodes",
     {{"n1", 4000, 10, "", "", 0, ACCEL(8)}, {"n2", 4000, 10}, {"n3", 4000, 10, "", UNSCHED}},
     {ACCEL_POD(2, "n1", 100, 1), CPU_POD(4, "n2", 500)}, NULL, "thresholds: {cpu: 40, example.com/accel: 40}", FIT,
     0},
    /* n2's and n3's pods request none of the thresholding resource */
    {"with extended resource threshold and no extended resource pods",
     {{"n1", 4000, 10, "", "", 0, ACCEL(10)}, {"n2", 4000, 10, "", "", 0, ACCEL(10)},
      {"n3", 4000, 10, "", "", 0, ACCEL(10)}},
     {ACCEL_POD(2, "n1", 100, 3), CPU_POD(4, "n2", 500)}, NULL,
     "thresholds: {example.com/accel: 40}, evictionModes: [OnlyThresholdingResources]", FIT, 0},
    {"Other node match pod node selector", {{"n1", 4000, 9, "datacenter: west"}, {"n2", 4000}},
     {RS(3, "n1"), DS(1, "n1"), {1, "n2", "", NULL, ", nodeSelector: {datacenter: west}", NULL, 400}}, NULL, ARGS(30),
     FIT, 1},
    {"Other node does not match pod node selector", {{"n1", 4000, 9}, {"n2", 4000}},
     {RS(3, "n1"), DS(1, "n1"), {1, "n2", "", NULL, ", nodeSelector: {datacenter: west}", NULL, 400}}, NULL, ARGS(30),
     FIT, 0},
    {"Other node does not have enough Memory", {{"n1", 4000, 9, "", "", 200}, {"n2", 4000}},
     {MEM(3, "n1", NULL, "50Mi"), MEM(1, "n1", DS_META, "50Mi"), MEM(1, "n2", NULL, "100Mi")}, NULL, ARGS(30), FIT, 0},
    {"Other node does not have enough Memory (again)", {{"n1", 4000, 9, "", "", 200}, {"n2", 4000}},
     {MEM(3, "n1", NULL, "50Mi"), MEM(1, "n1", DS_META, "50Mi"), MEM(1, "n2", NULL, "100Mi")}, NULL, ARGS(30), FIT, 0},
    /* TestHighNodeUtilizationWithTaints */
    {"No taints", {{"n1", 1000}, {"n2", 1000}, {"n3", 1000}}, {CPU_POD(3, "n1", 200), CPU_POD(1, "n2", 200)},
     "maxNoOfPodsToEvictPerNode: 1\n", "thresholds: {cpu: 40}", "", 1, "pod-3"},
    {"No pod tolerates node taint", {{"n1", 1000}, TAINTED_N3}, {CPU_POD(1, "n1", 200), CPU_POD(1, "n3", 200)},
     "maxNoOfPodsToEvictPerNode: 0\n", "thresholds: {cpu: 40}", "", 0},
    {"Pod which tolerates node taint", {{"n1", 1000}, TAINTED_N3},
     {CPU_POD(1, "n1", 100), {1, "n1", "", NULL, ", tolerations: [{key: key, value: value}]", NULL, 200},
      CPU_POD(1, "n3", 500)},
     "maxNoOfPodsToEvictPerNode: 1\n", "thresholds: {cpu: 40}", "", 1, "pod-1"},
};

UC_TABLE_MAIN(PL, "balance", cases)
