#include "testutil.h"

#include "base/expiring_cache.h"

static void test_put_get_expire(void **state) {
    (void)state;
    ms_expiring_cache *c = ms_expiring_cache_new(4);
    assert_non_null(c);
    assert_true(ms_expiring_cache_put(c, "k", 1, "value", 5, 100, 10));
    size_t n = 0;
    char *v = ms_expiring_cache_get(c, "k", 1, 105, &n);
    assert_string_equal(v, "value");
    assert_int_equal(n, 5);
    free(v);
    assert_null(ms_expiring_cache_get(c, "k", 1, 110, &n));   /* expired at now + ttl */
    assert_null(ms_expiring_cache_get(c, "x", 1, 100, &n));
    /* replaced: a new value and a new expiry */
    assert_true(ms_expiring_cache_put(c, "k", 1, "", 0, 110, 5));
    v = ms_expiring_cache_get(c, "k", 1, 114, &n);
    assert_non_null(v);
    assert_int_equal(n, 0);
    free(v);
    assert_int_equal(ms_expiring_cache_len(c), 1);
    ms_expiring_cache_free(c);
}

static void test_bounded(void **state) {
    (void)state;
    ms_expiring_cache *c = ms_expiring_cache_new(3);
    /* a, b, c expire at 10, 30, 20 */
    ms_expiring_cache_put(c, "a", 1, "1", 1, 0, 10);
    ms_expiring_cache_put(c, "b", 1, "2", 1, 0, 30);
    ms_expiring_cache_put(c, "c", 1, "3", 1, 0, 20);
    /* full: d takes the place of the one closest to expiring (a) */
    ms_expiring_cache_put(c, "d", 1, "4", 1, 1, 30);
    assert_int_equal(ms_expiring_cache_len(c), 3);
    char *v;
    assert_null(ms_expiring_cache_get(c, "a", 1, 2, NULL));
    assert_non_null(v = ms_expiring_cache_get(c, "b", 1, 2, NULL));
    free(v);
    assert_non_null(v = ms_expiring_cache_get(c, "c", 1, 2, NULL));
    free(v);
    /* at 25 c has expired: e takes its place, b and d stay */
    ms_expiring_cache_put(c, "e", 1, "5", 1, 25, 30);
    assert_null(ms_expiring_cache_get(c, "c", 1, 25, NULL));
    assert_non_null(v = ms_expiring_cache_get(c, "b", 1, 25, NULL));
    free(v);
    assert_non_null(v = ms_expiring_cache_get(c, "d", 1, 25, NULL));
    free(v);
    assert_int_equal(ms_expiring_cache_len(c), 3);
    ms_expiring_cache_free(c);
}

static void test_binary_keys(void **state) {
    (void)state;
    ms_expiring_cache *c = ms_expiring_cache_new(8);
    const unsigned char k1[] = {0, 1, 2}, k2[] = {0, 1, 3};
    ms_expiring_cache_put(c, k1, sizeof k1, "one", 3, 0, 10);
    ms_expiring_cache_put(c, k2, sizeof k2, "two", 3, 0, 10);
    char *v = ms_expiring_cache_get(c, k1, sizeof k1, 1, NULL);
    assert_string_equal(v, "one");
    free(v);
    v = ms_expiring_cache_get(c, k2, sizeof k2, 1, NULL);
    assert_string_equal(v, "two");
    free(v);
    assert_null(ms_expiring_cache_get(c, k1, 2, 1, NULL));
    ms_expiring_cache_free(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_put_get_expire),
        cmocka_unit_test(test_bounded),
        cmocka_unit_test(test_binary_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
