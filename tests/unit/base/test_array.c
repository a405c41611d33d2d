#include "testutil.h"

#include "base/array.h"

static void test_grows_by_doubling_and_keeps_content(void **st) {
    (void)st;
    int *v = NULL;
    uint32_t cap = 0;
    for (uint32_t i = 0; i < 1000; i++) {
        assert_true(ms_array_grow((void **)&v, &cap, i + 1, sizeof *v));
        assert_true(cap >= i + 1);
        v[i] = (int)i;
    }
    assert_int_equal(cap, 1024);
    for (uint32_t i = 0; i < 1000; i++) assert_int_equal(v[i], (int)i);
    free(v);
}

static void test_enough_room_changes_nothing(void **st) {
    (void)st;
    int *v = NULL;
    uint32_t cap = 0;
    assert_true(ms_array_grow((void **)&v, &cap, 3, sizeof *v));
    assert_int_equal(cap, 16);
    int *before = v;
    assert_true(ms_array_grow((void **)&v, &cap, 16, sizeof *v));
    assert_ptr_equal(v, before);
    assert_int_equal(cap, 16);
    free(v);
}

static void test_too_large_fails_unchanged(void **st) {
    (void)st;
    char *v = NULL;
    uint32_t cap = 0;
    assert_true(ms_array_grow((void **)&v, &cap, 1, 1));
    char *before = v;
    assert_false(ms_array_grow((void **)&v, &cap, UINT32_MAX, SIZE_MAX / 4));
    assert_ptr_equal(v, before);
    assert_int_equal(cap, 16);
    free(v);
}

static void test_capacity_doubles_from_sixteen(void **st) {
    (void)st;
    assert_int_equal(ms_array_capacity(0, 0), 0);
    assert_int_equal(ms_array_capacity(0, 1), 16);
    assert_int_equal(ms_array_capacity(0, 17), 32);
    assert_int_equal(ms_array_capacity(16, 16), 16);
    assert_int_equal(ms_array_capacity(16, 17), 32);
    assert_int_equal(ms_array_capacity(5, 6), 10);
    assert_int_equal(ms_array_capacity(64, 1000), 1024);
    assert_int_equal(ms_array_capacity(1u << 31, (1u << 31) + 1), UINT32_MAX);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grows_by_doubling_and_keeps_content),
        cmocka_unit_test(test_enough_room_changes_nothing),
        cmocka_unit_test(test_too_large_fails_unchanged),
        cmocka_unit_test(test_capacity_doubles_from_sixteen),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
