/* RemovePodsViolatingNodeAffinity: required affinity no longer met after a
 * relabel (only when another node fits), and preferred affinity with a
 * better node available. */
#include "testutil.h"
#include "fixtures.h"
#include "descheduler/desched_fixtures.h"

#define REQUIRE_A ", affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: " \
    "{nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, values: [a]}]}]}}}"
#define PREFER_A ", affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: " \
    "[{weight: 10, preference: {matchExpressions: [{key: zone, operator: In, values: [a]}]}}]}}"

static void run_case(const char *n2_labels, const char *n2_spec, const char *pod_spec, const char *types,
                     const char *want) {
    dx_env e;
    dx_init(&e);
    dx_node(&e, "n1", 4000, 4096, 110, "zone: b", "");
    dx_node(&e, "n2", 4000, 4096, 110, n2_labels, n2_spec);
    dx_pod(&e, "p", "n1", 100, 100, "", pod_spec);
    char args[256];
    snprintf(args, sizeof args, "nodeAffinityType: [%s]", types);
    dx_policy_one(&e, "", "RemovePodsViolatingNodeAffinity", "deschedule", args, "");
    dx_run(&e);
    char buf[128];
    assert_string_equal(dx_evicted(&e, buf, sizeof buf), want);
    dx_free(&e);
}

static void test_required(void **state) {
    (void)state;
    run_case("zone: a", "", REQUIRE_A, "requiredDuringSchedulingIgnoredDuringExecution", "p");
    /* nowhere else to go: stays */
    run_case("zone: c", "", REQUIRE_A, "requiredDuringSchedulingIgnoredDuringExecution", "");
    run_case("zone: a", "unschedulable: true", REQUIRE_A, "requiredDuringSchedulingIgnoredDuringExecution", "");
    /* only the preferred type asked for */
    run_case("zone: a", "", REQUIRE_A, "preferredDuringSchedulingIgnoredDuringExecution", "");
    /* a pod without node affinity is left alone */
    run_case("zone: a", "", "", "requiredDuringSchedulingIgnoredDuringExecution", "");
}

static void test_preferred(void **state) {
    (void)state;
    run_case("zone: a", "", PREFER_A, "preferredDuringSchedulingIgnoredDuringExecution", "p");
    run_case("zone: c", "", PREFER_A, "preferredDuringSchedulingIgnoredDuringExecution", "");
    run_case("zone: a", "", PREFER_A, "requiredDuringSchedulingIgnoredDuringExecution", "");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_required),
        cmocka_unit_test(test_preferred),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
