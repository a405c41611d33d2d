/* SchedulingGates: PreEnqueue refuses a pod with gates, in upstream's
 * words (scheduling_gates_test.go), and declares that only the pod's own
 * update can lift a gate. */
#include "testutil.h"

#include "plugin_harness.h"

static void test_pre_enqueue(void **state) {
    (void)state;
    static const struct {
        const char *name;
        const char *gates[3];
        const char *reason;            /* NULL: let in */
    } cases[] = {
        {"pod without gates", {NULL}, NULL},
        {"pod with one gate", {"foo", NULL}, "waiting for scheduling gates: [foo]"},
        {"pod with gates", {"foo", "bar", NULL}, "waiting for scheduling gates: [foo bar]"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_pod *pod = pod_with(NULL);
        ms_str gates[3];
        uint32_t n = 0;
        while (cases[i].gates[n]) {
            gates[n] = S(cases[i].gates[n]);
            n++;
        }
        pod->scheduling_gates = gates;
        pod->nscheduling_gates = n;
        harness hx;
        harness_init(&hx, "SchedulingGates", pod);
        const char *reason = NULL;
        bool ok = hx.ops->pre_enqueue(hx.self, pod, &reason);
        if (!cases[i].reason) {
            assert_true(ok);
        } else {
            assert_false(ok);
            assert_string_equal(reason, cases[i].reason);
        }
        pod->scheduling_gates = NULL;
        pod->nscheduling_gates = 0;
        harness_free(&hx);
        ms_pod_unref(pod);
    }
}

/* PreEnqueue only; no cluster event lifts a gate (0 would mean all). */
static void test_ops(void **state) {
    (void)state;
    const ms_plugin_ops *o = ms_plugin_lookup("SchedulingGates");
    assert_non_null(o);
    assert_non_null(o->pre_enqueue);
    assert_null(o->filter);
    assert_null(o->pre_filter);
    assert_int_equal(o->events, MS_EV_UNSCHEDULED_POD_UPDATE);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pre_enqueue),
        cmocka_unit_test(test_ops),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
