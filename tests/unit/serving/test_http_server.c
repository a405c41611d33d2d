/* The HTTP server's helpers (core/serving/http_server.c): a query parameter
 * found by name and percent-decoded, refused when malformed or too long;
 * listen addresses, and the configuration's. */
#include "testutil.h"

#include <cjson/cJSON.h>

#include "moonsched/config.h"
#include "serving/http_server.h"

static void test_query_get(void **state) {
    (void)state;
    char v[16];
    assert_true(ms_http_query_get("pod=default%2Fweb-1", "pod", v, sizeof v));
    assert_string_equal(v, "default/web-1");
    assert_true(ms_http_query_get("x=1&pod=a/b&pod=c/d", "pod", v, sizeof v));
    assert_string_equal(v, "a/b");
    assert_true(ms_http_query_get("podx=1&pod=a+b", "pod", v, sizeof v));
    assert_string_equal(v, "a b");
    assert_true(ms_http_query_get("pod=", "pod", v, sizeof v));
    assert_string_equal(v, "");
    assert_false(ms_http_query_get("po=1", "pod", v, sizeof v));
    assert_false(ms_http_query_get(NULL, "pod", v, sizeof v));
    assert_false(ms_http_query_get("pod=%2", "pod", v, sizeof v));
    assert_false(ms_http_query_get("pod=%zz", "pod", v, sizeof v));
    assert_false(ms_http_query_get("pod=0123456789abcdef", "pod", v, sizeof v));
}

static void test_parse_address(void **state) {
    (void)state;
    static const struct {
        const char *in, *host;
        int port;                  /* -1: malformed */
    } cases[] = {
        {"127.0.0.1:10251", "127.0.0.1", 10251},
        {"0.0.0.0:0", "0.0.0.0", 0},
        {":8080", "", 8080},
        {"[::1]:9090", "::1", 9090},
        {"localhost:1", "localhost", 1},
        {"127.0.0.1", NULL, -1},
        {"127.0.0.1:", NULL, -1},
        {"127.0.0.1:65536", NULL, -1},
        {"127.0.0.1:80x", NULL, -1},
        {"::1:80", NULL, -1},
        {"[::1]80", NULL, -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char host[64];
        uint16_t port = 0;
        ms_error err = {0};
        ms_rc rc = ms_http_parse_address(cases[i].in, host, sizeof host, &port, &err);
        if (cases[i].port < 0) {
            assert_int_equal(rc, MS_EINVAL);
            assert_non_null(strstr(err.msg, cases[i].in));
        } else {
            assert_int_equal(rc, MS_OK);
            assert_string_equal(host, cases[i].host);
            assert_int_equal(port, cases[i].port);
        }
    }
    assert_true(ms_http_address_disabled(NULL));
    assert_true(ms_http_address_disabled(""));
    assert_true(ms_http_address_disabled("0"));
    assert_false(ms_http_address_disabled("127.0.0.1:0"));
}

static void test_config_bind_addresses(void **state) {
    (void)state;
    const char *doc =
        "{\"apiVersion\":\"kubescheduler.config.k8s.io/v1beta1\",\"kind\":\"KubeSchedulerConfiguration\","
        "\"metricsBindAddress\":\"127.0.0.1:19251\",\"healthzBindAddress\":\"0\"}";
    cJSON *j = cJSON_Parse(doc);
    ms_config c;
    ms_error err = {0};
    assert_int_equal(ms_config_load_json(&c, j, "sched.json", NULL, NULL, &err), MS_OK);
    assert_string_equal(c.metrics_bind_address, "127.0.0.1:19251");
    assert_string_equal(c.healthz_bind_address, "0");
    ms_config_free(&c);
    cJSON_Delete(j);
    /* absent: empty */
    ms_config d;
    assert_int_equal(ms_config_default(&d), MS_OK);
    assert_string_equal(d.metrics_bind_address, "");
    ms_config_free(&d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_query_get),
        cmocka_unit_test(test_parse_address),
        cmocka_unit_test(test_config_bind_addresses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
