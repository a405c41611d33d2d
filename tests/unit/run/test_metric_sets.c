/* `run`'s /metrics: every layer's set registered in one registry, the
 * whole exposition byte for byte (tests/unit/metrics_golden.h) in a state
 * that sets every family, and with nothing recorded. */
#include "testutil.h"

#include "metrics_golden.h"
#include "metrics_states.h"

static char *render(ms_metric_sets *s) {
    size_t len = 0;
    char *t = metrics_render_run(s, &len);
    assert_non_null(t);
    assert_int_equal(strlen(t), len);
    char *n = metrics_without_process_figures(t);
    free(t);
    return n;
}

static void test_exposition_golden(void **state) {
    (void)state;
    const char *profiles[] = {"default-scheduler", "gpu"};
    ms_metric_sets *s = ms_metric_sets_new(profiles, 2, true);
    assert_non_null(s);
    metrics_fill_run(s);
    char *t = render(s);
    assert_string_equal(t, golden_run);
    free(t);
    ms_metric_sets_free(s);
    s = ms_metric_sets_new(NULL, 0, false);
    assert_non_null(s);
    t = render(s);
    assert_string_equal(t, golden_run_empty);
    free(t);
    ms_metric_sets_free(s);
}

/* The controller's families are served when it runs, recorded or not. */
static void test_taint_eviction_when_running(void **state) {
    (void)state;
    ms_metric_sets *s = ms_metric_sets_new(NULL, 0, true);
    assert_non_null(s);
    char *t = render(s);
    assert_true(tu_series(t, "taint_eviction_controller_pod_deletions_total") == 0);
    assert_true(tu_series(t, "taint_eviction_controller_pod_deletion_duration_seconds_count") == 0);
    free(t);
    ms_metric_sets_free(s);
    s = ms_metric_sets_new(NULL, 0, false);
    assert_null(s->taint_eviction);
    ms_metric_sets_free(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exposition_golden),
        cmocka_unit_test(test_taint_eviction_when_running),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
