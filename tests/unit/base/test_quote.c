#include "testutil.h"

#include "base/quote.h"

static void test_plain_and_escapes(void **st) {
    (void)st;
    char q[MS_QUOTE_SIZE];
    assert_string_equal(ms_quote(q, "1.1.1"), "\"1.1.1\"");
    assert_string_equal(ms_quote(q, NULL), "\"\"");
    assert_string_equal(ms_quote(q, "a\"b\\c\nd\te\x01\x7f"), "\"a\\\"b\\\\c\\nd\\te\\x01\\x7f\"");
    /* valid UTF-8 is kept, a stray byte is escaped */
    assert_string_equal(ms_quote(q, "\xc3\xa9\xff"), "\"\xc3\xa9\\xff\"");
    assert_string_equal(ms_quote_n(q, "a\0b", 3), "\"a\\x00b\"");
}

static void test_long_value_is_cut(void **st) {
    (void)st;
    char q[MS_QUOTE_SIZE];
    static char big[10240 + 1];
    memset(big, 'x', 10240);
    ms_quote(q, big);
    assert_int_equal(strlen(q), MS_QUOTE_KEEP + 5);
    assert_string_equal(q + MS_QUOTE_KEEP + 1, "...\"");
    /* the worst case fits */
    memset(big, 1, 10240);
    ms_quote(q, big);
    assert_int_equal(strlen(q), MS_QUOTE_KEEP * 4 + 5);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_and_escapes),
        cmocka_unit_test(test_long_value_is_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
