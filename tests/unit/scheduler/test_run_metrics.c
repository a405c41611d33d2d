/* `run`'s metric set: upstream's names, labels and buckets, escaping,
 * and its whole exposition byte for byte (tests/unit/metrics_golden.h). */
#include "testutil.h"

#include <math.h>

#include "scheduler/run_metrics.h"
#include "metrics_golden.h"
#include "metrics_states.h"

static char *render(ms_metrics *m) {
    size_t len = 0;
    char *t = metrics_render_run(m, &len);
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

static void test_queue_preemption_bindings_api(void **state) {
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
    ms_metrics_api_request(m, 409);
    ms_metrics_api_request(m, 201);
    ms_metrics_api_request(m, 201);
    ms_metrics_api_request(m, 0);
    ms_metrics_events(m, 5, 1, 9);
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
    assert_true(tu_series(t, "moonsched_api_requests_total{code=\"201\"}") == 2);
    assert_true(tu_series(t, "moonsched_api_requests_total{code=\"409\"}") == 1);
    assert_true(tu_series(t, "moonsched_api_requests_total{code=\"0\"}") == 1);
    /* codes in increasing order */
    assert_true(strstr(t, "code=\"0\"") < strstr(t, "code=\"201\"") &&
                strstr(t, "code=\"201\"") < strstr(t, "code=\"409\""));
    assert_true(tu_series(t, "moonsched_events_total{result=\"suppressed\"}") == 9);
    free(t);
    ms_metrics_free(m);
}

static void test_shadow_decisions(void **state) {
    (void)state;
    ms_metrics *m = ms_metrics_new(NULL, 0);
    char *t = render(m);
    assert_null(strstr(t, "moonsched_shadow_decisions_total"));   /* no shadow policy: no family */
    free(t);
    ms_metrics_shadow sh[1] = {
        {.profile = "default-scheduler", .policy = "lua:next", .agree = 7, .disagree = 3, .skipped = 5}};
    ms_metrics_set_shadows(m, sh, 1);
    t = render(m);
    assert_true(tu_series(t, "moonsched_shadow_decisions_total{policy=\"lua:next\",profile=\"default-scheduler\",agree=\"true\"}") == 7);
    assert_true(tu_series(t, "moonsched_shadow_decisions_total{policy=\"lua:next\",profile=\"default-scheduler\",agree=\"false\"}") == 3);
    assert_non_null(strstr(t, "# TYPE moonsched_shadow_decisions_total counter\n"));
    /* cycles sat out while disabled: their own family, not decisions */
    assert_true(tu_series(t, "moonsched_shadow_skipped_total{policy=\"lua:next\",profile=\"default-scheduler\"}") == 5);
    free(t);
    ms_metrics_free(m);
}

static void test_policies_and_escaping(void **state) {
    (void)state;
    const char *profiles[] = {"a\"b\\c"};
    ms_metrics *m = ms_metrics_new(profiles, 1);
    ms_metrics_policy p[2] = {
        {.profile = "default-scheduler", .plugin = "lua:gpu", .disabled = true, .calls = 10, .failures = 4,
         .budget_kills = 1, .reloads_ok = 2, .reloads_failed = 1},
        {.profile = "default-scheduler", .plugin = "lua:zone", .calls = 3},
    };
    ms_metrics_set_policies(m, p, 2);
    char *t = render(m);
    assert_true(tu_series(t, "moonsched_policy_reloads_total{plugin=\"lua:gpu\",profile=\"default-scheduler\",result=\"ok\"}") == 2);
    assert_true(tu_series(t, "moonsched_policy_reloads_total{plugin=\"lua:gpu\",profile=\"default-scheduler\",result=\"refused\"}") == 1);
    assert_true(tu_series(t, "moonsched_policy_call_failures_total{plugin=\"lua:gpu\",profile=\"default-scheduler\"}") == 4);
    assert_true(tu_series(t, "moonsched_policy_budget_kills_total{plugin=\"lua:gpu\",profile=\"default-scheduler\"}") == 1);
    assert_true(tu_series(t, "moonsched_policy_calls_total{plugin=\"lua:zone\",profile=\"default-scheduler\"}") == 3);
    assert_true(tu_series(t, "moonsched_policy_disabled{plugin=\"lua:gpu\",profile=\"default-scheduler\"}") == 1);
    assert_true(tu_series(t, "moonsched_policy_disabled{plugin=\"lua:zone\",profile=\"default-scheduler\"}") == 0);
    assert_true(tu_series(t, "scheduler_schedule_attempts_total{profile=\"a\\\"b\\\\c\",result=\"error\"}") == 0);
    free(t);
    /* a reload that removes a policy: its series go */
    ms_metrics_set_policies(m, p + 1, 1);
    t = render(m);
    assert_true(tu_series(t, "moonsched_policy_disabled{plugin=\"lua:gpu\",profile=\"default-scheduler\"}") == -1);
    assert_true(tu_series(t, "moonsched_policy_disabled{plugin=\"lua:zone\",profile=\"default-scheduler\"}") == 0);
    free(t);
    ms_metrics_free(m);
}

static void test_leader_election_gauge(void **state) {
    (void)state;
    ms_metrics *m = ms_metrics_new(NULL, 0);
    char *t = render(m);
    /* no election: no series, as upstream registers it with the elector */
    assert_null(strstr(t, "leader_election_master_status"));
    free(t);
    ms_metrics_set_leader(m, "kube-scheduler", false);
    t = render(m);
    assert_non_null(strstr(t, "# TYPE leader_election_master_status gauge\n"));
    assert_true(tu_series(t, "leader_election_master_status{name=\"kube-scheduler\"}") == 0);
    free(t);
    ms_metrics_set_leader(m, "kube-scheduler", true);
    t = render(m);
    assert_true(tu_series(t, "leader_election_master_status{name=\"kube-scheduler\"}") == 1);
    free(t);
    ms_metrics_set_leader(m, "a\"b", false);
    t = render(m);
    assert_true(tu_series(t, "leader_election_master_status{name=\"a\\\"b\"}") == 0);
    free(t);
    ms_metrics_free(m);
}

static void test_rest_client_goroutines_process(void **state) {
    (void)state;
    const char *profiles[] = {"default-scheduler"};
    ms_metrics *m = ms_metrics_new(profiles, 1);
    ms_metrics_set_rest_host(m, "https://127.0.0.1:6443/prefix");
    ms_metrics_rest_request(m, "POST", 201, 0.003);
    ms_metrics_rest_request(m, "POST", 201, 0.2);
    ms_metrics_rest_request(m, "GET", 0, 1.5);
    ms_metrics_rest_request(m, "GET", 200, -1);   /* a watch: counted, no latency */
    ms_metrics_rest_request(m, "PROPFIND", 405, 0.01);
    ms_metrics_set_binds_in_flight(m, 5);
    char *text = strdup("scheduler_scheduler_cache_size{type=\"nodes\"} 3\n");
    ms_metrics_set_scheduler_text(m, text, strlen(text));
    char *t = render(m);
    assert_true(tu_series(t, "rest_client_requests_total{code=\"201\",host=\"127.0.0.1:6443\",method=\"POST\"}") == 2);
    assert_true(tu_series(t, "rest_client_requests_total{code=\"<error>\",host=\"127.0.0.1:6443\",method=\"GET\"}") == 1);
    assert_true(tu_series(t, "rest_client_requests_total{code=\"200\",host=\"127.0.0.1:6443\",method=\"GET\"}") == 1);
    assert_true(tu_series(t, "rest_client_requests_total{code=\"405\",host=\"127.0.0.1:6443\",method=\"other\"}") == 1);
    assert_true(tu_series(t, "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"POST\",le=\"0.005\"}") == 1);
    assert_true(tu_series(t, "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"POST\",le=\"0.25\"}") == 2);
    assert_true(tu_series(t, "rest_client_request_duration_seconds_count{host=\"127.0.0.1:6443\",verb=\"GET\"}") == 1);
    assert_true(tu_series(t, "scheduler_goroutines{operation=\"binding\"}") == 5);
    /* the scheduler thread's text goes out as handed over */
    assert_true(tu_series(t, "scheduler_scheduler_cache_size{type=\"nodes\"}") == 3);
    /* the process collector's families, from /proc */
    assert_true(tu_series(t, "process_cpu_seconds_total") >= 0);
    assert_true(tu_series(t, "process_resident_memory_bytes") > 0);
    assert_true(tu_series(t, "process_virtual_memory_bytes") > 0);
    assert_true(tu_series(t, "process_open_fds") > 0);
    assert_true(tu_series(t, "process_max_fds") > 0);
    assert_true(tu_series(t, "process_start_time_seconds") > 1.5e9);
    assert_true(tu_series(t, "moonsched_threads") >= 1);
    free(t);
    ms_metrics_set_scheduler_text(m, NULL, 0);
    t = render(m);
    assert_null(strstr(t, "scheduler_scheduler_cache_size"));
    free(t);
    ms_metrics_free(m);
}

/* The heap gauges follow what the process holds: a block allocated and
 * touched shows in use, and leaves it when freed. (Under ASan its own
 * allocator serves malloc, and its mallinfo2 answers zeros.) */
static void test_heap_gauges(void **state) {
    (void)state;
    ms_metrics *m = ms_metrics_new(NULL, 0);
    char *t = render(m);
    double used0 = tu_series(t, "moonsched_heap_inuse_bytes");
    assert_true(used0 >= 0);
    assert_true(tu_series(t, "moonsched_heap_free_bytes") >= 0);
    free(t);
#ifndef __SANITIZE_ADDRESS__
    assert_true(used0 > 0);
    size_t big = (size_t)8 << 20;
    char *block = malloc(big);
    assert_non_null(block);
    /* (through a volatile pointer: the block must not be optimized away) */
    void *(*volatile fill)(void *, int, size_t) = memset;
    fill(block, 1, big);
    t = render(m);
    double used1 = tu_series(t, "moonsched_heap_inuse_bytes");
    free(t);
    free(block);
    t = render(m);
    double used2 = tu_series(t, "moonsched_heap_inuse_bytes");
    free(t);
    assert_true(used1 - used0 >= (double)big);
    assert_true(used1 - used2 >= (double)big);
#endif
    ms_metrics_free(m);
}

/* The whole exposition, byte for byte, in a state that sets every
 * family, and with nothing recorded. */
static void test_exposition_golden(void **state) {
    (void)state;
    const char *profiles[] = {"default-scheduler", "gpu"};
    ms_metrics *m = ms_metrics_new(profiles, 2);
    metrics_fill_run(m);
    char *t = render(m), *n = metrics_without_process_figures(t);
    assert_string_equal(n, golden_run);
    free(n);
    free(t);
    ms_metrics_free(m);
    m = ms_metrics_new(NULL, 0);
    t = render(m);
    n = metrics_without_process_figures(t);
    assert_string_equal(n, golden_run_empty);
    free(n);
    free(t);
    ms_metrics_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_attempts_and_durations),
        cmocka_unit_test(test_queue_preemption_bindings_api),
        cmocka_unit_test(test_policies_and_escaping),
        cmocka_unit_test(test_shadow_decisions),
        cmocka_unit_test(test_leader_election_gauge),
        cmocka_unit_test(test_rest_client_goroutines_process),
        cmocka_unit_test(test_heap_gauges),
        cmocka_unit_test(test_exposition_golden),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
