/* The HTTP server's helpers (core/serving/http_server.c): a query parameter
 * found by name and percent-decoded, refused when malformed or too long. */
#include "testutil.h"

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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_query_get),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
