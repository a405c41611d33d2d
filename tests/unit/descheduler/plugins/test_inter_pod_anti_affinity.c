/* RemovePodsViolatingInterPodAntiAffinity: one of two conflicting pods
 * goes (the lower priority), the other stays; domains by topologyKey. */
#include "testutil.h"
#include "fixtures.h"
#include "descheduler/desched_fixtures.h"

#define ANTI(key) ", affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: " \
    "[{labelSelector: {matchLabels: {app: web}}, topologyKey: " key "}]}}"

static void same_node(dx_env *e) {
    dx_node(e, "n1", 8000, 8192, 110, "kubernetes.io/hostname: n1, zone: a", "");
    dx_node(e, "n2", 8000, 8192, 110, "kubernetes.io/hostname: n2, zone: a", "");
    dx_pod(e, "high", "n1", 100, 100, ", labels: {app: web}", ", priority: 10" ANTI("kubernetes.io/hostname"));
    dx_pod(e, "low", "n1", 100, 100, ", labels: {app: web}", ", priority: 1" ANTI("kubernetes.io/hostname"));
    dx_pod(e, "other", "n2", 100, 100, ", labels: {app: web}", "");
}

static void zones(dx_env *e) {
    dx_node(e, "n1", 8000, 8192, 110, "kubernetes.io/hostname: n1, zone: a", "");
    dx_node(e, "n2", 8000, 8192, 110, "kubernetes.io/hostname: n2, zone: a", "");
    dx_node(e, "n3", 8000, 8192, 110, "kubernetes.io/hostname: n3, zone: b", "");
    dx_pod(e, "w1", "n1", 100, 100, ", labels: {app: web}", ANTI("zone"));
    dx_pod(e, "w2", "n2", 100, 100, ", labels: {app: db}", "");
    dx_pod(e, "w3", "n3", 100, 100, ", labels: {app: web}", ANTI("zone"));
}

static void zones_conflict(dx_env *e) {
    zones(e);
    dx_pod(e, "w4", "n2", 100, 100, ", labels: {app: web}", "");
}

static void test_anti_affinity(void **state) {
    (void)state;
    const char *pl = "RemovePodsViolatingInterPodAntiAffinity";
    dx_expect(same_node, "", pl, "deschedule", "", "low");
    dx_expect(zones, "", pl, "deschedule", "", "");
    dx_expect(zones_conflict, "", pl, "deschedule", "", "w1");
    dx_expect(same_node, "", pl, "deschedule", "labelSelector: {matchLabels: {app: db}}", "");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_anti_affinity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
