/* The descheduler's metrics: upstream's names and labels, cumulative
 * buckets, label values escaped. */
#include "testutil.h"

#include "descheduler/metrics.h"
#include "metrics_golden.h"
#include "metrics_states.h"

static bool has_line(const char *text, const char *line) {
    size_t n = strlen(line);
    for (const char *p = text; (p = strstr(p, line)); p += n)
        if ((p == text || p[-1] == '\n') && (p[n] == '\n' || !p[n])) return true;
    return false;
}

static void test_render(void **state) {
    (void)state;
    ms_desched_metrics *m = ms_desched_metrics_new();
    ms_leader_metrics *leader = ms_leader_metrics_new();
    assert_non_null(m);
    ms_desched_metrics_evicted(m, "success", "LowNodeUtilization", "p", "default", "n1");
    ms_desched_metrics_evicted(m, "success", "LowNodeUtilization", "p", "default", "n1");
    ms_desched_metrics_evicted(m, "error", "PodLifeTime", "p", "we\"ird", "n2");
    ms_desched_metrics_loop(m, 0.02);
    ms_desched_metrics_loop(m, 700);
    ms_desched_metrics_strategy(m, "PodLifeTime", "p", 0.3);
    size_t len = 0;
    ms_desched_metrics_reload(m, "DeschedulerPolicy", false);
    ms_desched_metrics_reload(m, "DeschedulerPolicy", true);
    ms_desched_metrics_reload(m, "DeschedulerPolicy", true);
    ms_desched_metrics_reload(m, "lua:spread", false);
    char *text = metrics_render_desched(m, leader, &len);
    assert_non_null(text);
    assert_int_equal(strlen(text), len);
    assert_true(has_line(text, "# TYPE descheduler_pods_evicted_total counter"));
    assert_true(has_line(text, "descheduler_pods_evicted_total{namespace=\"default\",node=\"n1\",profile=\"p\","
                               "result=\"success\",strategy=\"LowNodeUtilization\"} 2"));
    assert_true(has_line(text, "descheduler_pods_evicted_total{namespace=\"we\\\"ird\",node=\"n2\",profile=\"p\","
                               "result=\"error\",strategy=\"PodLifeTime\"} 1"));
    assert_true(has_line(text, "descheduler_loop_duration_seconds_bucket{le=\"0.01\"} 0"));
    assert_true(has_line(text, "descheduler_loop_duration_seconds_bucket{le=\"0.025\"} 1"));
    assert_true(has_line(text, "descheduler_loop_duration_seconds_bucket{le=\"500\"} 1"));
    assert_true(has_line(text, "descheduler_loop_duration_seconds_bucket{le=\"+Inf\"} 2"));
    assert_true(has_line(text, "descheduler_loop_duration_seconds_count 2"));
    assert_true(has_line(text, "descheduler_strategy_duration_seconds_bucket{profile=\"p\",strategy=\"PodLifeTime\","
                               "le=\"0.25\"} 0"));
    assert_true(has_line(text, "descheduler_strategy_duration_seconds_bucket{profile=\"p\",strategy=\"PodLifeTime\","
                               "le=\"0.5\"} 1"));
    assert_null(strstr(text, "leader_election_master_status"));
    assert_true(has_line(text, "moonsched_policy_reloads_total{plugin=\"DeschedulerPolicy\",profile=\"\","
                               "result=\"ok\"} 2"));
    assert_true(has_line(text, "moonsched_policy_reloads_total{plugin=\"DeschedulerPolicy\",profile=\"\","
                               "result=\"refused\"} 1"));
    /* a --policy file's own series, both results shown */
    assert_true(has_line(text, "moonsched_policy_reloads_total{plugin=\"lua:spread\",profile=\"\",result=\"ok\"} 0"));
    assert_true(has_line(text, "moonsched_policy_reloads_total{plugin=\"lua:spread\",profile=\"\","
                               "result=\"refused\"} 1"));
    free(text);
    ms_leader_metrics_changed(leader, "descheduler", true);
    text = metrics_render_desched(m, leader, &len);
    assert_true(has_line(text, "leader_election_master_status{name=\"descheduler\"} 1"));
    free(text);
    ms_desched_metrics_free(m);
    ms_leader_metrics_free(leader);
}

/* The whole exposition, byte for byte, before and after every family
 * has series. */
static void test_exposition_golden(void **state) {
    (void)state;
    ms_desched_metrics *m = ms_desched_metrics_new();
    ms_leader_metrics *leader = ms_leader_metrics_new();
    size_t len = 0;
    char *t = metrics_render_desched(m, leader, &len);
    assert_string_equal(t, golden_desched_empty);
    free(t);
    metrics_fill_desched(m, leader);
    t = metrics_render_desched(m, leader, &len);
    assert_string_equal(t, golden_desched);
    free(t);
    ms_desched_metrics_free(m);
    ms_leader_metrics_free(leader);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_render),
        cmocka_unit_test(test_exposition_golden),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
