/* NodeName: a pod with spec.nodeName fits that node only, as upstream's
 * node_name_test.go. */
#include "testutil.h"

#include "plugin_harness.h"

static void test_node_name(void **state) {
    (void)state;
    static const struct {
        const char *name, *pod_node, *node;
        bool fits;
    } cases[] = {
        {"no host specified", NULL, "foo", true},
        {"host matches", "foo", "foo", true},
        {"host doesn't match", "bar", "foo", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_pod *pod = pod_with(NULL);
        pod->node_name = S(cases[i].pod_node);
        ms_node *node = node_with(cases[i].node, NULL);
        harness hx;
        harness_init(&hx, "NodeName", pod);
        ms_status st;
        ms_code code = run_filter(&hx, node, &st);
        if (cases[i].fits) {
            assert_int_equal(code, MS_SUCCESS);
        } else {
            assert_int_equal(code, MS_UNSCHEDULABLE_AND_UNRESOLVABLE);
            assert_string_equal(st.reasons[0], "node(s) didn't match the requested node name");
        }
        harness_free(&hx);
        ms_node_unref(node);
        ms_pod_unref(pod);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_node_name),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
