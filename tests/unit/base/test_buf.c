#include "testutil.h"

#include "base/buf.h"

static void test_append_and_printf_grow(void **st) {
    (void)st;
    ms_buf b = {0};
    for (int i = 0; i < 1000; i++) ms_buf_printf(&b, "%d,", i);
    ms_buf_puts(&b, "end");
    ms_buf_putc(&b, '!');
    assert_false(b.failed);
    assert_int_equal(strlen(b.data), b.len);
    assert_true(strncmp(b.data, "0,1,2,", 6) == 0);
    assert_string_equal(b.data + b.len - 8, "999,end!");
    ms_buf_free(&b);
    assert_null(b.data);
}

static void test_printf_exactly_at_capacity(void **st) {
    (void)st;
    ms_buf b = {0};
    assert_true(ms_buf_reserve(&b, 10));
    size_t cap = b.cap;
    char fill[128];
    memset(fill, 'x', sizeof fill);
    /* Fill to one below capacity, then a format that needs a regrow. */
    ms_buf_append(&b, fill, cap - 2);
    ms_buf_printf(&b, "%s", "abcdef");
    assert_int_equal(b.len, cap - 2 + 6);
    assert_string_equal(b.data + cap - 2, "abcdef");
    ms_buf_free(&b);
}

static void test_take_and_reset(void **st) {
    (void)st;
    ms_buf b = {0};
    char *empty = ms_buf_take(&b);
    assert_string_equal(empty, "");
    free(empty);
    ms_buf_puts(&b, "hello");
    ms_buf_reset(&b);
    assert_int_equal(b.len, 0);
    assert_string_equal(b.data, "");
    ms_buf_puts(&b, "world");
    char *s = ms_buf_take(&b);
    assert_string_equal(s, "world");
    assert_null(b.data);
    assert_int_equal(b.len, 0);
    free(s);
}

static void test_failed_is_sticky(void **st) {
    (void)st;
    ms_buf b = {0};
    ms_buf_puts(&b, "x");
    assert_false(ms_buf_reserve(&b, (size_t)-1 / 2));
    assert_true(b.failed);
    ms_buf_puts(&b, "more");
    assert_int_equal(b.len, 1);
    assert_null(ms_buf_take(&b));
    assert_null(b.data);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_append_and_printf_grow),
        cmocka_unit_test(test_printf_exactly_at_capacity),
        cmocka_unit_test(test_take_and_reset),
        cmocka_unit_test(test_failed_is_sticky),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
