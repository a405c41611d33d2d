/* NodeUnschedulable: a cordoned node takes only pods that tolerate its
 * unschedulable taint, as upstream's node_unschedulable_test.go. */
#include "testutil.h"

#include "plugin_harness.h"

static void test_node_unschedulable(void **state) {
    (void)state;
    static const struct {
        const char *name;
        bool unschedulable;
        tol_spec tols[MAXT];
        bool fits;
    } cases[] = {
        {"unschedulable node", true, {{0}}, false},
        {"normal node", false, {{0}}, true},
        {"pod tolerates the unschedulable taint", true,
         {{"node.kubernetes.io/unschedulable", NULL, NULL, "NoSchedule"}}, true},
        {"Exists toleration for every taint", true, {{NULL, "Exists", NULL, NULL}}, true},
        {"toleration for another effect", true,
         {{"node.kubernetes.io/unschedulable", "Exists", NULL, "NoExecute"}}, false},
        {"toleration for another key", true, {{"node.kubernetes.io/not-ready", "Exists", NULL, NULL}}, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_pod *pod = pod_with(cases[i].tols);
        ms_node *node = node_with("n", NULL);
        node->unschedulable = cases[i].unschedulable;
        harness hx;
        harness_init(&hx, "NodeUnschedulable", pod);
        ms_status st;
        ms_code code = run_filter(&hx, node, &st);
        if (cases[i].fits != (code == MS_SUCCESS)) fail_msg("%s: code %d", cases[i].name, code);
        if (!cases[i].fits) {
            assert_int_equal(code, MS_UNSCHEDULABLE_AND_UNRESOLVABLE);
            assert_string_equal(st.reasons[0], "node(s) were unschedulable");
        }
        harness_free(&hx);
        ms_node_unref(node);
        ms_pod_unref(pod);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_node_unschedulable),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
