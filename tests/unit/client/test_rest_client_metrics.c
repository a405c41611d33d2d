/* client-go's rest_client_* families: the host from the server URL, codes
 * per method (no answer: "<error>"), latencies per verb, streams counted
 * without a latency. */
#include "testutil.h"

#include "metrics_states.h"

static void test_requests_and_latencies(void **state) {
    (void)state;
    ms_rest_client_metrics *m = ms_rest_client_metrics_new();
    assert_non_null(m);
    ms_rest_client_metrics_set_host(m, "https://127.0.0.1:6443/prefix");
    ms_rest_client_metrics_observe(m, "POST", 201, 0.003);
    ms_rest_client_metrics_observe(m, "POST", 201, 0.2);
    ms_rest_client_metrics_observe(m, "GET", 0, 1.5);
    ms_rest_client_metrics_observe(m, "GET", 200, -1);   /* a watch: counted, no latency */
    ms_rest_client_metrics_observe(m, "PROPFIND", 405, 0.01);
    size_t len;
    char *t = metrics_render_one(ms_rest_client_metrics_collect, m, &len);
    assert_non_null(t);
    assert_true(tu_series(t, "rest_client_requests_total{code=\"201\",host=\"127.0.0.1:6443\",method=\"POST\"}") == 2);
    assert_true(tu_series(t, "rest_client_requests_total{code=\"<error>\",host=\"127.0.0.1:6443\",method=\"GET\"}") == 1);
    assert_true(tu_series(t, "rest_client_requests_total{code=\"200\",host=\"127.0.0.1:6443\",method=\"GET\"}") == 1);
    assert_true(tu_series(t, "rest_client_requests_total{code=\"405\",host=\"127.0.0.1:6443\",method=\"other\"}") == 1);
    assert_true(tu_series(t, "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"POST\",le=\"0.005\"}") == 1);
    assert_true(tu_series(t, "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"POST\",le=\"0.25\"}") == 2);
    assert_true(tu_series(t, "rest_client_request_duration_seconds_count{host=\"127.0.0.1:6443\",verb=\"GET\"}") == 1);
    /* a verb with no latency has no histogram */
    assert_null(strstr(t, "verb=\"PUT\""));
    free(t);
    ms_rest_client_metrics_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_requests_and_latencies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
