/* `run`'s API requests and Events: codes in order, the events' totals. */
#include "testutil.h"

#include "metrics_states.h"

static void test_requests_and_events(void **state) {
    (void)state;
    ms_api_metrics *m = ms_api_metrics_new();
    assert_non_null(m);
    ms_api_metrics_request(m, 409);
    ms_api_metrics_request(m, 201);
    ms_api_metrics_answered(m, 201);
    ms_api_metrics_request(m, 0);
    ms_api_metrics_request(NULL, 500);   /* no set: not counted */
    ms_api_metrics_events(m, 5, 1, 9);
    size_t len;
    char *t = metrics_render_one(ms_api_metrics_collect, m, &len);
    assert_non_null(t);
    assert_true(tu_series(t, "moonsched_api_requests_total{code=\"201\"}") == 2);
    assert_true(tu_series(t, "moonsched_api_requests_total{code=\"409\"}") == 1);
    assert_true(tu_series(t, "moonsched_api_requests_total{code=\"0\"}") == 1);
    /* codes in increasing order */
    assert_true(strstr(t, "code=\"0\"") < strstr(t, "code=\"201\"") &&
                strstr(t, "code=\"201\"") < strstr(t, "code=\"409\""));
    assert_true(tu_series(t, "moonsched_events_total{result=\"suppressed\"}") == 9);
    assert_true(tu_series(t, "moonsched_api_requests_total{code=\"500\"}") == -1);
    free(t);
    ms_api_metrics_free(m);
}

/* Past the 24 codes kept, the rest are counted under "other". */
static void test_codes_past_the_limit(void **state) {
    (void)state;
    ms_api_metrics *m = ms_api_metrics_new();
    for (long c = 400; c < 430; c++) ms_api_metrics_request(m, c);
    size_t len;
    char *t = metrics_render_one(ms_api_metrics_collect, m, &len);
    assert_true(tu_series(t, "moonsched_api_requests_total{code=\"423\"}") == 1);
    assert_true(tu_series(t, "moonsched_api_requests_total{code=\"424\"}") == -1);
    assert_true(tu_series(t, "moonsched_api_requests_total{code=\"other\"}") == 6);
    free(t);
    ms_api_metrics_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_requests_and_events),
        cmocka_unit_test(test_codes_past_the_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
