/* The scheduler's metric set in `run`: upstream's names, labels and
 * buckets, escaping, and the scheduler thread's text handed over (the
 * whole exposition of `run` byte for byte: run/test_metric_sets.c). */
#include "testutil.h"

#include <math.h>

#include "base/metrics_registry.h"
#include "scheduler/run_metrics.h"

/* The set's two collectors, as `run` registers them (others between). */
static char *render(ms_metrics *m) {
    size_t len = 0;
    ms_metrics_registry *r = ms_metrics_registry_new();
    assert_non_null(r);
    assert_true(ms_metrics_registry_add(r, ms_metrics_collect, m));
    assert_true(ms_metrics_registry_add(r, ms_metrics_collect_scheduler_text, m));
    char *t = ms_metrics_registry_render(r, &len);
    ms_metrics_registry_free(r);
    assert_non_null(t);
    assert_int_equal(strlen(t), len);
    return t;
}

static void test_attempts_and_durations(void **state) {
    (void)state;
    const char *profiles[] = {"default-scheduler", "gpu"};
    ms_metrics *m = ms_metrics_new(profiles, 2);
    assert_non_null(m);
    ms_metrics_attempt(m, 0, MS_ATTEMPT_SCHEDULED, 0.0005);    /* le 0.001 */
    ms_metrics_attempt(m, 0, MS_ATTEMPT_SCHEDULED, 0.003);     /* le 0.004 */
    ms_metrics_attempt(m, 0, MS_ATTEMPT_SCHEDULED, 0.004);     /* bounds are inclusive */
    ms_metrics_attempt(m, 1, MS_ATTEMPT_UNSCHEDULABLE, 20);    /* past the last bound */
    ms_metrics_attempt(m, 1, MS_ATTEMPT_ERROR, -1);            /* counted, not timed */
    ms_metrics_attempt(m, 7, MS_ATTEMPT_ERROR, -1);            /* unknown profile: the first */
    char *t = render(m);
    assert_true(tu_series(t, "scheduler_schedule_attempts_total{profile=\"default-scheduler\",result=\"scheduled\"}") == 3);
    assert_true(tu_series(t, "scheduler_schedule_attempts_total{profile=\"default-scheduler\",result=\"error\"}") == 1);
    assert_true(tu_series(t, "scheduler_schedule_attempts_total{profile=\"gpu\",result=\"unschedulable\"}") == 1);
    assert_true(tu_series(t, "scheduler_schedule_attempts_total{profile=\"gpu\",result=\"error\"}") == 1);
    assert_true(tu_series(t, "scheduler_schedule_attempts_total{profile=\"gpu\",result=\"scheduled\"}") == 0);
    /* cumulative buckets, upstream's ExponentialBuckets(0.001, 2, 15) */
    const char *h = "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"default-scheduler\",result=\"scheduled\",le=";
    char key[256];
    static const struct {
        const char *le;
        double want;
    } b[] = {{"0.001", 1}, {"0.002", 1}, {"0.004", 3}, {"16.384", 3}, {"+Inf", 3}};
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++) {
        snprintf(key, sizeof key, "%s\"%s\"}", h, b[i].le);
        assert_true(tu_series(t, key) == b[i].want);
    }
    assert_true(fabs(tu_series(t, "scheduler_scheduling_attempt_duration_seconds_sum{profile=\"default-scheduler\",result=\"scheduled\"}") - 0.0075) < 1e-9);
    assert_true(tu_series(t, "scheduler_scheduling_attempt_duration_seconds_count{profile=\"default-scheduler\",result=\"scheduled\"}") == 3);
    assert_true(tu_series(t, "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"gpu\",result=\"unschedulable\",le=\"16.384\"}") == 0);
    assert_true(tu_series(t, "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"gpu\",result=\"unschedulable\",le=\"+Inf\"}") == 1);
    assert_true(tu_series(t, "scheduler_scheduling_attempt_duration_seconds_count{profile=\"gpu\",result=\"error\"}") == 0);
    /* removed upstream in 1.23: not served */
    assert_null(strstr(t, "scheduler_e2e_scheduling_duration_seconds"));
    /* each family announced once, with its type */
    assert_non_null(strstr(t, "# TYPE scheduler_schedule_attempts_total counter\n"));
    assert_non_null(strstr(t, "# TYPE scheduler_scheduling_attempt_duration_seconds histogram\n"));
    assert_null(strstr(strstr(t, "# TYPE scheduler_schedule_attempts_total") + 1, "# TYPE scheduler_schedule_attempts_total"));
    free(t);
    ms_metrics_free(m);
}

static void test_queue_preemption_bindings(void **state) {
    (void)state;
    const char *profiles[] = {"default-scheduler"};
    ms_metrics *m = ms_metrics_new(profiles, 1);
    ms_metrics_set_pending(m, 3, 2, 7, 9);
    ms_metrics_set_pending(m, 4, 0, 1, 2);   /* gauges: the last value */
    ms_metrics_preemption(m, 0);          /* no candidate */
    ms_metrics_preemption(m, 2);
    ms_metrics_preemption(m, 12);
    ms_metrics_pod_scheduled(m, 1);
    ms_metrics_pod_scheduled(m, 3);
    ms_metrics_pod_scheduled(m, 40);
    ms_metrics_binding(m, MS_BIND_OK);
    ms_metrics_binding(m, MS_BIND_OK);
    ms_metrics_binding(m, MS_BIND_GONE);
    ms_metrics_binding(m, MS_BIND_CONFLICT);
    ms_metrics_binding(m, MS_BIND_CONFLICT);
    ms_metrics_bind_conflict(m, MS_BIND_CONFLICT_ALREADY_BOUND);
    ms_metrics_bind_conflict(m, MS_BIND_CONFLICT_GATED);
    char *t = render(m);
    assert_true(tu_series(t, "scheduler_pending_pods{queue=\"active\"}") == 4);
    assert_true(tu_series(t, "scheduler_pending_pods{queue=\"backoff\"}") == 0);
    assert_true(tu_series(t, "scheduler_pending_pods{queue=\"unschedulable\"}") == 1);
    assert_true(tu_series(t, "scheduler_pending_pods{queue=\"gated\"}") == 2);
    assert_true(tu_series(t, "scheduler_preemption_attempts_total") == 3);
    /* ExponentialBuckets(1, 2, 7) */
    assert_true(tu_series(t, "scheduler_preemption_victims_bucket{le=\"1\"}") == 0);
    assert_true(tu_series(t, "scheduler_preemption_victims_bucket{le=\"2\"}") == 1);
    assert_true(tu_series(t, "scheduler_preemption_victims_bucket{le=\"8\"}") == 1);
    assert_true(tu_series(t, "scheduler_preemption_victims_bucket{le=\"16\"}") == 2);
    assert_true(tu_series(t, "scheduler_preemption_victims_bucket{le=\"64\"}") == 2);
    assert_null(strstr(t, "scheduler_preemption_victims_bucket{le=\"5\"}"));
    assert_true(tu_series(t, "scheduler_preemption_victims_count") == 2);
    assert_true(tu_series(t, "scheduler_preemption_victims_sum") == 14);
    /* ExponentialBuckets(1, 2, 5) */
    assert_true(tu_series(t, "scheduler_pod_scheduling_attempts_bucket{le=\"1\"}") == 1);
    assert_true(tu_series(t, "scheduler_pod_scheduling_attempts_bucket{le=\"2\"}") == 1);
    assert_true(tu_series(t, "scheduler_pod_scheduling_attempts_bucket{le=\"4\"}") == 2);
    assert_true(tu_series(t, "scheduler_pod_scheduling_attempts_bucket{le=\"16\"}") == 2);
    assert_true(tu_series(t, "scheduler_pod_scheduling_attempts_bucket{le=\"+Inf\"}") == 3);
    assert_true(tu_series(t, "moonsched_bindings_total{result=\"ok\"}") == 2);
    assert_true(tu_series(t, "moonsched_bindings_total{result=\"failed\"}") == 0);
    assert_true(tu_series(t, "moonsched_bindings_total{result=\"gone\"}") == 1);
    assert_true(tu_series(t, "moonsched_bindings_total{result=\"conflict\"}") == 2);
    /* every reason has its series, counted or not */
    assert_true(tu_series(t, "moonsched_binding_conflicts_total{reason=\"already_bound\"}") == 1);
    assert_true(tu_series(t, "moonsched_binding_conflicts_total{reason=\"gated\"}") == 1);
    assert_true(tu_series(t, "moonsched_binding_conflicts_total{reason=\"uid_changed\"}") == 0);
    assert_true(tu_series(t, "moonsched_binding_conflicts_total{reason=\"being_deleted\"}") == 0);
    assert_true(tu_series(t, "moonsched_binding_conflicts_total{reason=\"other\"}") == 0);
    assert_non_null(strstr(t, "moonsched_binding_conflicts_total{reason=\"other\"} 0\n"));
    free(t);
    ms_metrics_free(m);
}

static void test_goroutines_and_scheduler_text(void **state) {
    (void)state;
    const char *profiles[] = {"a\"b\\c"};
    ms_metrics *m = ms_metrics_new(profiles, 1);
    ms_metrics_set_binds_in_flight(m, 5);
    char *text = strdup("scheduler_scheduler_cache_size{type=\"nodes\"} 3\n");
    ms_metrics_set_scheduler_text(m, text, strlen(text));
    char *t = render(m);
    assert_true(tu_series(t, "scheduler_goroutines{operation=\"binding\"}") == 5);
    /* profile names escaped */
    assert_true(tu_series(t, "scheduler_schedule_attempts_total{profile=\"a\\\"b\\\\c\",result=\"error\"}") == 0);
    /* the scheduler thread's text goes out as handed over */
    assert_true(tu_series(t, "scheduler_scheduler_cache_size{type=\"nodes\"}") == 3);
    free(t);
    ms_metrics_set_scheduler_text(m, NULL, 0);
    t = render(m);
    assert_null(strstr(t, "scheduler_scheduler_cache_size"));
    free(t);
    ms_metrics_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_attempts_and_durations),
        cmocka_unit_test(test_queue_preemption_bindings),
        cmocka_unit_test(test_goroutines_and_scheduler_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
