/* The metrics the scheduler thread records and renders
 * (scheduler/scheduler_metrics.h, framework/metrics_recorder.h). */
#include "scheduler_env.h"

#include "base/buf.h"
#include "scheduler/scheduler_metrics.h"

static char *render(env *e) {
    ms_buf b = {0};
    ms_scheduler_render_metrics(e->s, &b);
    assert_false(b.failed);
    return ms_buf_take(&b);
}

#define EP "scheduler_framework_extension_point_duration_seconds_count"
#define PROFILE "profile=\"default-scheduler\""

static void test_cycle_metrics(void **state) {
    (void)state;
    env *e = env_new_opts(0, 1, false, basic_plugins, true);
    e->complete_at_once = true;
    add_node(e, "a", "4", "{\"half\":\"no\"}", NULL);
    add_node(e, "b", "4", NULL, NULL);
    add_node(e, "c", "4", NULL, NULL);
    add_pod(e, "web", "1", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 10));   /* the first cycle is sampled */
    assert_int_equal(e->nscheduled, 1);
    add_pod(e, "big", "16", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 11));
    assert_int_equal(e->nunschedulable, 1);
    char *t = render(e);

    /* every cycle: one observation per extension point, by its outcome */
    assert_true(tu_series(t, EP "{extension_point=\"PreFilter\"," PROFILE ",status=\"Success\"}") == 2);
    assert_true(tu_series(t, EP "{extension_point=\"Filter\"," PROFILE ",status=\"Success\"}") == 1);
    assert_true(tu_series(t, EP "{extension_point=\"Filter\"," PROFILE ",status=\"Unschedulable\"}") == 1);
    assert_true(tu_series(t, EP "{extension_point=\"Score\"," PROFILE ",status=\"Success\"}") == 1);
    assert_true(tu_series(t, EP "{extension_point=\"Reserve\"," PROFILE ",status=\"Success\"}") == 1);
    assert_true(tu_series(t, EP "{extension_point=\"PostFilter\"," PROFILE ",status=\"Unschedulable\"}") == 1);
    /* plugin calls per node: web passed TestFit on 3 nodes and TestHalf
     * turned node a down; big was turned down by TestFit everywhere */
    const char *ev = "scheduler_plugin_evaluation_total{extension_point=\"Filter\",plugin=\"%s\"," PROFILE "}";
    char key[256];
    snprintf(key, sizeof key, ev, "TestFit");
    assert_true(tu_series(t, key) == 6);
    snprintf(key, sizeof key, ev, "TestHalf");
    assert_true(tu_series(t, key) == 3);
    snprintf(key, sizeof key, ev, "TestScore");
    assert_true(tu_series(t, key) == -1);   /* not a Filter plugin */
    assert_true(tu_series(t, "scheduler_plugin_evaluation_total{extension_point=\"Score\",plugin=\"TestScore\"," PROFILE
                          "}") == 1);
    /* plugin durations from the sampled cycle only (web's): no profile label */
    assert_true(tu_series(t, "scheduler_plugin_execution_duration_seconds_count{extension_point=\"Filter\","
                          "plugin=\"TestFit\",status=\"Success\"}") == 3);
    assert_true(tu_series(t, "scheduler_plugin_execution_duration_seconds_count{extension_point=\"Filter\","
                          "plugin=\"TestHalf\",status=\"Unschedulable\"}") == 1);
    assert_null(strstr(t, "plugin_execution_duration_seconds_count{extension_point=\"Filter\",plugin=\"TestFit\","
                          "status=\"Unschedulable\"}"));
    assert_non_null(strstr(t, "scheduler_plugin_execution_duration_seconds_bucket{extension_point=\"Filter\","
                              "plugin=\"TestFit\",status=\"Success\",le=\"1e-05\"}"));
    /* bound at its first attempt; the algorithm timed once (web) */
    assert_true(tu_series(t, "scheduler_pod_scheduling_sli_duration_seconds_count{attempts=\"1\"}") == 1);
    assert_true(tu_series(t, "scheduler_scheduling_algorithm_duration_seconds_count") == 1);
    assert_true(tu_series(t, "scheduler_scheduler_cache_size{type=\"nodes\"}") == 3);
    assert_true(tu_series(t, "scheduler_scheduler_cache_size{type=\"pods\"}") == 1);
    assert_true(tu_series(t, "scheduler_scheduler_cache_size{type=\"assumed_pods\"}") == 1);
    /* big waits among the unschedulable pods, for TestFit */
    assert_true(tu_series(t, "scheduler_unschedulable_pods{plugin=\"TestFit\"," PROFILE "}") == 1);
    assert_true(tu_series(t, "scheduler_unschedulable_pods{plugin=\"TestHalf\"," PROFILE "}") == -1);
    assert_true(tu_series(t, "scheduler_queue_incoming_pods_total{event=\"PodAdd\",queue=\"active\"}") == 2);
    assert_true(tu_series(t, "scheduler_queue_incoming_pods_total{event=\"ScheduleAttemptFailure\","
                          "queue=\"unschedulable\"}") == 1);
    free(t);

    /* a node added moves big: counted under the cluster event */
    add_node(e, "d", "32", NULL, NULL);
    t = render(e);
    assert_true(tu_series(t, "scheduler_queue_incoming_pods_total{event=\"NodeAdd\",queue=\"backoff\"}") +
                    tu_series(t, "scheduler_queue_incoming_pods_total{event=\"NodeAdd\",queue=\"active\"}") ==
                0);   /* -1 + 1: in exactly one of the two */
    assert_true(tu_series(t, "scheduler_unschedulable_pods{plugin=\"TestFit\"," PROFILE "}") == -1);
    /* every delta handled, by upstream's event label */
    assert_true(tu_series(t, "scheduler_event_handling_duration_seconds_count{event=\"NodeAdd\"}") == 4);
    assert_true(tu_series(t, "scheduler_event_handling_duration_seconds_count{event=\"UnscheduledPodAdd\"}") == 2);
    free(t);
    env_free(e);
}

/* A pod Permit made wait until its timeout: one wait, rejected. */
static void test_permit_wait(void **state) {
    (void)state;
    env *e = env_new_opts(0, 1, false, basic_plugins, true);
    add_node(e, "a", "4", NULL, NULL);
    add_pod(e, "wait-1", "1", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 100));
    ms_scheduler_tick(e->s, 106);
    char *t = render(e);
    assert_true(tu_series(t, "scheduler_permit_wait_duration_seconds_count{result=\"Unschedulable\"}") == 1);
    assert_true(tu_series(t, "scheduler_permit_wait_duration_seconds_sum{result=\"Unschedulable\"}") == 6);
    assert_true(tu_series(t, "scheduler_permit_wait_duration_seconds_bucket{result=\"Unschedulable\",le=\"4.096\"}") == 0);
    assert_true(tu_series(t, "scheduler_permit_wait_duration_seconds_bucket{result=\"Unschedulable\",le=\"8.192\"}") == 1);
    assert_true(tu_series(t, EP "{extension_point=\"Permit\"," PROFILE ",status=\"Wait\"}") == 1);
    free(t);
    env_free(e);
}

/* Ten cycles, one sampled: the plugin histograms see one cycle's calls. */
static void test_plugin_sampling(void **state) {
    (void)state;
    env *e = env_new_opts(0, 1, false, basic_plugins, true);
    e->complete_at_once = true;
    add_node(e, "a", "64", NULL, NULL);
    for (int i = 0; i < 20; i++) {
        char name[16];
        snprintf(name, sizeof name, "p%d", i);
        add_pod(e, name, "1", NULL);
        assert_true(ms_scheduler_schedule_one(e->s, i));
    }
    char *t = render(e);
    assert_true(tu_series(t, EP "{extension_point=\"PreFilter\"," PROFILE ",status=\"Success\"}") == 20);
    assert_true(tu_series(t, "scheduler_plugin_execution_duration_seconds_count{extension_point=\"Filter\","
                          "plugin=\"TestFit\",status=\"Success\"}") == 2);
    assert_true(tu_series(t, "scheduler_plugin_evaluation_total{extension_point=\"Filter\",plugin=\"TestFit\"," PROFILE
                          "}") == 20);
    free(t);
    env_free(e);
}

/* A sampled cycle times the Filter calls on its first 32 nodes only;
 * evaluations count every node. */
static void test_filter_timing_bounded(void **state) {
    (void)state;
    env *e = env_new_opts(100, 1, false, basic_plugins, true);
    e->complete_at_once = true;
    for (int i = 0; i < 40; i++) {
        char name[16];
        snprintf(name, sizeof name, "n%02d", i);
        add_node(e, name, "4", NULL, NULL);
    }
    add_pod(e, "web", "1", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    char *t = render(e);
    assert_true(tu_series(t, "scheduler_plugin_execution_duration_seconds_count{extension_point=\"Filter\","
                             "plugin=\"TestFit\",status=\"Success\"}") == 32);
    assert_true(tu_series(t, "scheduler_plugin_evaluation_total{extension_point=\"Filter\",plugin=\"TestFit\"," PROFILE
                             "}") == 40);
    /* the rest of the cycle is still sampled */
    assert_true(tu_series(t, "scheduler_plugin_execution_duration_seconds_count{extension_point=\"Score\","
                             "plugin=\"TestScore\",status=\"Success\"}") == 1);
    free(t);
    env_free(e);
}

static void test_off_renders_nothing(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    add_node(e, "a", "4", NULL, NULL);
    add_pod(e, "web", "1", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    char *t = render(e);
    assert_string_equal(t, "");
    free(t);
    env_free(e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cycle_metrics),
        cmocka_unit_test(test_plugin_sampling),
        cmocka_unit_test(test_permit_wait),
        cmocka_unit_test(test_filter_timing_bounded),
        cmocka_unit_test(test_off_renders_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
