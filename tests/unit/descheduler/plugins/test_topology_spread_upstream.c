/* RemovePodsViolatingTopologySpreadConstraint against upstream v0.36's
 * TestTopologySpreadConstraint table (topologyspreadconstraint_test.go),
 * case by case in our own data: the same domains, pods and args, the same
 * expected eviction counts and pods. */
#include "testutil.h"
#include "fixtures.h"
#include "descheduler/desched_fixtures.h"
#include "descheduler/upstream_cases.h"

#define PL "RemovePodsViolatingTopologySpreadConstraint"
#define FOO "foo: bar"
#define SPREAD(skew, key, when) \
    ", topologySpreadConstraints: [{maxSkew: " #skew ", topologyKey: " key ", whenUnsatisfiable: " when \
    ", labelSelector: {matchLabels: {foo: bar}}}]"
#define ZONE1 SPREAD(1, "zone", "DoNotSchedule")
#define ZONE2 SPREAD(2, "zone", "DoNotSchedule")
#define NODE1 SPREAD(1, "node", "DoNotSchedule")
#define SOFT1 SPREAD(1, "zone", "ScheduleAnyway")
#define HASH1 ", topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, " \
              "labelSelector: {matchLabels: {foo: bar}}, matchLabelKeys: [pod-template-hash]}]"
#define NODE_FIT "nodeFit: true"
#define BOTH "constraints: [DoNotSchedule, ScheduleAnyway]"
#define TWO_ZONES {"n1", 0, 0, "zone: zoneA", ""}, {"n2", 0, 0, "zone: zoneB", ""}
#define THREE_ZONES TWO_ZONES, {"n3", 0, 0, "zone: zoneC", ""}
#define LIN_WIN                                                                                        \
    {"n1", 0, 0, "node: linNodeA, os: linux", ""}, {"n2", 0, 0, "node: linNodeB, os: linux", ""},      \
        {"n3", 0, 0, "node: linNodeC, os: linux", ""}, {"n4", 0, 0, "node: winNodeA, os: windows", ""}, \
        {"n5", 0, 0, "node: winNodeB, os: windows", ""}, {"n6", 0, 0, "node: winNodeC, os: windows", ""}
#define WIN ", nodeSelector: {os: windows}"
#define TAINTED_B(effect) {"n2", 0, 0, "zone: zoneB", "taints: [{key: taint-test, value: test, effect: " effect "}]"}
#define TOLERATES ", tolerations: [{key: taint-test, value: test, operator: Equal, effect: NoSchedule}]"
#define IN_A ", nodeSelector: {zone: zoneA}"
#define BARE ""   /* no owner */
#define MULTI                                                                                               \
    ", topologySpreadConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, "                 \
    "whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: whoami}}}, {maxSkew: 1, "          \
    "topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: "   \
    "{app: whoami}}}]"
#define SERVICE                                                                                           \
    ", topologySpreadConstraints: [{maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: "  \
    "DoNotSchedule, labelSelector: {matchLabels: {app.kubernetes.io/name: service}}}], affinity: "          \
    "{nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: " \
    "[{key: app_service, operator: Exists}]}]}}}"
#define ZONE1_IGNORE                                                                                  \
    ", topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, " \
    "labelSelector: {matchLabels: {foo: bar}}, nodeAffinityPolicy: Ignore}]"
#define HOST(n, z) {n, 0, 0, "topology.kubernetes.io/zone: " z ", kubernetes.io/hostname: " n, ""}

static const uc_case cases[] = {
    {"2 domains, sizes [2,1], maxSkew=1, move 0 pods", {TWO_ZONES},
     {{1, "n1", FOO, NULL, ZONE1}, {1, "n1", FOO}, {1, "n2", FOO}}, NULL, "", "", 0, NULL},
    {"2 domains, sizes [3,1], maxSkew=1, move 1 pod to achieve [2,2]", {TWO_ZONES},
     {{1, "n1", FOO, NULL, ZONE1}, {2, "n1", FOO}, {1, "n2", FOO}}, NULL, "", "", 1, NULL},
    {"2 domains, sizes [3,1], maxSkew=1, move 1 pod to achieve [2,2] (both constraints)", {TWO_ZONES},
     {{1, "n1", FOO, NULL, SOFT1}, {2, "n1", FOO}, {1, "n2", FOO}}, NULL, BOTH, "", 1, NULL},
    {"2 domains, sizes [3,1], maxSkew=1, move 1 pod to achieve [2,2] (soft constraints)", {TWO_ZONES},
     {{1, "n1", FOO, NULL, SOFT1}, {2, "n1", FOO}, {1, "n2", FOO}}, NULL, BOTH, "", 1, NULL},
    {"2 domains, sizes [3,1], maxSkew=1, no pods eligible, move 0 pods", {TWO_ZONES},
     {{1, "n1", FOO, BARE, ZONE1}, {2, "n1", FOO, BARE}, {1, "n2", FOO, BARE}}, NULL, "", "", 0, NULL},
    {"2 domains, sizes [3,1], maxSkew=1, move 1 pod to achieve [2,2], exclude kube-system namespace", {TWO_ZONES},
     {{1, "n1", FOO, NULL, ZONE1}, {2, "n1", FOO}, {1, "n2", FOO}}, NULL, "namespaces: {exclude: [kube-system]}",
     NODE_FIT, 1, NULL},
    {"2 domains, sizes [5,2], maxSkew=1, move 1 pod to achieve [4,3]", {TWO_ZONES},
     {{1, "n1", FOO, NULL, ZONE1}, {4, "n1", FOO}, {2, "n2", FOO}}, NULL, "", "", 1, NULL},
    {"2 domains, sizes [4,0], maxSkew=1, move 2 pods to achieve [2,2]", {TWO_ZONES},
     {{1, "n1", FOO, NULL, ZONE1}, {3, "n1", FOO}}, NULL, "", "", 2, NULL},
    {"2 domains, sizes [4,0], maxSkew=1, only move 1 pod since pods with nodeSelector and nodeAffinity aren't evicted",
     {TWO_ZONES},
     {{2, "n1", FOO, NULL, ZONE1 IN_A},
      {1, "n1", FOO, NULL,
       ZONE1 ", affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
             "[{matchExpressions: [{key: foo, operator: In, values: [bar]}]}]}}}"},
      {1, "n1", FOO, NULL, ZONE1}},
     NULL, "", NODE_FIT, 1, NULL},
    {"6 domains, sizes [0,0,0,3,3,2], maxSkew=1, No pod is evicted since topology is balanced", {LIN_WIN},
     {{3, "n4", FOO, NULL, NODE1 WIN}, {3, "n5", FOO, NULL, NODE1 WIN}, {2, "n6", FOO, NULL, NODE1 WIN}}, NULL, "", "",
     0, NULL},
    {"7 domains, sizes [0,0,0,3,3,2], maxSkew=1, two pods are evicted and moved to new node added",
     {LIN_WIN, {"n7", 0, 0, "node: winNodeD, os: windows", ""}},
     {{3, "n4", FOO, NULL, NODE1 WIN}, {3, "n5", FOO, NULL, NODE1 WIN}, {2, "n6", FOO, NULL, NODE1 WIN}}, NULL, "", "",
     2, NULL},
    {"6 domains, sizes [0,0,0,4,3,1], maxSkew=1, 1 pod is evicted from node 4", {LIN_WIN},
     {{4, "n4", FOO, NULL, NODE1 WIN}, {3, "n5", FOO, NULL, NODE1 WIN}, {1, "n6", FOO, NULL, NODE1 WIN}}, NULL, "", "",
     1, NULL},
    {"6 domains, sizes [0,0,0,4,3,1], maxSkew=1, 0 pod is evicted as pods of node:winNodeA can only be scheduled on "
     "this node and nodeFit is true",
     {LIN_WIN},
     {{4, "n4", FOO, NULL, NODE1 ", nodeSelector: {node: winNodeA}"}, {3, "n5", FOO, NULL, NODE1 WIN},
      {1, "n6", FOO, NULL, NODE1 WIN}},
     NULL, "", NODE_FIT, 0, NULL},
    {"2 domains, sizes [4,0], maxSkew=1, move 2 pods since selector matches multiple nodes",
     {{"n1", 0, 0, "zone: zoneA, region: boston", ""}, {"n2", 0, 0, "zone: zoneB, region: boston", ""}},
     {{1, "n1", FOO, NULL, ZONE1 ", nodeSelector: {region: boston}"},
      {3, "n1", FOO, NULL, ", nodeSelector: {region: boston}"}},
     NULL, "", "", 2, NULL},
    {"3 domains, sizes [0, 1, 100], maxSkew=1, move 66 pods to get [34, 33, 34]",
     {{"n1", 0, 110, "zone: zoneA", ""}, {"n2", 0, 110, "zone: zoneB", ""}, {"n3", 20000, 110, "zone: zoneC", ""}},
     {{1, "n2", FOO, NULL, ZONE1}, {100, "n3", FOO}}, NULL, "", "", 66, NULL},
    {"4 domains, sizes [0, 1, 3, 5], should move 3 to get [2, 2, 3, 2]",
     {THREE_ZONES, {"n4", 0, 0, "zone: zoneD", ""}},
     {{1, "n2", FOO, NULL, ZONE1}, {3, "n3", FOO}, {5, "n4", FOO}}, NULL, "", "", 3, NULL},
    {"2 domains size [2 6], maxSkew=2, should move 1 to get [3 5]", {TWO_ZONES},
     {{1, "n1", FOO, NULL, ZONE2}, {1, "n1", FOO}, {6, "n2", FOO}}, NULL, "", "", 1, NULL},
    {"2 domains size [2 6], maxSkew=2, can't move any because of node taints",
     {{"n1", 0, 0, "zone: zoneA", "taints: [{key: hardware, value: gpu, effect: NoSchedule}]"},
      {"n2", 0, 0, "zone: zoneB", ""}},
     {{1, "n1", FOO, NULL, ZONE2}, {1, "n1", FOO}, {6, "n2", FOO}}, NULL, "", NODE_FIT, 0, NULL},
    {"2 domains size [2 6], maxSkew=2, can't move any because node1 does not have enough CPU",
     {{"n1", 200, 0, "zone: zoneA", ""}, {"n2", 0, 0, "zone: zoneB", ""}},
     {{1, "n1", FOO, NULL, ZONE2}, {1, "n1", FOO}, {6, "n2", FOO}}, NULL, "", NODE_FIT, 0, NULL},
    {"Multiple constraints (6 nodes/2 zones, 4 pods)",
     {HOST("n1", "zoneA"), HOST("n2", "zoneA"), HOST("n3", "zoneA"), HOST("n4", "zoneB"), HOST("n5", "zoneB"),
      HOST("n6", "zoneB")},
     {{1, "n1", "app: whoami", NULL, MULTI}, {1, "n2", "app: whoami", NULL, MULTI},
      {1, "n3", "app: whoami", NULL, MULTI}, {1, "n4", "app: whoami", NULL, MULTI}},
     NULL, BOTH, "", 1, NULL},
    {"3 domains size [8 7 0], maxSkew=1, should move 5 to get [5 5 5]", {THREE_ZONES},
     {{8, "n1", FOO, NULL, ZONE1}, {7, "n2", FOO, NULL, ZONE1}}, NULL, "", "", 5,
     "pod-5,pod-6,pod-7,pod-8,pod-9"},
    {"3 domains size [5 5 5], maxSkew=1, should move 0 to retain [5 5 5]", {THREE_ZONES},
     {{5, "n1", FOO, NULL, ZONE1}, {5, "n2", FOO, NULL, ZONE1}, {5, "n3", FOO, NULL, ZONE1}}, NULL, "", "", 0, NULL},
    {"2 domains, sizes [2,0], maxSkew=1, move 1 pod since pod tolerates the node with taint",
     {{"n1", 0, 0, "zone: zoneA", ""}, TAINTED_B("NoSchedule")},
     {{1, "n1", FOO, NULL, ZONE1 TOLERATES}, {1, "n1", FOO, NULL, IN_A}}, NULL, "", "", 1, "pod-0"},
    {"2 domains, sizes [2,0], maxSkew=1, move 0 pods since pod does not tolerate the tainted node",
     {{"n1", 0, 0, "zone: zoneA", ""}, TAINTED_B("NoSchedule")},
     {{1, "n1", FOO, NULL, ZONE1}, {1, "n1", FOO, NULL, IN_A}}, NULL, "", "", 0, NULL},
    {"2 domains, sizes [2,0], maxSkew=1, move 0 pods since pod does not tolerate the tainted node, and NodeFit is "
     "enabled",
     {{"n1", 0, 0, "zone: zoneA", ""}, TAINTED_B("NoSchedule")},
     {{1, "n1", FOO, NULL, ZONE1}, {1, "n1", FOO, NULL, IN_A}}, NULL, "", NODE_FIT, 0, NULL},
    {"2 domains, sizes [2,0], maxSkew=1, move 1 pod for node with PreferNoSchedule Taint",
     {{"n1", 0, 0, "zone: zoneA", ""}, TAINTED_B("PreferNoSchedule")},
     {{1, "n1", FOO, NULL, ZONE1}, {1, "n1", FOO, NULL, IN_A}}, NULL, "", "", 1, "pod-0"},
    {"2 domains, sizes [2,0], maxSkew=1, move 0 pod for node with unmatched label filtering", {TWO_ZONES},
     {{1, "n1", FOO, NULL, ZONE1}, {1, "n1", FOO}}, NULL,
     "labelSelector: {matchExpressions: [{key: foo, operator: In, values: [baz]}]}", "", 0, NULL},
    {"2 domains, sizes [2,0], maxSkew=1, move 1 pod for node with matched label filtering", {TWO_ZONES},
     {{1, "n1", FOO, NULL, ZONE1}, {1, "n1", FOO}}, NULL,
     "labelSelector: {matchExpressions: [{key: foo, operator: In, values: [bar]}]}", "", 1, "pod-1"},
    {"2 domains, sizes [2,0], maxSkew=1, move 1 pod for node with matched label filtering (NotIn op)", {TWO_ZONES},
     {{1, "n1", FOO, NULL, ZONE1}, {1, "n1", FOO}}, NULL,
     "labelSelector: {matchExpressions: [{key: foo, operator: NotIn, values: [baz]}]}", "", 1, "pod-1"},
    {"2 domains, sizes [2,0], maxSkew=1, move 1 pods given matchLabelKeys on same replicaset", {TWO_ZONES},
     {{2, "n1", "foo: bar, pod-template-hash: foo", NULL, HASH1}}, NULL,
     "labelSelector: {matchExpressions: [{key: foo, operator: NotIn, values: [baz]}]}", "", 1, "pod-1"},
    {"2 domains, sizes [2,0], maxSkew=1, move 0 pods given matchLabelKeys on two different replicasets", {TWO_ZONES},
     {{1, "n1", "foo: bar, pod-template-hash: foo", NULL, HASH1},
      {1, "n1", "foo: bar, pod-template-hash: bar", NULL, HASH1}},
     NULL, "labelSelector: {matchExpressions: [{key: foo, operator: NotIn, values: [baz]}]}", "", 0, NULL},
    {"2 domains, sizes [4,2], maxSkew=1, 2 pods in termination; nothing should be moved", {TWO_ZONES},
     {{2, "n1", FOO, NULL, ZONE1},
      {2, "n1", FOO, UC_OWNER ", deletionTimestamp: '2023-12-31T23:59:00Z'", ZONE1},
      {2, "n2", FOO, NULL, ZONE1}},
     NULL, "labelSelector: {matchExpressions: [{key: foo, operator: In, values: [bar]}]}", "", 0, NULL},
    {"3 domains, sizes [2,3,4], maxSkew=1, NodeFit is enabled, and not enough cpu on zoneA; nothing should be moved",
     {{"n1", 250, 9, "zone: zoneA", ""}, {"n2", 1000, 9, "zone: zoneB", ""}, {"n3", 1000, 9, "zone: zoneC", ""}},
     {{2, "n1", FOO, NULL, ZONE1}, {3, "n2", FOO, NULL, ZONE1}, {4, "n3", FOO, NULL, ZONE1}}, NULL, "", NODE_FIT, 0,
     NULL},
    {"3 domains, sizes [2,3,4], maxSkew=1, args.NodeFit is false, and not enough cpu on zoneA; 1 should be moved to "
     "force scale-up",
     {{"n1", 250, 9, "zone: zoneA", ""}, {"n2", 1000, 9, "zone: zoneB", ""}, {"n3", 1000, 9, "zone: zoneC", ""}},
     {{2, "n1", FOO, NULL, ZONE1}, {3, "n2", FOO, NULL, ZONE1}, {4, "n3", FOO, NULL, ZONE1}}, NULL,
     "topologyBalanceNodeFit: false", NODE_FIT, 1, NULL},
    {"3 domains, sizes [[1,0], [1,1], [2,1]], maxSkew=1, NodeFit is enabled, and not enough cpu on ZoneA; nothing "
     "should be moved",
     {{"A1", 150, 9, "zone: zoneA", ""}, {"B1", 1000, 9, "zone: zoneB", ""}, {"C1", 1000, 9, "zone: zoneC", ""},
      {"A2", 50, 9, "zone: zoneA", ""}, {"B2", 1000, 9, "zone: zoneB", ""}, {"C2", 1000, 9, "zone: zoneC", ""}},
     {{1, "A1", FOO, NULL, ZONE1}, {1, "B1", FOO, NULL, ZONE1}, {1, "B2", FOO, NULL, ZONE1}, {2, "C1", FOO, NULL, ZONE1},
      {1, "C2", FOO, NULL, ZONE1}},
     NULL, "", NODE_FIT, 0, NULL},
    {"2 domains, sizes [[1,4], [2,1]], maxSkew=1, NodeFit is enabled; should move 1",
     {{"A1", 1000, 9, "zone: zoneA", ""}, {"A2", 1000, 9, "zone: zoneA", ""}, {"B1", 1000, 9, "zone: zoneB", ""},
      {"B2", 1000, 9, "zone: zoneB", ""}},
     {{1, "A1", FOO, NULL, ZONE1}, {4, "A2", FOO, NULL, ZONE1}, {2, "B1", FOO, NULL, ZONE1}, {1, "B2", FOO, NULL, ZONE1}},
     NULL, "", NODE_FIT, 1, "pod-4"},
    {"2 domains, sizes [3, 1], maxSkew=1, Tainted nodes; nothing should be moved",
     {{"controlplane1", 0, 0, "zone: zoneA, kubernetes.io/hostname: cp-1",
       "taints: [{key: node-role.kubernetes.io/controlplane, value: 'true', effect: NoSchedule}, "
       "{key: node-role.kubernetes.io/etcd, value: 'true', effect: NoSchedule}]"},
      {"infraservices1", 0, 0, "zone: zoneA, infra_service: 'true', kubernetes.io/hostname: infra-1",
       "taints: [{key: infra_service, effect: NoSchedule}]"},
      {"app1", 0, 0, "zone: zoneA, app_service: 'true', kubernetes.io/hostname: app-1", ""},
      {"app2", 0, 0, "zone: zoneB, app_service: 'true', kubernetes.io/hostname: app-2", ""}},
     {{2, "app1", "app.kubernetes.io/name: service", NULL, SERVICE}, {2, "app2", "app.kubernetes.io/name: service", NULL, SERVICE}},
     NULL, "", NODE_FIT, 0, NULL},
    {"3 domains, sizes [2, 1, 0] with selectors, maxSkew=1, nodeTaintsPolicy=Ignore, should move 1 for [1, 1, 1]",
     {{"A1", 1000, 9, "zone: zoneA, kubernetes.io/arch: arm64", ""},
      {"B1", 1000, 9, "zone: zoneB, kubernetes.io/arch: arm64", ""},
      {"C1", 1000, 9, "zone: zoneC, kubernetes.io/arch: arm64", ""}},
     {{1, "A1", FOO, NULL, ZONE1_IGNORE ", nodeSelector: {kubernetes.io/arch: arm64}"},
      {1, "A1", FOO, NULL, ZONE1_IGNORE ", nodeSelector: {zone: zoneA, kubernetes.io/arch: arm64}"},
      {1, "B1", FOO, NULL, ZONE1_IGNORE ", nodeSelector: {kubernetes.io/arch: arm64}"}},
     NULL, "", "", 1, "pod-0"},
};

UC_TABLE_MAIN(PL, "balance", cases)
