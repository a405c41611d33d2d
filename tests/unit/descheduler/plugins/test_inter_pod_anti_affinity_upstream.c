/* RemovePodsViolatingInterPodAntiAffinity against upstream v0.36's
 * TestPodAntiAffinity table (pod_antiaffinity_test.go), in our own data:
 * pods with a required anti-affinity to foo=bar (or foo1=bar1) over the
 * region key, the same limits, nodes and expected counts. */
#include "testutil.h"
#include "fixtures.h"
#include "descheduler/desched_fixtures.h"
#include "descheduler/upstream_cases.h"

#define PL "RemovePodsViolatingInterPodAntiAffinity"
#define ANTI(k, v)                                                                                           \
    ", affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: "       \
    "{matchExpressions: [{key: " k ", operator: In, values: [" v "]}]}, topologyKey: region}]}}"
#define N1 {"n1", 0, 0, "region: main-region", ""}
#define NO_OWNER ""
#define CRITICAL {1, "n1", "foo: bar", NO_OWNER, ", priority: 2000000000"}
#define FOUR {1, "n1", "", NULL, ANTI("foo", "bar")}, {1, "n1", "foo: bar"}, {2, "n1", "", NULL, ANTI("foo", "bar")}

static const uc_case cases[] = {
    {"Maximum pods to evict - 0", {N1}, {FOUR}, NULL, "", "", 3},
    {"Maximum pods to evict - 3", {N1}, {FOUR}, "maxNoOfPodsToEvictPerNode: 3\n", "", "", 3},
    {"Maximum pods to evict (maxPodsToEvictPerNamespace=3) - 3", {N1}, {FOUR}, "maxNoOfPodsToEvictPerNamespace: 3\n",
     "", "", 3},
    {"Maximum pods to evict (maxNoOfPodsToEvictTotal)", {N1}, {FOUR},
     "maxNoOfPodsToEvictPerNamespace: 3\nmaxNoOfPodsToEvictTotal: 1\n", "", "", 1},
    {"Evict only 1 pod after sorting", {N1},
     {{1, "n1", "foo: bar", NULL, ANTI("foo1", "bar1") ", priority: 100"},
      {1, "n1", "foo: bar", NULL, ANTI("foo1", "bar1") ", priority: 50"},
      {1, "n1", "foo1: bar1", NULL, ANTI("foo", "bar") ", priority: 0"}},
     NULL, "", "", 1},
    {"Evicts pod that conflicts with critical pod (but does not evict critical pod)", {N1},
     {{1, "n1", "", NULL, ANTI("foo", "bar")}, CRITICAL}, "maxNoOfPodsToEvictPerNode: 1\n", "", "", 1},
    {"Evicts pod that conflicts with critical pod (but does not evict critical pod), again", {N1},
     {{1, "n1", "", NULL, ANTI("foo", "bar")}, CRITICAL}, "maxNoOfPodsToEvictPerNode: 1\n", "", "", 1},
    {"Won't evict pods because node selectors don't match available nodes", {N1, {"n2", 0, 0, "datacenter: east", ""}},
     {{1, "n1", "", NO_OWNER, ", nodeSelector: {datacenter: west}"}, CRITICAL}, "maxNoOfPodsToEvictPerNode: 1\n", "",
     "nodeFit: true", 0},
    {"Won't evict pods because only other node is not schedulable", {N1, {"n3", 0, 0, "", "unschedulable: true"}},
     {{1, "n1", "", NO_OWNER, ", nodeSelector: {datacenter: west}"}, CRITICAL}, "maxNoOfPodsToEvictPerNode: 1\n", "",
     "nodeFit: true", 0},
    {"No pod to evicted since all pod terminating", {N1},
     {{2, "n1", "", UC_OWNER ", deletionTimestamp: '2023-12-31T23:59:00Z'", ANTI("foo", "bar")}}, NULL, "", "", 0},
    {"Won't evict pods because only other node doesn't have enough resources", {N1, {"n4", 2, 1, "", ""}}, {FOUR},
     "maxNoOfPodsToEvictPerNode: 3\n", "", "nodeFit: true", 0},
    {"Evict pod violating anti-affinity among different node (all pods have anti-affinity)",
     {N1, {"n5", 200, 10, "region: main-region", ""}},
     {{1, "n1", "", NULL, ANTI("foo", "bar")}, {1, "n5", "foo: bar"}}, NULL, "", "", 1},
};

UC_TABLE_MAIN(PL, "deschedule", cases)
