/* DefaultEvictor's PreEvictionFilter (nodeFit) against upstream v0.36's
 * TestDefaultEvictorPreEvictionFilter table (defaultevictor_test.go), in
 * our own data: the pod on node1 and the other nodes tainted, labelled or
 * small, memory in Mi where upstream counts bytes. The verdict is read
 * through a strategy that would evict every pod old enough (PodLifeTime,
 * maxPodLifeTimeSeconds 0). The two namespaceLabelSelector cases are in
 * tests/cli/test_simulate_deschedule.sh (they need namespace objects). */
#include "testutil.h"
#include "fixtures.h"
#include "descheduler/desched_fixtures.h"
#include "descheduler/upstream_cases.h"

#define PL "PodLifeTime"
#define NODE1 {"node1", 0, 0, "", ""}
#define TAINTED(n) {n, 0, 0, "", "taints: [{key: hardware, value: gpu, effect: NoSchedule}]"}
#define EAST(n, cpu, mem) {n, cpu, 10, "datacenter: east", "", mem}
#define P1(spec) {1, "node1", "", NULL, spec}
#define SMALL_P1 {1, "node1", "", NULL, ", nodeSelector: {datacenter: east}", NULL, 0, NULL, NULL, \
                  "{name: c, image: i, resources: {requests: {cpu: 12m, memory: 8Mi}}}"}
#define FILLER(node, cpu) {1, node, "test: 'true'", "", "", NULL, 0, NULL, NULL, \
                           "{name: c, image: i, resources: {requests: {cpu: " cpu ", memory: 10Mi}}}"}
#define EAST_SEL ", nodeSelector: {datacenter: east}"
#define FIT "nodeFit: true"
#define ALL "maxPodLifeTimeSeconds: 0"

static const uc_case cases[] = {
    {"Pod with no tolerations running on normal node, all other nodes tainted",
     {NODE1, TAINTED("node2"), TAINTED("node3")}, {P1("")}, NULL, ALL, FIT, 0},
    {"Pod with correct tolerations running on normal node, all other nodes tainted",
     {NODE1, TAINTED("node2"), TAINTED("node3")},
     {P1(", tolerations: [{key: hardware, value: gpu, effect: NoSchedule}]")}, NULL, ALL, FIT, 1},
    {"Pod with incorrect node selector", {NODE1, EAST("node2", 0, 0), EAST("node3", 0, 0)},
     {P1(", nodeSelector: {datacenter: fail}")}, NULL, ALL, FIT, 0},
    {"Pod with correct node selector", {NODE1, EAST("node2", 0, 0), EAST("node3", 0, 0)}, {P1(EAST_SEL)}, NULL, ALL,
     FIT, 1},
    {"Pod with correct node selector, but only available node doesn't have enough CPU",
     {NODE1, EAST("node2-TEST", 10, 16), EAST("node3-TEST", 10, 16)}, {SMALL_P1}, NULL, ALL, FIT, 0},
    {"Pod with correct node selector, and one node has enough memory",
     {NODE1, EAST("node2", 100, 16), EAST("node3", 100, 20)}, {SMALL_P1, FILLER("node2", "20m"), FILLER("node3", "20m")},
     NULL, ALL, FIT, 1},
    {"Pod with correct node selector, but both nodes don't have enough memory",
     {NODE1, EAST("node2", 100, 16), EAST("node3", 100, 16)}, {SMALL_P1, FILLER("node2", "10m"), FILLER("node3", "10m")},
     NULL, ALL, FIT, 0},
    {"Pod with incorrect node selector, but nodefit false, should still be evicted",
     {NODE1, EAST("node2", 0, 0), EAST("node3", 0, 0)}, {P1(", nodeSelector: {datacenter: fail}")}, NULL, ALL, "", 1},
};

static void test_upstream_table(void **state) {
    (void)state;
    uc_run_as("DefaultEvictor (PreEvictionFilter)", PL, "deschedule", cases, sizeof cases / sizeof cases[0]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_upstream_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
