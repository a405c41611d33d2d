/* NodeResourcesBalancedAllocation with upstream's worked examples
 * (balanced_allocation_test.go) and its args. */
#include "testutil.h"

#include "resource_fixtures.h"

/* balanced_allocation_test.go, current semantics: requested (not non-zero)
 * amounts, fractions capped at 1, std over the counted resources; a pod
 * that requests none of the resources is skipped at PreScore. */
static void test_balanced_allocation(void **state) {
    fx *f = *state;
    static const score_case cases[] = {
        /* cpu 75%, memory 50%: std 0.125, 87.5 truncated. */
        {"nothing scheduled, resources requested, differently sized nodes", {3000, 5000}, 0, 0, 2,
         {{{4000, 10000}, {0}}, {{6000, 10000}, {0}}}, {87, 100}},
        /* 60%/25% -> 82.5; 60%/50% -> 95. */
        {"resources requested, pods scheduled with resources", {3000, 5000}, 0, 0, 2,
         {{{10000, 20000}, {3000, 0}}, {{10000, 20000}, {3000, 5000}}}, {82, 95}},
        {"resources requested, pods scheduled with resources, differently sized nodes", {3000, 5000}, 0,
         0, 2, {{{10000, 20000}, {3000, 0}}, {{10000, 50000}, {3000, 5000}}}, {82, 80}},
        /* cpu 150% counts as 100%. */
        {"requested resources exceed node capacity", {3000, 0}, 0, 0, 2,
         {{{4000, 10000}, {3000, 0}}, {{4000, 10000}, {3000, 5000}}}, {50, 75}},
        /* No allocatable: nothing counts, std 0. */
        {"zero node resources", {3000, 5000}, 0, 0, 2, {{{0}, {3000, 0}}, {{0}, {3000, 5000}}}, {100, 100}},
        /* The node's non-zero requests (900m, 900) are not what counts: 50%/10%. */
        {"requested, not non-zero, amounts count", {500, 100}, 0, 0, 1,
         {{{1000, 1000}, {0}, 900, 900}}, {80}},
    };
    run_scores(f, &ms_plugin_node_resources_balanced_allocation, NULL, cases, sizeof cases / sizeof cases[0],
               MS_SUCCESS);

    /* Three resources: 50%, 50%, 75%: mean 7/12, std sqrt(1/72) = 0.1178,
     * 88.2. A node without the GPU counts cpu and memory only. A pod not
     * requesting the GPU leaves it out. */
    static const score_case three[] = {
        {"std over three resources", {1000, 2000, .scalar = {{"nvidia.com/gpu", 1}}}, 0, 0, 2,
         {{{4000, 10000, .scalar = {{"nvidia.com/gpu", 4}}}, {1000, 3000, .scalar = {{"nvidia.com/gpu", 2}}}},
          {{4000, 10000}, {1000, 3000}}},
         {88, 100}},
        {"a scalar the pod does not request is left out", {1000, 2000}, 0, 0, 1,
         {{{4000, 10000, .scalar = {{"nvidia.com/gpu", 4}}}, {1000, 3000, .scalar = {{"nvidia.com/gpu", 4}}}}},
         {100}},
    };
    run_scores(f, &ms_plugin_node_resources_balanced_allocation,
               "{\"resources\": [{\"name\": \"cpu\", \"weight\": 1}, {\"name\": \"memory\", \"weight\": 1}, "
               "{\"name\": \"nvidia.com/gpu\", \"weight\": 1}]}",
               three, sizeof three / sizeof three[0], MS_SUCCESS);

    /* Best-effort pods: PreScore returns Skip (upstream issue 129138). */
    static const score_case skip[] = {
        {"nothing scheduled, nothing requested", {0}, 100, 200 * MI, 2,
         {{{4000, 10000}, {0}}, {{4000, 10000}, {0}}}, {0}},
        {"no resources requested, pods scheduled with resources", {.eph = 5}, 0, 0, 2,
         {{{10000, 20000}, {6000, 0}}, {{10000, 20000}, {6000, 5000}}}, {0}},
    };
    run_scores(f, &ms_plugin_node_resources_balanced_allocation, NULL, skip, sizeof skip / sizeof skip[0],
               MS_SKIP);
}

static void test_balanced_allocation_args(void **state) {
    fx *f = *state;
    create_fails(f, &ms_plugin_node_resources_balanced_allocation,
                 "{\"resources\": [{\"name\": \"cpu\", \"weight\": 2}]}",
                 "resources[0].weight: Invalid value: 2: must be 1");
    create_fails(f, &ms_plugin_node_resources_balanced_allocation,
                 "{\"resources\": [{\"name\": \"cpu\"}, {\"name\": \"cpu\"}]}",
                 "resources[1].name: Duplicate value: \"cpu\"");
    create_fails(f, &ms_plugin_node_resources_balanced_allocation, "{\"resource\": []}",
                 "resource: unknown field");
    create_fails(f, &ms_plugin_node_resources_balanced_allocation, "[]", "expected an object");
    ms_plugin_node_resources_balanced_allocation.destroy(
        create(f, &ms_plugin_node_resources_balanced_allocation, "{\"resources\": []}"));
    ms_plugin_node_resources_balanced_allocation.destroy(create(
        f, &ms_plugin_node_resources_balanced_allocation, "{\"resources\": [{\"name\": \"cpu\", \"weight\": 0}]}"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_balanced_allocation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_balanced_allocation_args, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
