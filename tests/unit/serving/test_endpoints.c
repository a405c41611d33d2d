/* The metrics port's answers: health, readiness, /configz, and /metrics
 * as the registry renders it; `deschedule`'s answers. */
#include "testutil.h"

#include <curl/curl.h>

#include "base/clock.h"
#include "descheduler/metrics.h"
#include "serving/endpoints.h"
#include "scheduler/run_metrics.h"

static void test_configz(void **state) {
    (void)state;
    ms_metrics_registry *r = ms_metrics_registry_new();
    ms_endpoints *m = ms_endpoints_new(r);
    ms_http_answer a = {0};
    ms_endpoints_serve(m, "/configz", &a);
    assert_int_equal(a.status, 404);   /* not set yet */
    free(a.body);
    const char *doc = "{\"componentconfig\":{\"kind\":\"KubeSchedulerConfiguration\"}}";
    assert_true(ms_endpoints_set_configz(m, doc));
    memset(&a, 0, sizeof a);
    ms_endpoints_serve(m, "/configz", &a);
    assert_int_equal(a.status, 200);
    assert_string_equal(a.body, doc);
    assert_int_equal(a.len, strlen(doc));
    assert_string_equal(a.content_type, "application/json");
    free(a.body);
    ms_endpoints_free(m);
    ms_metrics_registry_free(r);
}

static void test_health_and_handler(void **state) {
    (void)state;
    const char *profiles[] = {"default-scheduler"};
    ms_metrics *metrics = ms_metrics_new(profiles, 1);
    ms_metrics_registry *r = ms_metrics_registry_new();
    assert_true(ms_metrics_registry_add(r, ms_metrics_collect, metrics));
    ms_endpoints *m = ms_endpoints_new(r);
    ms_http_answer a = {0};
    ms_endpoints_serve(m, "/healthz", &a);
    assert_int_equal(a.status, 500);   /* the loop has not come round yet */
    free(a.body);
    ms_endpoints_heartbeat(m, ms_clock_monotonic());
    memset(&a, 0, sizeof a);
    ms_endpoints_serve(m, "/healthz", &a);
    assert_int_equal(a.status, 200);
    assert_string_equal(a.body, "ok");
    free(a.body);
    ms_endpoints_heartbeat(m, 100);
    assert_true(ms_endpoints_healthy(m, 105, 10));
    assert_false(ms_endpoints_healthy(m, 111, 10));

    memset(&a, 0, sizeof a);
    ms_endpoints_serve(m, "/readyz", &a);
    assert_int_equal(a.status, 503);
    free(a.body);
    ms_endpoints_set_ready(m, true);
    memset(&a, 0, sizeof a);
    ms_endpoints_serve(m, "/readyz", &a);
    assert_int_equal(a.status, 200);
    free(a.body);
    /* synced, but a profile places no pod: 503, saying why */
    ms_endpoints_set_unready_reason(m, "profile p places no pod: policy lua:x did not load: boom");
    memset(&a, 0, sizeof a);
    ms_endpoints_serve(m, "/readyz", &a);
    assert_int_equal(a.status, 503);
    assert_string_equal(a.body, "profile p places no pod: policy lua:x did not load: boom\n");
    free(a.body);
    ms_endpoints_set_unready_reason(m, "");
    memset(&a, 0, sizeof a);
    ms_endpoints_serve(m, "/readyz", &a);
    assert_int_equal(a.status, 200);
    free(a.body);
    memset(&a, 0, sizeof a);
    ms_endpoints_serve(m, "/metrics", &a);
    assert_int_equal(a.status, 200);
    assert_string_equal(a.content_type, "text/plain; version=0.0.4; charset=utf-8");
    assert_true(tu_series(a.body, "scheduler_schedule_attempts_total{profile=\"default-scheduler\",result=\"scheduled\"}") == 0);
    free(a.body);
    memset(&a, 0, sizeof a);
    ms_endpoints_serve(m, "/other", &a);
    assert_int_equal(a.status, 404);
    free(a.body);
    ms_endpoints_free(m);
    ms_metrics_registry_free(r);
    ms_metrics_free(metrics);
}

static size_t collect(char *p, size_t size, size_t n, void *ctx) {
    char *buf = ctx;
    size_t have = strlen(buf), add = size * n;
    if (have + add >= 65536) add = 65535 - have;
    memcpy(buf + have, p, add);
    buf[have + add] = 0;
    return size * n;
}

static long get(uint16_t port, const char *path, char *body) {
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%u%s", port, path);
    body[0] = 0;
    CURL *c = curl_easy_init();
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, body);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 5L);
    long code = 0;
    if (curl_easy_perform(c) == CURLE_OK) curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    curl_easy_cleanup(c);
    return code;
}

static void test_server_on_loopback(void **state) {
    (void)state;
    const char *profiles[] = {"default-scheduler"};
    ms_metrics *metrics = ms_metrics_new(profiles, 1);
    ms_metrics_attempt(metrics, 0, MS_ATTEMPT_SCHEDULED, 0.01);
    ms_metrics_registry *r = ms_metrics_registry_new();
    assert_true(ms_metrics_registry_add(r, ms_metrics_collect, metrics));
    ms_endpoints *m = ms_endpoints_new(r);
    ms_http_server *s = NULL;
    ms_error err = {0};
    assert_int_equal(ms_http_server_start("127.0.0.1:0", ms_endpoints_serve, m, &s, &err), MS_OK);
    uint16_t port = ms_http_server_port(s);
    assert_true(port > 0);
    char *body = malloc(65536);
    assert_int_equal(get(port, "/metrics", body), 200);
    assert_true(tu_series(body, "scheduler_schedule_attempts_total{profile=\"default-scheduler\",result=\"scheduled\"}") == 1);
    assert_int_equal(get(port, "/readyz", body), 503);
    assert_int_equal(get(port, "/readyz?verbose", body), 503);
    ms_endpoints_set_ready(m, true);
    assert_int_equal(get(port, "/readyz", body), 200);
    assert_int_equal(get(port, "/missing", body), 404);

    /* the port is taken now */
    char addr[32];
    snprintf(addr, sizeof addr, "127.0.0.1:%u", port);
    ms_http_server *s2 = NULL;
    assert_int_equal(ms_http_server_start(addr, ms_endpoints_serve, m, &s2, &err), MS_EIO);
    assert_null(s2);
    assert_non_null(strstr(err.msg, addr));
    ms_http_server_stop(s);
    assert_int_equal(get(port, "/metrics", body), 0);   /* closed */
    free(body);
    ms_endpoints_free(m);
    ms_metrics_registry_free(r);
    ms_metrics_free(metrics);
}

static void test_registry_only(void **state) {
    (void)state;
    ms_desched_metrics *metrics = ms_desched_metrics_new();
    ms_metrics_registry *r = ms_metrics_registry_new();
    assert_true(ms_metrics_registry_add(r, ms_desched_metrics_collect, metrics));
    ms_http_answer a = {0};
    ms_endpoints_serve_registry(r, "/metrics", &a);
    assert_int_equal(a.status, 200);
    assert_string_equal(a.content_type, "text/plain; version=0.0.4; charset=utf-8");
    assert_non_null(strstr(a.body, "# TYPE descheduler_pods_evicted_total counter\n"));
    assert_int_equal(a.len, strlen(a.body));
    free(a.body);
    memset(&a, 0, sizeof a);
    ms_endpoints_serve_registry(r, "/healthz", &a);
    assert_int_equal(a.status, 200);
    assert_string_equal(a.body, "ok");
    free(a.body);
    memset(&a, 0, sizeof a);
    ms_endpoints_serve_registry(r, "/nope", &a);
    assert_int_equal(a.status, 404);
    free(a.body);
    ms_metrics_registry_free(r);
    ms_desched_metrics_free(metrics);
}

int main(void) {
    curl_global_init(CURL_GLOBAL_DEFAULT);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_configz),
        cmocka_unit_test(test_health_and_handler),
        cmocka_unit_test(test_server_on_loopback),
        cmocka_unit_test(test_registry_only),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}
