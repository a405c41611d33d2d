#include "testutil.h"

#include <math.h>

#include "client/backoff.h"

#define assert_seconds(got, want) assert_seconds_at(got, want, __LINE__)
static void assert_seconds_at(double got, double want, int line) {
    if (fabs(got - want) > 1e-9) fail_msg("line %d: %.6f s, not %.6f s", line, got, want);
}

/* 0.8 s doubling to 30 s, jitter adding up to 25%. */
static void test_doubles_to_the_cap(void **state) {
    (void)state;
    ms_backoff b;
    ms_backoff_init(&b, 0, 0, 0);
    const double want[] = {0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 30, 30};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        assert_seconds(ms_backoff_next(&b, 10 + (double)i, 0, 0), want[i]);
    assert_seconds(ms_backoff_next(&b, 20, 0, 0.5), 30 * 1.125);
    assert_seconds(ms_backoff_next(&b, 21, 0, 0.999), 30 * (1 + 0.25 * 0.999));
}

/* Two minutes without a failure: a new spell, from the initial delay. */
static void test_quiet_period_resets(void **state) {
    (void)state;
    ms_backoff b;
    ms_backoff_init(&b, 0, 0, 0);
    for (int i = 0; i < 6; i++) ms_backoff_next(&b, 100 + i, 0, 0);
    assert_seconds(ms_backoff_next(&b, 200, 0, 0), 30);   /* 95 s after: still the spell */
    assert_seconds(ms_backoff_next(&b, 320, 0, 0), 0.8);  /* 120 s after */
}

/* A Retry-After is the delay, capped at the maximum, and the exponential
 * delay is where it was after it: a throttling spell (429s) leaves the
 * next failure's delay unchanged. */
static void test_retry_after_honoured_not_doubled(void **state) {
    (void)state;
    ms_backoff b;
    ms_backoff_init(&b, 0, 0, 0);
    assert_seconds(ms_backoff_next(&b, 1, 0, 0), 0.8);
    assert_seconds(ms_backoff_next(&b, 2, 0, 0), 1.6);
    for (int i = 0; i < 10; i++) assert_seconds(ms_backoff_next(&b, 3 + i, 1, 0.9), 1);
    assert_seconds(ms_backoff_next(&b, 14, 300, 0), 30);   /* capped */
    assert_seconds(ms_backoff_next(&b, 15, 0, 0), 3.2);
}

/* Recovery (a watch that held) ends the spell at once: the next failure,
 * seconds later, waits the initial delay, not the doubled last one. */
static void test_reset_ends_the_spell(void **state) {
    (void)state;
    ms_backoff b;
    ms_backoff_init(&b, 0.1, 5, 0);
    for (int i = 0; i < 5; i++) ms_backoff_next(&b, i, 0, 0);
    assert_seconds(ms_backoff_next(&b, 6, 0, 0), 3.2);
    ms_backoff_reset(&b);
    assert_seconds(ms_backoff_next(&b, 8, 0, 0), 0.1);
    assert_seconds(ms_backoff_next(&b, 9, 0, 0), 0.2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_doubles_to_the_cap),
        cmocka_unit_test(test_quiet_period_resets),
        cmocka_unit_test(test_retry_after_honoured_not_doubled),
        cmocka_unit_test(test_reset_ends_the_spell),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
