/* The rate limit on policy log lines: a burst per message and window,
 * the count of what was held back said with the next line, a ceiling over
 * all messages, and policies and messages kept apart. */
#include "testutil.h"

#include <stdio.h>

#include "policy/log_limit.h"

static void test_burst_then_held_then_counted(void **state) {
    (void)state;
    ms_log_limit l;
    ms_log_limit_init(&l);
    uint64_t held;
    for (int i = 0; i < MS_LOG_LIMIT_BURST; i++) {
        assert_true(ms_log_limit_pass(&l, "lua:p", "boom", 1.0, &held));
        assert_int_equal(held, 0);
    }
    for (int i = 0; i < 1000; i++) assert_false(ms_log_limit_pass(&l, "lua:p", "boom", 2.0, &held));
    /* Another message, another policy: their own bursts. */
    assert_true(ms_log_limit_pass(&l, "lua:p", "other", 2.0, &held));
    assert_true(ms_log_limit_pass(&l, "lua:q", "boom", 2.0, &held));
    /* The next window: one line, with the count. */
    assert_true(ms_log_limit_pass(&l, "lua:p", "boom", 1.0 + MS_LOG_LIMIT_WINDOW, &held));
    assert_int_equal(held, 1000);
    assert_true(ms_log_limit_pass(&l, "lua:p", "boom", 1.0 + MS_LOG_LIMIT_WINDOW, &held));
    assert_int_equal(held, 0);
    ms_log_limit_destroy(&l);
}

/* Distinct messages (a node name in each) still stop at the ceiling. */
static void test_ceiling_over_all_messages(void **state) {
    (void)state;
    ms_log_limit l;
    ms_log_limit_init(&l);
    uint64_t held;
    uint32_t out = 0;
    for (int i = 0; i < 10000; i++) {
        char msg[64];
        snprintf(msg, sizeof msg, "bad node-%d", i);
        out += ms_log_limit_pass(&l, "lua:p", msg, 5.0, &held);
    }
    assert_int_equal(out, MS_LOG_LIMIT_TOTAL);
    ms_log_limit_destroy(&l);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_burst_then_held_then_counted),
        cmocka_unit_test(test_ceiling_over_all_messages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
