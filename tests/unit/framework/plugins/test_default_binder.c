/* DefaultBinder: the bind goes to the handle's binder with the pod and the
 * node; a binder's failure, or no binder at all, is an Error status. */
#include "testutil.h"

#include "plugin_harness.h"

typedef struct binder_spy {
    const ms_pod *pod;
    ms_str node;
    int calls;
    ms_rc rc;
} binder_spy;

static ms_rc spy_bind(void *ctx, const ms_pod *pod, ms_str node) {
    binder_spy *s = ctx;
    s->pod = pod;
    s->node = node;
    s->calls++;
    return s->rc;
}

static void test_bind_goes_to_the_binder(void **state) {
    (void)state;
    ms_pod *pod = pod_with(NULL);
    harness hx;
    binder_spy spy = {.rc = MS_OK};
    /* The plugin keeps the handle's address: a binder set afterwards counts. */
    harness_init(&hx, "DefaultBinder", pod);
    hx.h.bind = spy_bind;
    hx.h.bind_ctx = &spy;
    ms_status st;
    ms_status_ok(&st);
    assert_int_equal(hx.ops->bind(hx.self, pod, S("n1"), &st), MS_SUCCESS);
    assert_int_equal(spy.calls, 1);
    assert_ptr_equal(spy.pod, pod);
    assert_int_equal(spy.node, S("n1"));

    spy.rc = MS_EIO;
    assert_int_equal(hx.ops->bind(hx.self, pod, S("n1"), &st), MS_ERROR);
    assert_string_equal(st.reasons[0], "i/o error");

    hx.h.bind = NULL;
    assert_int_equal(hx.ops->bind(hx.self, pod, S("n1"), &st), MS_ERROR);
    assert_string_equal(st.reasons[0], "no binder configured");
    assert_int_equal(spy.calls, 2);
    harness_free(&hx);
    ms_pod_unref(pod);
}

static void test_ops(void **state) {
    (void)state;
    const ms_plugin_ops *ops = ms_plugin_lookup("DefaultBinder");
    assert_non_null(ops);
    assert_non_null(ops->bind);
    assert_null(ops->filter);
    assert_null(ops->score);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bind_goes_to_the_binder),
        cmocka_unit_test(test_ops),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
