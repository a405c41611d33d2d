/* TaintToleration: Filter (untolerated NoSchedule/NoExecute taints) and
 * Score (intolerable PreferNoSchedule taints, reversed), as upstream's
 * taint_toleration_test.go. */
#include "testutil.h"

#include "plugin_harness.h"

static void test_taint_toleration_filter(void **state) {
    (void)state;
    static const struct {
        const char *name;
        tol_spec tols[MAXT];
        taint_spec taints[MAXT];
        const char *want;   /* NULL: fits */
    } cases[] = {
        {"no tolerations, a NoSchedule taint", {{0}}, {{"dedicated", "user1", "NoSchedule"}},
         "node(s) had untolerated taint {dedicated: user1}"},
        {"tolerated dedicated node", {{"dedicated", NULL, "user1", "NoSchedule"}},
         {{"dedicated", "user1", "NoSchedule"}}, NULL},
        {"toleration for another user", {{"dedicated", "Equal", "user2", "NoSchedule"}},
         {{"dedicated", "user1", "NoSchedule"}}, "node(s) had untolerated taint {dedicated: user1}"},
        {"Exists tolerates the taint", {{"foo", "Exists", NULL, "NoSchedule"}},
         {{"foo", "bar", "NoSchedule"}}, NULL},
        {"every taint tolerated",
         {{"dedicated", "Equal", "user2", "NoSchedule"}, {"foo", "Exists", NULL, "NoSchedule"}},
         {{"dedicated", "user2", "NoSchedule"}, {"foo", "bar", "NoSchedule"}}, NULL},
        {"key and value match but the effect does not",
         {{"foo", "Equal", "bar", "PreferNoSchedule"}}, {{"foo", "bar", "NoSchedule"}},
         "node(s) had untolerated taint {foo: bar}"},
        {"empty toleration effect", {{"foo", "Equal", "bar", NULL}}, {{"foo", "bar", "NoSchedule"}}, NULL},
        {"PreferNoSchedule taints do not filter", {{"dedicated", "Equal", "user2", "NoSchedule"}},
         {{"dedicated", "user1", "PreferNoSchedule"}}, NULL},
        {"no tolerations, PreferNoSchedule only", {{0}}, {{"dedicated", "user1", "PreferNoSchedule"}}, NULL},
        {"NoExecute taints filter too", {{"a", "Exists", NULL, "NoSchedule"}},
         {{"a", NULL, "NoSchedule"}, {"b", NULL, "NoExecute"}}, "node(s) had untolerated taint {b: }"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_pod *pod = pod_with(cases[i].tols);
        ms_node *node = node_with("nodeA", cases[i].taints);
        harness hx;
        harness_init(&hx, "TaintToleration", pod);
        ms_status st;
        ms_code code = run_filter(&hx, node, &st);
        if (cases[i].want) {
            if (code != MS_UNSCHEDULABLE_AND_UNRESOLVABLE) fail_msg("%s: code %d", cases[i].name, code);
            assert_int_equal(st.nreasons, 1);
            assert_string_equal(st.reasons[0], cases[i].want);
        } else if (code != MS_SUCCESS) {
            fail_msg("%s: code %d", cases[i].name, code);
        }
        harness_free(&hx);
        ms_node_unref(node);
        ms_pod_unref(pod);
    }
}

static void test_taint_toleration_score(void **state) {
    (void)state;
    static const struct {
        const char *name;
        tol_spec tols[MAXT];
        taint_spec taints[3][MAXT];
        int64_t want[3];
        uint32_t nnodes;
    } cases[] = {
        {"tolerated taints score higher than intolerable ones",
         {{"foo", "Equal", "bar", "PreferNoSchedule"}},
         {{{"foo", "bar", "PreferNoSchedule"}}, {{"foo", "blah", "PreferNoSchedule"}}},
         {100, 0}, 2},
        {"the number of tolerated taints does not matter",
         {{"cpu-type", "Equal", "arm64", "PreferNoSchedule"}, {"disk-type", "Equal", "ssd", "PreferNoSchedule"}},
         {{{0}}, {{"cpu-type", "arm64", "PreferNoSchedule"}},
          {{"cpu-type", "arm64", "PreferNoSchedule"}, {"disk-type", "ssd", "PreferNoSchedule"}}},
         {100, 100, 100}, 3},
        {"more intolerable taints, lower score",
         {{"foo", "Equal", "bar", "PreferNoSchedule"}},
         {{{0}}, {{"cpu-type", "arm64", "PreferNoSchedule"}},
          {{"cpu-type", "arm64", "PreferNoSchedule"}, {"disk-type", "ssd", "PreferNoSchedule"}}},
         {100, 50, 0}, 3},
        {"only PreferNoSchedule taints and tolerations count",
         {{"cpu-type", "Equal", "arm64", "NoSchedule"}, {"disk-type", "Equal", "ssd", "NoSchedule"}},
         {{{0}}, {{"cpu-type", "arm64", "NoSchedule"}},
          {{"cpu-type", "arm64", "PreferNoSchedule"}, {"disk-type", "ssd", "PreferNoSchedule"}}},
         {100, 100, 0}, 3},
        {"no taints and no tolerations", {{0}},
         {{{0}}, {{"cpu-type", "arm64", "PreferNoSchedule"}}}, {100, 0}, 2},
        {"a toleration with an empty effect counts",
         {{"cpu-type", "Exists", NULL, NULL}},
         {{{"cpu-type", "arm64", "PreferNoSchedule"}}, {{"gpu", NULL, "PreferNoSchedule"}}},
         {100, 0}, 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_pod *pod = pod_with(cases[i].tols);
        harness hx;
        harness_init(&hx, "TaintToleration", pod);
        ms_node *nodes[3] = {0};
        ms_node_info infos[3] = {{0}};
        ms_node_info *list[3];
        for (uint32_t k = 0; k < cases[i].nnodes; k++) {
            nodes[k] = node_with("n", cases[i].taints[k]);
            infos[k].node = nodes[k];
            list[k] = &infos[k];
        }
        ms_status st;
        int64_t scores[3] = {-1, -1, -1};
        assert_int_equal(hx.ops->pre_score(hx.self, &hx.c, list, cases[i].nnodes, &st), MS_SUCCESS);
        assert_int_equal(hx.ops->score(hx.self, &hx.c, list, cases[i].nnodes, scores, &st), MS_SUCCESS);
        assert_int_equal(hx.ops->normalize_score(hx.self, &hx.c, scores, cases[i].nnodes, &st), MS_SUCCESS);
        for (uint32_t k = 0; k < cases[i].nnodes; k++)
            if (scores[k] != cases[i].want[k])
                fail_msg("%s: node %u scored %lld, want %lld", cases[i].name, k,
                         (long long)scores[k], (long long)cases[i].want[k]);
        for (uint32_t k = 0; k < cases[i].nnodes; k++) ms_node_unref(nodes[k]);
        harness_free(&hx);
        ms_pod_unref(pod);
    }
}

static void test_taint_toleration_score_without_pre_score(void **state) {
    (void)state;
    ms_pod *pod = pod_with(NULL);
    harness hx;
    harness_init(&hx, "TaintToleration", pod);
    ms_status st;
    int64_t s[1];
    ms_node_info ni = {0};
    ms_node_info *list[] = {&ni};
    assert_int_equal(hx.ops->score(hx.self, &hx.c, list, 1, s, &st), MS_ERROR);
    harness_free(&hx);
    ms_pod_unref(pod);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_taint_toleration_filter),
        cmocka_unit_test(test_taint_toleration_score),
        cmocka_unit_test(test_taint_toleration_score_without_pre_score),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
