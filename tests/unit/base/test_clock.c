#include "testutil.h"

#include "base/clock.h"

static void test_rfc3339_digits(void **st) {
    (void)st;
    char buf[MS_RFC3339_MAX];
    double t = 1136214245.123456;   /* 2006-01-02T15:04:05.123456Z */
    assert_string_equal(ms_time_rfc3339(t, 0, buf, sizeof buf), "2006-01-02T15:04:05Z");
    assert_string_equal(ms_time_rfc3339(t, 3, buf, sizeof buf), "2006-01-02T15:04:05.123Z");
    assert_string_equal(ms_time_rfc3339(t, 6, buf, sizeof buf), "2006-01-02T15:04:05.123456Z");
    assert_string_equal(ms_time_rfc3339(0, 6, buf, sizeof buf), "1970-01-01T00:00:00.000000Z");
}

static void test_rfc3339_short_buffer_terminates(void **st) {
    (void)st;
    char buf[8];
    ms_time_rfc3339(1136214245, 6, buf, sizeof buf);
    assert_true(memchr(buf, 0, sizeof buf) != NULL);
}

static void test_clocks_move_forward(void **st) {
    (void)st;
    double m1 = ms_clock_monotonic(), w1 = ms_clock_wall();
    double m2 = ms_clock_monotonic(), w2 = ms_clock_wall();
    assert_true(m2 >= m1);
    assert_true(w1 > 1.6e9);   /* after 2020: a real wall clock */
    assert_true(w2 - w1 < 60);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc3339_digits),
        cmocka_unit_test(test_rfc3339_short_buffer_terminates),
        cmocka_unit_test(test_clocks_move_forward),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
