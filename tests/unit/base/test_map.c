#include "testutil.h"

#include "base/map.h"

static void test_put_get_del(void **state) {
    (void)state;
    ms_map m;
    ms_map_init(&m);
    assert_null(ms_map_get(&m, 7));
    assert_null(ms_map_del(&m, 7));
    int vals[5000];
    for (int i = 0; i < 5000; i++) assert_int_equal(ms_map_put(&m, (uint64_t)i * 3, &vals[i]), 0);
    assert_int_equal(m.len, 5000);
    for (int i = 0; i < 5000; i++) assert_ptr_equal(ms_map_get(&m, (uint64_t)i * 3), &vals[i]);
    assert_null(ms_map_get(&m, 1));
    for (int i = 0; i < 5000; i += 2) assert_ptr_equal(ms_map_del(&m, (uint64_t)i * 3), &vals[i]);
    assert_int_equal(m.len, 2500);
    for (int i = 0; i < 5000; i++) {
        if (i % 2) assert_ptr_equal(ms_map_get(&m, (uint64_t)i * 3), &vals[i]);
        else assert_false(ms_map_has(&m, (uint64_t)i * 3));
    }
    /* replace keeps the length */
    assert_int_equal(ms_map_put(&m, 3, &vals[0]), 0);
    assert_int_equal(m.len, 2500);
    assert_ptr_equal(ms_map_get(&m, 3), &vals[0]);
    ms_map_free(&m);
}

static void test_churn_does_not_grow_without_bound(void **state) {
    (void)state;
    ms_map m;
    ms_map_init(&m);
    int v;
    for (uint64_t i = 0; i < 200000; i++) {
        assert_int_equal(ms_map_put(&m, i, &v), 0);
        if (i >= 10) assert_non_null(ms_map_del(&m, i - 10));
    }
    assert_int_equal(m.len, 10);
    assert_true(m.cap <= 64);
    ms_map_free(&m);
}

static void test_iteration_visits_each_once(void **state) {
    (void)state;
    ms_map m;
    ms_map_init(&m);
    int v;
    for (uint64_t i = 1; i <= 100; i++) ms_map_put(&m, i, &v);
    uint64_t sum = 0, k;
    void *val;
    int n = 0;
    for (size_t it = 0; ms_map_next(&m, &it, &k, &val);) {
        sum += k;
        n++;
    }
    assert_int_equal(n, 100);
    assert_int_equal(sum, 5050);
    ms_map_free(&m);
}

/* Clearing keeps the capacity, so a map refilled per cycle stops allocating. */
static void test_clear_keeps_capacity(void **state) {
    (void)state;
    ms_map m;
    ms_map_init(&m);
    ms_map_clear(&m);
    int v;
    for (uint64_t round = 0; round < 3; round++) {
        for (uint64_t i = 0; i < 1000; i++) assert_int_equal(ms_map_put(&m, i * 7 + round, &v), 0);
        assert_null(ms_map_del(&m, 1000000));
        assert_non_null(ms_map_del(&m, round));
        size_t cap = m.cap;
        ms_map_clear(&m);
        assert_int_equal(m.len, 0);
        assert_int_equal(m.tombstones, 0);
        assert_int_equal(m.cap, cap);
        assert_false(ms_map_has(&m, 7 + round));
        size_t it = 0;
        assert_false(ms_map_next(&m, &it, NULL, NULL));
    }
    ms_map_free(&m);
}

static void test_hash_bytes_differs(void **state) {
    (void)state;
    assert_int_not_equal(ms_hash_bytes("a", 1), ms_hash_bytes("b", 1));
    assert_int_equal(ms_hash_bytes("uid-1", 5), ms_hash_bytes("uid-1", 5));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_put_get_del),
        cmocka_unit_test(test_churn_does_not_grow_without_bound),
        cmocka_unit_test(test_iteration_visits_each_once),
        cmocka_unit_test(test_clear_keeps_capacity),
        cmocka_unit_test(test_hash_bytes_differs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
