/* The built-in registry: every plugin that can reject a pod declares the
 * cluster events that may help it. */
#include "testutil.h"

#include "moonsched/plugin.h"

/* Every plugin that can reject a pod says which events may help it, so that
 * the pod is not retried on every event. */
static void test_rejecting_plugins_declare_events(void **state) {
    (void)state;
    for (uint32_t i = 0; ms_plugin_at(i); i++) {
        const ms_plugin_ops *o = ms_plugin_at(i);
        if (o->filter || o->pre_filter) assert_int_not_equal(o->events, 0);
    }
    assert_true(ms_plugin_lookup("NodePorts")->events & MS_EV_ASSIGNED_POD_DELETE);
    assert_true(ms_plugin_lookup("TaintToleration")->events & MS_EV_NODE_TAINT);
    assert_true(ms_plugin_lookup("NodeUnschedulable")->events & MS_EV_NODE_UNSCHEDULABLE);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rejecting_plugins_declare_events),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
