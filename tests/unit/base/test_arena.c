#include "testutil.h"

#include "moonsched/arena.h"

static void test_alignment_zeroing_and_growth(void **state) {
    (void)state;
    ms_arena a;
    ms_arena_init(&a, 64);
    for (int i = 1; i < 200; i++) {
        unsigned char *p = ms_arena_alloc(&a, (size_t)i);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % 16, 0);
        for (int j = 0; j < i; j++) assert_int_equal(p[j], 0);
        memset(p, 0xab, (size_t)i);
    }
    char *big = ms_arena_alloc(&a, 1 << 20);
    assert_non_null(big);
    big[(1 << 20) - 1] = 1;
    assert_string_equal(ms_arena_strndup(&a, "hello world", 5), "hello");
    assert_string_equal(ms_arena_strdup(&a, "x"), "x");
    ms_arena_free(&a);
}

static void test_reset_reuses_memory(void **state) {
    (void)state;
    ms_arena a;
    ms_arena_init(&a, 256);
    for (int i = 0; i < 100; i++) ms_arena_alloc(&a, 100);
    ms_arena_reset(&a);
    assert_int_equal(a.total, 0);
    void *p = ms_arena_alloc(&a, 100);
    assert_non_null(p);
    ms_arena_reset(&a);
    assert_ptr_equal(ms_arena_alloc(&a, 100), p);
    ms_arena_free(&a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alignment_zeroing_and_growth),
        cmocka_unit_test(test_reset_reuses_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
