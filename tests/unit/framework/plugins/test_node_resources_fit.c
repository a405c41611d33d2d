/* NodeResourcesFit: Filter and the three scoring strategies, with
 * upstream's worked examples (fit_test.go, least_allocated_test.go,
 * most_allocated_test.go, requested_to_capacity_ratio_test.go). */
#include "testutil.h"

#include "resource_fixtures.h"

/* ---- Filter ------------------------------------------------------------- */

#define U MS_UNSCHEDULABLE
#define UU MS_UNSCHEDULABLE_AND_UNRESOLVABLE
#define EXT_A "example.com/aaa"
#define EXT_B "example.com/bbb"
#define K8S_A "kubernetes.io/something"
#define K8S_B "subdomain.kubernetes.io/something"
#define HUGE_A "hugepages-2Mi"

typedef struct filter_case {
    const char *name;
    rsrc pod;
    rsrc used;
    const char *args;
    ms_code code;
    const char *reasons[MS_STATUS_MAX_REASONS];
} filter_case;

/* fit_test.go TestEnoughRequests: node allocatable cpu 10m, memory 20,
 * pods 32, example.com/aaa 5, ephemeral-storage 20, hugepages-2Mi 5, one pod
 * already on it. The pod's request is what the decoder computes (sum of
 * containers, max with each init container, plus overhead). Upstream now
 * reports UnschedulableAndUnresolvable when a request exceeds the node's
 * whole allocatable (preemption cannot help). */
static const filter_case fit_cases[] = {
    {"no resources requested always fits", {0}, {10, 20}, NULL, MS_SUCCESS, {0}},
    {"too many resources fails", {1, 1}, {10, 20}, NULL, U, {"Insufficient cpu", "Insufficient memory"}},
    {"too many resources fails due to init container cpu", {3, 1}, {8, 19}, NULL, U, {"Insufficient cpu"}},
    {"too many resources fails due to init container memory", {1, 3}, {9, 19}, NULL, U,
     {"Insufficient memory"}},
    {"init container fits because it's the max, not sum", {1, 1}, {9, 19}, NULL, MS_SUCCESS, {0}},
    {"both resources fit", {1, 1}, {5, 5}, NULL, MS_SUCCESS, {0}},
    {"one resource memory fits", {2, 1}, {9, 5}, NULL, U, {"Insufficient cpu"}},
    {"one resource cpu fits", {1, 2}, {5, 19}, NULL, U, {"Insufficient memory"}},
    {"equal edge case", {5, 1}, {5, 19}, NULL, MS_SUCCESS, {0}},
    {"extended resource fits", {.scalar = {{EXT_A, 1}}}, {0}, NULL, MS_SUCCESS, {0}},
    {"extended resource capacity enforced", {1, 1, .scalar = {{EXT_A, 10}}}, {.scalar = {{EXT_A, 0}}},
     NULL, UU, {"Insufficient " EXT_A}},
    {"extended resource allocatable enforced", {1, 1, .scalar = {{EXT_A, 1}}}, {.scalar = {{EXT_A, 5}}},
     NULL, U, {"Insufficient " EXT_A}},
    {"extended resource allocatable enforced for multiple containers", {2, 2, .scalar = {{EXT_A, 6}}},
     {.scalar = {{EXT_A, 2}}}, NULL, UU, {"Insufficient " EXT_A}},
    {"extended resource allocatable admits multiple init containers", {1, 1, .scalar = {{EXT_A, 3}}},
     {.scalar = {{EXT_A, 2}}}, NULL, MS_SUCCESS, {0}},
    {"extended resource allocatable enforced for unknown resource", {1, 1, .scalar = {{EXT_B, 1}}}, {0},
     NULL, UU, {"Insufficient " EXT_B}},
    {"kubernetes.io resource capacity enforced", {1, 1, .scalar = {{K8S_A, 10}}}, {0}, NULL, UU,
     {"Insufficient " K8S_A}},
    {"kubernetes.io resource capacity enforced for init container", {1, 1, .scalar = {{K8S_B, 10}}},
     {0}, NULL, UU, {"Insufficient " K8S_B}},
    {"hugepages resource capacity enforced", {1, 1, .scalar = {{HUGE_A, 10}}},
     {.scalar = {{HUGE_A, 0}}}, NULL, UU, {"Insufficient " HUGE_A}},
    {"hugepages resource allocatable enforced for multiple containers", {2, 2, .scalar = {{HUGE_A, 6}}},
     {.scalar = {{HUGE_A, 2}}}, NULL, UU, {"Insufficient " HUGE_A}},
    {"skip checking ignored extended resource", {1, 1, .scalar = {{EXT_B, 1}}}, {0},
     "{\"ignoredResources\": [\"example.com/bbb\"]}", MS_SUCCESS, {0}},
    {"resources + pod overhead fits", {1 + 3, 1 + 13}, {5, 5}, NULL, MS_SUCCESS, {0}},
    {"requests + overhead does not fit for memory", {1 + 1, 1 + 15}, {5, 5}, NULL, U,
     {"Insufficient memory"}},
    {"skip checking ignored extended resource via resource groups",
     {1, 1, .scalar = {{EXT_B, 1}, {K8S_A, 1}}}, {0}, "{\"ignoredResourceGroups\": [\"example.com\"]}",
     UU, {"Insufficient " K8S_A}},
    /* Only extended resources can be ignored. */
    {"ignoredResources does not apply to hugepages", {.scalar = {{HUGE_A, 10}}}, {0},
     "{\"ignoredResources\": [\"hugepages-2Mi\"]}", UU, {"Insufficient " HUGE_A}},
    {"a zero scalar request is not checked", {.scalar = {{EXT_B, 0}}}, {0}, NULL, MS_SUCCESS, {0}},
    {"every insufficient resource is a reason", {11, 2, 3, .scalar = {{EXT_A, 1}}},
     {9, 19, 18, .scalar = {{EXT_A, 5}}}, NULL, UU,
     {"Insufficient cpu", "Insufficient memory", "Insufficient ephemeral-storage",
      "Insufficient " EXT_A}},
    /* TestStorageRequests */
    {"due to container scratch disk", {1, 1}, {10, 10}, NULL, U, {"Insufficient cpu"}},
    {"pod fit", {1, 1, 10}, {2, 10}, NULL, MS_SUCCESS, {0}},
    {"storage ephemeral local storage request exceeds allocatable", {.eph = 25}, {2, 2}, NULL, UU,
     {"Insufficient ephemeral-storage"}},
    {"ephemeral storage fits", {.eph = 10}, {2, 2}, NULL, MS_SUCCESS, {0}},
    {"ephemeral storage does not fit beside used", {.eph = 10}, {2, 2, 15}, NULL, U,
     {"Insufficient ephemeral-storage"}},
};

static void check_status(const char *name, const ms_status *st, ms_code got, ms_code want,
                         const char *const *reasons) {
    if (got != want) fail_msg("%s: code %s, want %s", name, code_name(got), code_name(want));
    if (want == MS_SUCCESS) return;
    assert_int_equal(st->code, want);
    uint32_t n = 0;
    while (n < MS_STATUS_MAX_REASONS && reasons[n]) n++;
    if (st->nreasons != n) fail_msg("%s: %u reasons, want %u", name, st->nreasons, n);
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(st->reasons[i], reasons[i]) != 0)
            fail_msg("%s: reason %u \"%s\", want \"%s\"", name, i, st->reasons[i], reasons[i]);
}

static void test_fit_filter(void **state) {
    fx *f = *state;
    const rsrc alloc = {10, 20, 20, .scalar = {{EXT_A, 5}, {HUGE_A, 5}}};
    for (size_t i = 0; i < sizeof fit_cases / sizeof fit_cases[0]; i++) {
        const filter_case *tc = &fit_cases[i];
        void *self = create(f, &ms_plugin_node_resources_fit, tc->args);
        ms_node *node = make_node(f, "node", alloc, 32);
        ms_node_info ni;
        make_ni(f, &ni, node, 1, tc->used, -1, -1);
        ms_pod *pod = make_pod(f, tc->pod, -1, -1);
        begin_cycle(f, pod);
        ms_status st;
        ms_status_ok(&st);
        assert_int_equal(ms_plugin_node_resources_fit.pre_filter(self, &f->c, &st), MS_SUCCESS);
        ms_status_ok(&st);
        ms_code got = ms_plugin_node_resources_fit.filter(self, &f->c, &ni, &st);
        check_status(tc->name, &st, got, tc->code, tc->reasons);
        ms_pod_unref(pod);
        ms_resources_free(&ni.requested);
        ms_node_unref(node);
        ms_plugin_node_resources_fit.destroy(self);
    }
}

/* TestNotEnoughRequests: room for one pod, which is already there. */
static void test_fit_too_many_pods(void **state) {
    fx *f = *state;
    static const filter_case cases[] = {
        {"even without specified resources predicate fails", {0}, {10, 20}, NULL, U, {"Too many pods"}},
        {"even if both resources fit predicate fails", {1, 1}, {5, 5}, NULL, U, {"Too many pods"}},
        {"even for equal edge case predicate fails", {5, 1}, {5, 19}, NULL, U, {"Too many pods"}},
        {"too many pods and too little cpu", {6, 1}, {5, 19}, NULL, U, {"Too many pods", "Insufficient cpu"}},
        {"a request above allocatable makes it unresolvable", {11, 1}, {5, 5}, NULL, UU,
         {"Too many pods", "Insufficient cpu"}},
    };
    void *self = create(f, &ms_plugin_node_resources_fit, NULL);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_node *node = make_node(f, "node", (rsrc){10, 20}, 1);
        ms_node_info ni;
        make_ni(f, &ni, node, 1, cases[i].used, -1, -1);
        ms_pod *pod = make_pod(f, cases[i].pod, -1, -1);
        begin_cycle(f, pod);
        ms_status st;
        ms_status_ok(&st);
        assert_int_equal(ms_plugin_node_resources_fit.pre_filter(self, &f->c, &st), MS_SUCCESS);
        ms_code got = ms_plugin_node_resources_fit.filter(self, &f->c, &ni, &st);
        check_status(cases[i].name, &st, got, cases[i].code, cases[i].reasons);
        ms_pod_unref(pod);
        ms_resources_free(&ni.requested);
        ms_node_unref(node);
    }
    ms_plugin_node_resources_fit.destroy(self);
}

/* TestPreFilterDisabled */
static void test_fit_filter_without_prefilter(void **state) {
    fx *f = *state;
    void *self = create(f, &ms_plugin_node_resources_fit, NULL);
    ms_node *node = make_node(f, "node", (rsrc){10, 20}, 32);
    ms_node_info ni;
    make_ni(f, &ni, node, 0, (rsrc){0}, -1, -1);
    ms_pod *pod = make_pod(f, (rsrc){0}, -1, -1);
    begin_cycle(f, pod);
    ms_status st;
    ms_status_ok(&st);
    assert_int_equal(ms_plugin_node_resources_fit.filter(self, &f->c, &ni, &st), MS_ERROR);
    assert_int_equal(st.nreasons, 1);
    assert_string_equal(st.reasons[0],
                        "error reading \"PreFilterNodeResourcesFit\" from cycleState: not found");
    ms_pod_unref(pod);
    ms_node_unref(node);
    ms_plugin_node_resources_fit.destroy(self);
}

/* least_allocated_test.go (its "cpu": "4000" is read as 4000m here: the
 * scores depend on ratios only). */
static void test_least_allocated(void **state) {
    static const score_case cases[] = {
        {"nothing scheduled, nothing requested", {0}, 0, 0, 2,
         {{{4000, 10000}, {0}}, {{4000, 10000}, {0}}}, {100, 100}},
        {"nothing scheduled, resources requested, differently sized nodes", {3000, 5000}, 0, 0, 2,
         {{{4000, 10000}, {0}}, {{6000, 10000}, {0}}}, {37, 50}},
        {"no resources requested, pods scheduled with resources", {0}, 0, 0, 2,
         {{{10000, 20000}, {6000, 0}}, {{10000, 20000}, {6000, 5000}}}, {70, 57}},
        {"resources requested, pods scheduled with resources", {3000, 5000}, 0, 0, 2,
         {{{10000, 20000}, {3000, 0}}, {{10000, 20000}, {3000, 5000}}}, {57, 45}},
        {"resources requested, pods scheduled with resources, differently sized nodes", {3000, 5000}, 0,
         0, 2, {{{10000, 20000}, {3000, 0}}, {{10000, 50000}, {3000, 5000}}}, {57, 60}},
        {"requested resources exceed node capacity", {3000, 0}, 0, 0, 2,
         {{{4000, 10000}, {3000, 0}}, {{4000, 10000}, {3000, 5000}}}, {50, 25}},
        {"zero node resources, pods scheduled with resources", {0}, 0, 0, 2,
         {{{0}, {3000, 0}}, {{0}, {3000, 5000}}}, {0, 0}},
        {"different weight on CPU and memory, differently sized nodes", {3000, 5000}, 0, 0, 2,
         {{{4000, 10000}, {0}}, {{6000, 10000}, {0}}}, {41, 50}, LEAST_MEM2},
        {"bypass extended resource if the pod does not request", {3000, 5000}, 0, 0, 2,
         {{{6000, 10000}, {0}}, {{6000, 10000, .scalar = {{EXT, 4}}}, {0}}}, {50, 50},
         EXT_SET("LeastAllocated")},
        {"honor extended resource if the pod requests", {3000, 5000, .scalar = {{EXT, 2}}}, 0, 0, 2,
         {{{6000, 10000, .scalar = {{EXT, 4}}}, {0}}, {{6000, 10000, .scalar = {{EXT, 10}}}, {0}}},
         {50, 60}, EXT_SET("LeastAllocated")},
        {"if the node doesn't have a resource", {3000, 4000}, 0, 0, 2,
         {{{6000, 10000}, {0}}, {{6000, 10000, .scalar = {{EXT, 4}}}, {0}}}, {55, 55},
         EXT2_SET("LeastAllocated")},
        /* Non-zero requests: a pod that requests nothing counts 100m and
         * 200Mi. node1: cpu 300m of 250m -> 0, memory 600Mi of 1000Mi -> 40;
         * node2: cpu 100m -> 60, memory 200Mi -> 80. */
        {"no resources requested, pods scheduled, nonzero request for resource", {0}, 100, 200 * MI, 2,
         {{{250, 1000 * MI}, {0}, 200, 400 * MI}, {{250, 1000 * MI}, {0}}}, {20, 70}},
    };
    run_scores(*state, &ms_plugin_node_resources_fit, LEAST, cases, sizeof cases / sizeof cases[0],
               MS_SUCCESS);
    /* LeastAllocated is the default strategy. */
    run_scores(*state, &ms_plugin_node_resources_fit, NULL, cases, 7, MS_SUCCESS);
}

/* most_allocated_test.go */
static void test_most_allocated(void **state) {
    static const score_case cases[] = {
        {"nothing scheduled, nothing requested", {0}, 0, 0, 2,
         {{{4000, 10000}, {0}}, {{4000, 10000}, {0}}}, {0, 0}},
        {"nothing scheduled, resources requested, differently sized nodes", {3000, 5000}, 0, 0, 2,
         {{{4000, 10000}, {0}}, {{6000, 10000}, {0}}}, {62, 50}},
        {"no resources requested, pods scheduled with resources", {0}, 0, 0, 2,
         {{{10000, 20000}, {6000, 0}}, {{10000, 20000}, {6000, 5000}}}, {30, 42}},
        {"resources requested, pods scheduled with resources", {3000, 5000}, 0, 0, 2,
         {{{10000, 20000}, {3000, 0}}, {{10000, 20000}, {3000, 5000}}}, {42, 55}},
        {"resources requested equal node capacity", {5000, 9000}, 0, 0, 2,
         {{{5000, 10000}, {0}}, {{10000, 9000}, {0}}}, {95, 75}},
        {"different weight on CPU and memory, differently sized nodes", {3000, 5000}, 0, 0, 2,
         {{{4000, 10000}, {0}}, {{6000, 10000}, {0}}}, {58, 50}, MOST_MEM2},
        {"no resources requested, pods scheduled, nonzero request for resource", {0}, 100, 200 * MI, 2,
         {{{250, 1000 * MI}, {0}, 200, 400 * MI}, {{250, 1000 * MI}, {0}}}, {80, 30}},
        {"bypass extended resource if the pod does not request", {3000, 5000}, 0, 0, 2,
         {{{6000, 10000}, {0}}, {{6000, 10000, .scalar = {{EXT, 4}}}, {0}}}, {50, 50},
         EXT_SET("MostAllocated")},
        {"honor extended resource if the pod request", {3000, 5000, .scalar = {{EXT, 2}}}, 0, 0, 2,
         {{{6000, 10000, .scalar = {{EXT, 4}}}, {0}}, {{6000, 10000, .scalar = {{EXT, 10}}}, {0}}},
         {50, 40}, EXT_SET("MostAllocated")},
        {"if the node doesn't have a resource", {3000, 4000}, 0, 0, 2,
         {{{6000, 10000}, {0}}, {{6000, 10000, .scalar = {{EXT, 4}}}, {0}}}, {45, 45},
         EXT2_SET("MostAllocated")},
    };
    run_scores(*state, &ms_plugin_node_resources_fit, MOST, cases, sizeof cases / sizeof cases[0],
               MS_SUCCESS);
}

#define RTCR_DEFAULT_SHAPE                                                                       \
    "{\"scoringStrategy\": {\"type\": \"RequestedToCapacityRatio\", \"requestedToCapacityRatio\": " \
    "{\"shape\": [{\"utilization\": 0, \"score\": 10}, {\"utilization\": 100, \"score\": 0}]}}}"
#define RTCR_FOO                                                                                  \
    "{\"scoringStrategy\": {\"type\": \"RequestedToCapacityRatio\", \"resources\": [{\"name\": "   \
    "\"intel.com/foo\", \"weight\": 1}], \"requestedToCapacityRatio\": {\"shape\": "             \
    "[{\"utilization\": 0, \"score\": 0}, {\"utilization\": 100, \"score\": 1}]}}}"
#define RTCR_FOO_BAR                                                                              \
    "{\"scoringStrategy\": {\"type\": \"RequestedToCapacityRatio\", \"resources\": [{\"name\": "   \
    "\"intel.com/foo\", \"weight\": 3}, {\"name\": \"intel.com/bar\", \"weight\": 5}], "          \
    "\"requestedToCapacityRatio\": {\"shape\": [{\"utilization\": 0, \"score\": 0}, "            \
    "{\"utilization\": 100, \"score\": 1}]}}}"
#define FOO "intel.com/foo"
#define BAR "intel.com/bar"
#define NODE_MEM (10000 * MI)

/* requested_to_capacity_ratio_test.go */
static void test_requested_to_capacity_ratio(void **state) {
    static const score_case cases[] = {
        {"nothing scheduled, nothing requested (least requested nodes have priority)", {0}, 0, 0, 2,
         {{{4000, 10000}, {0}}, {{4000, 10000}, {0}}}, {100, 100}},
        /* cpu 75% -> 25, memory 50% -> 50: 37.5 rounds to 38 (LeastAllocated truncates to 37). */
        {"nothing scheduled, resources requested, differently sized nodes", {3000, 5000}, 0, 0, 2,
         {{{4000, 10000}, {0}}, {{6000, 10000}, {0}}}, {38, 50}},
        {"no resources requested, pods scheduled with resources", {0}, 0, 0, 2,
         {{{4000, 10000}, {3000, 5000}}, {{6000, 10000}, {3000, 5000}}}, {38, 50}},
    };
    run_scores(*state, &ms_plugin_node_resources_fit, RTCR_DEFAULT_SHAPE, cases,
               sizeof cases / sizeof cases[0], MS_SUCCESS);

    /* TestResourceBinPackingSingleExtended */
    static const score_case single[] = {
        {"nothing scheduled, nothing requested", {0}, 0, 0, 2,
         {{{4000, NODE_MEM, .scalar = {{FOO, 8}}}, {0}}, {{4000, NODE_MEM, .scalar = {{FOO, 4}}}, {0}}},
         {0, 0}},
        {"resources requested, pods scheduled with less resources", {.scalar = {{FOO, 2}}}, 0, 0, 2,
         {{{4000, NODE_MEM, .scalar = {{FOO, 8}}}, {0}}, {{4000, NODE_MEM, .scalar = {{FOO, 4}}}, {0}}},
         {2, 5}},
        {"resources requested, pods scheduled with resources, on node with existing pod running",
         {.scalar = {{FOO, 2}}}, 0, 0, 2,
         {{{4000, NODE_MEM, .scalar = {{FOO, 8}}}, {0}},
          {{4000, NODE_MEM, .scalar = {{FOO, 4}}}, {.scalar = {{FOO, 2}}}}},
         {2, 10}},
        {"resources requested, pods scheduled with more resources", {.scalar = {{FOO, 4}}}, 0, 0, 2,
         {{{4000, NODE_MEM, .scalar = {{FOO, 8}}}, {0}}, {{4000, NODE_MEM, .scalar = {{FOO, 4}}}, {0}}},
         {5, 10}},
    };
    run_scores(*state, &ms_plugin_node_resources_fit, RTCR_FOO, single, sizeof single / sizeof single[0],
               MS_SUCCESS);

    /* TestResourceBinPackingMultipleExtended */
    static const score_case multi[] = {
        {"nothing scheduled, nothing requested", {0}, 0, 0, 2,
         {{{4000, NODE_MEM, .scalar = {{FOO, 8}, {BAR, 4}}}, {0}},
          {{4000, NODE_MEM, .scalar = {{FOO, 4}, {BAR, 8}}}, {0}}},
         {0, 0}},
        {"resources requested, pods scheduled with less resources", {.scalar = {{FOO, 2}, {BAR, 2}}}, 0,
         0, 2,
         {{{4000, NODE_MEM, .scalar = {{FOO, 8}, {BAR, 4}}}, {0}},
          {{4000, NODE_MEM, .scalar = {{FOO, 4}, {BAR, 8}}}, {0}}},
         {4, 3}},
        {"resources requested, pods scheduled with resources, on node with existing pod running",
         {.scalar = {{FOO, 2}, {BAR, 2}}}, 0, 0, 2,
         {{{4000, NODE_MEM, .scalar = {{FOO, 8}, {BAR, 4}}}, {0}},
          {{4000, NODE_MEM, .scalar = {{FOO, 4}, {BAR, 8}}}, {.scalar = {{FOO, 4}, {BAR, 2}}}}},
         {4, 7}},
        {"resources requested, pods scheduled with more resources", {.scalar = {{FOO, 4}, {BAR, 2}}}, 0,
         0, 2,
         {{{4000, NODE_MEM, .scalar = {{FOO, 8}, {BAR, 4}}}, {0}},
          {{4000, NODE_MEM, .scalar = {{FOO, 4}, {BAR, 8}}}, {0}}},
         {5, 5}},
    };
    run_scores(*state, &ms_plugin_node_resources_fit, RTCR_FOO_BAR, multi, sizeof multi / sizeof multi[0],
               MS_SUCCESS);
}

/* The broken-linear shape (TestBrokenLinearFunction's second shape, on the
 * 0..100 scale): {0: 20, 40: 100, 100: 0}. With one resource of capacity
 * 100 the requested amount is the utilization. Segment interpolation
 * truncates toward zero like Go's integer division: at 53,
 * 100 - 100*13/60 = 100 - 21 = 79. Utilization 100 scores 0, and a
 * resource scoring 0 is left out: no weight left, score 0. */
static void test_rtcr_shape(void **state) {
    static const struct { int64_t util, want; } pts[] = {
        {0, 20}, {20, 60}, {30, 80}, {40, 100}, {53, 79}, {70, 50}, {100, 0}, {130, 0},
    };
    fx *f = *state;
    void *self = create(f, &ms_plugin_node_resources_fit,
                        "{\"scoringStrategy\": {\"type\": \"RequestedToCapacityRatio\", \"resources\": "
                        "[{\"name\": \"cpu\"}], \"requestedToCapacityRatio\": {\"shape\": "
                        "[{\"utilization\": 0, \"score\": 2}, {\"utilization\": 40, \"score\": 10}, "
                        "{\"utilization\": 100, \"score\": 0}]}}}");
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
        ms_node *node = make_node(f, "node", (rsrc){100, 100}, 110);
        ms_node_info ni, *list = &ni;
        make_ni(f, &ni, node, 0, (rsrc){0}, -1, -1);
        ms_pod *pod = make_pod(f, (rsrc){pts[i].util, 0}, -1, -1);
        begin_cycle(f, pod);
        ms_status st;
        int64_t score = -1;
        assert_int_equal(ms_plugin_node_resources_fit.pre_score(self, &f->c, &list, 1, &st), MS_SUCCESS);
        assert_int_equal(ms_plugin_node_resources_fit.score(self, &f->c, &list, 1, &score, &st), MS_SUCCESS);
        if (score != pts[i].want)
            fail_msg("utilization %lld scored %lld, want %lld", (long long)pts[i].util, (long long)score,
                     (long long)pts[i].want);
        ms_pod_unref(pod);
        ms_node_unref(node);
    }
    ms_plugin_node_resources_fit.destroy(self);
}

/* Score still works when PreScore did not run (upstream recomputes). */
static void test_fit_score_without_prescore(void **state) {
    fx *f = *state;
    void *self = create(f, &ms_plugin_node_resources_fit, NULL);
    ms_node *node = make_node(f, "node1", (rsrc){4000, 10000}, 110);
    ms_node_info ni, *list = &ni;
    make_ni(f, &ni, node, 0, (rsrc){0}, -1, -1);
    ms_pod *pod = make_pod(f, (rsrc){3000, 5000}, -1, -1);
    begin_cycle(f, pod);
    ms_status st;
    int64_t score = -1;
    assert_int_equal(ms_plugin_node_resources_fit.score(self, &f->c, &list, 1, &score, &st), MS_SUCCESS);
    assert_int_equal(score, 37);
    ms_pod_unref(pod);
    ms_node_unref(node);
    ms_plugin_node_resources_fit.destroy(self);
}

static void test_fit_args(void **state) {
    fx *f = *state;
    static const struct { const char *json, *want; } bad[] = {
        {"{\"scoringStrategy\": {\"type\": \"LeastAllocated\", \"resources\": [{\"name\": \"memory\", "
         "\"weight\": -1}, {\"name\": \"cpu\", \"weight\": 1}]}}",
         "scoringStrategy.resources[0].weight: Invalid value: -1"},
        {"{\"scoringStrategy\": {\"type\": \"MostAllocated\", \"resources\": [{\"name\": \"memory\", "
         "\"weight\": 101}]}}",
         "scoringStrategy.resources[0].weight: Invalid value: 101: resource weight of memory not in "
         "valid range (0, 100]"},
        {"{\"scoringStrategy\": {\"type\": \"LeastAllocated\", \"resources\": [{\"name\": \"cpu\", "
         "\"weight\": 1.5}]}}",
         "scoringStrategy.resources[0].weight"},
        {"{\"scoringStrategy\": {\"type\": \"Spread\"}}", "scoringStrategy.type: Unsupported value: \"Spread\""},
        {"{\"scoringStrategy\": {\"resources\": [{\"name\": \"cpu\"}]}}",
         "scoringStrategy.type: Unsupported value: \"\""},
        {"{\"scoringStrategy\": {\"type\": \"RequestedToCapacityRatio\"}}",
         "requestedToCapacityRatio.shape: Required value"},
        {"{\"scoringStrategy\": {\"type\": \"RequestedToCapacityRatio\", \"requestedToCapacityRatio\": "
         "{\"shape\": []}}}",
         "at least one point must be specified"},
        {"{\"scoringStrategy\": {\"type\": \"RequestedToCapacityRatio\", \"requestedToCapacityRatio\": "
         "{\"shape\": [{\"utilization\": 50, \"score\": 1}, {\"utilization\": 10, \"score\": 2}]}}}",
         "shape[1].utilization: Invalid value: 10: values must be sorted in increasing order"},
        {"{\"scoringStrategy\": {\"type\": \"RequestedToCapacityRatio\", \"requestedToCapacityRatio\": "
         "{\"shape\": [{\"utilization\": 10, \"score\": 1}, {\"utilization\": 10, \"score\": 2}]}}}",
         "values must be sorted in increasing order"},
        {"{\"scoringStrategy\": {\"type\": \"RequestedToCapacityRatio\", \"requestedToCapacityRatio\": "
         "{\"shape\": [{\"utilization\": 101, \"score\": 1}]}}}",
         "shape[0].utilization: Invalid value: 101: not in valid range [0, 100]"},
        {"{\"scoringStrategy\": {\"type\": \"RequestedToCapacityRatio\", \"requestedToCapacityRatio\": "
         "{\"shape\": [{\"utilization\": -1, \"score\": 1}]}}}",
         "shape[0].utilization: Invalid value: -1"},
        {"{\"scoringStrategy\": {\"type\": \"RequestedToCapacityRatio\", \"requestedToCapacityRatio\": "
         "{\"shape\": [{\"utilization\": 10, \"score\": 11}]}}}",
         "shape[0].score: Invalid value: 11: not in valid range [0, 10]"},
        {"{\"scoringStrategy\": {\"type\": \"RequestedToCapacityRatio\", \"requestedToCapacityRatio\": "
         "{\"shape\": [{\"utilization\": 10, \"score\": -1}]}}}",
         "shape[0].score: Invalid value: -1"},
        /* TestValidateFitArgs */
        {"{\"ignoredResources\": [\"longvalueaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"]}",
         "ignoredResources[0]: Invalid value"},
        {"{\"ignoredResources\": [\"example.com/\"]}", "ignoredResources[0]: Invalid value"},
        {"{\"ignoredResources\": [\"example.com/aaa/bbb\"]}", "ignoredResources[0]: Invalid value"},
        {"{\"ignoredResourceGroups\": [\"example.com/\"]}", "can't contain '/'"},
        {"{\"ignoredResourceGroups\": [\"-bad\"]}", "ignoredResourceGroups[0]: Invalid value"},
        {"{\"ignoredResources\": \"example.com/aaa\"}", "ignoredResources: expected a list"},
        {"{\"scoringStrategie\": {}}", "scoringStrategie: unknown field"},
        {"{\"scoringStrategy\": {\"type\": \"LeastAllocated\", \"resources\": [{\"weight\": 1}]}}",
         "scoringStrategy.resources[0].name"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        create_fails(f, &ms_plugin_node_resources_fit, bad[i].json, bad[i].want);

    static const char *const good[] = {
        "{}",
        "null",
        "{\"apiVersion\": \"kubescheduler.config.k8s.io/v1\", \"kind\": \"NodeResourcesFitArgs\", "
        "\"ignoredResources\": [\"example.com\"], \"ignoredResourceGroups\": [\"example.com\"]}",
        /* v1 defaulting: a zero or absent weight means 1. */
        "{\"scoringStrategy\": {\"type\": \"MostAllocated\", \"resources\": [{\"name\": \"cpu\", "
        "\"weight\": 0}, {\"name\": \"memory\"}]}}",
        "{\"scoringStrategy\": {\"type\": \"RequestedToCapacityRatio\", \"resources\": [{\"name\": "
        "\"nvidia.com/gpu\", \"weight\": 100}], \"requestedToCapacityRatio\": {\"shape\": "
        "[{\"utilization\": 0, \"score\": 0}, {\"utilization\": 100, \"score\": 10}]}}}",
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        ms_plugin_node_resources_fit.destroy(create(f, &ms_plugin_node_resources_fit, good[i]));
}

static void test_ops(void **state) {
    (void)state;
    assert_string_equal(ms_plugin_node_resources_fit.name, "NodeResourcesFit");
    assert_string_equal(ms_plugin_node_resources_balanced_allocation.name, "NodeResourcesBalancedAllocation");
    assert_int_equal(ms_plugin_node_resources_fit.events,
                     MS_EV_ASSIGNED_POD_DELETE | MS_EV_FORGET | MS_EV_NODE_ADD | MS_EV_NODE_ALLOCATABLE);
    assert_null(ms_plugin_node_resources_fit.normalize_score);
    assert_null(ms_plugin_node_resources_balanced_allocation.filter);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_fit_filter, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fit_too_many_pods, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fit_filter_without_prefilter, setup, teardown),
        cmocka_unit_test_setup_teardown(test_least_allocated, setup, teardown),
        cmocka_unit_test_setup_teardown(test_most_allocated, setup, teardown),
        cmocka_unit_test_setup_teardown(test_requested_to_capacity_ratio, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rtcr_shape, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fit_score_without_prescore, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fit_args, setup, teardown),
        cmocka_unit_test(test_ops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
