/* The Prometheus text helpers (base/prom.h). */
#include "testutil.h"

#include "base/prom.h"

/* le labels as Go's strconv.FormatFloat(v, 'g', -1, 64) writes them. */
static void test_format_float_as_go(void **state) {
    (void)state;
    static const struct {
        double v;
        const char *want;
    } cases[] = {
        {1e-05, "1e-05"},   {1.5000000000000002e-05, "1.5000000000000002e-05"},
        {0.0001, "0.0001"}, {0.00011390625000000003, "0.00011390625000000003"},
        {0.001, "0.001"},   {16.384, "16.384"},
        {1, "1"},           {64, "64"},
        {60, "60"},         {5242.88, "5242.88"},
        {0.25, "0.25"},     {1e6, "1e+06"},
        {123456, "123456"}, {0, "0"},
    };
    char buf[40];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_prom_format_float(cases[i].v, buf, sizeof buf);
        if (strcmp(buf, cases[i].want) != 0) fail_msg("%.17g: got %s, want %s", cases[i].v, buf, cases[i].want);
    }
}

static void test_histogram(void **state) {
    (void)state;
    static const double le[] = {0.5, 1, 2.5};
    const ms_prom_bounds bounds = {le, 3};
    ms_prom_histogram h = {0}, other = {0};
    ms_prom_observe(&h, &bounds, 0.5);   /* bounds are inclusive */
    ms_prom_observe(&h, &bounds, 2);
    ms_prom_observe(&other, &bounds, 7);
    ms_prom_merge(&h, &other);
    ms_buf b = {0};
    ms_prom_header(&b, "x_seconds", "histogram", "Help.");
    ms_prom_put_histogram(&b, "x_seconds", "a=\"1\"", &h, &bounds);
    ms_prom_put_histogram(&b, "y", "", &other, &bounds);
    assert_string_equal(b.data, "# HELP x_seconds Help.\n# TYPE x_seconds histogram\n"
                                "x_seconds_bucket{a=\"1\",le=\"0.5\"} 1\n"
                                "x_seconds_bucket{a=\"1\",le=\"1\"} 1\n"
                                "x_seconds_bucket{a=\"1\",le=\"2.5\"} 2\n"
                                "x_seconds_bucket{a=\"1\",le=\"+Inf\"} 3\n"
                                "x_seconds_sum{a=\"1\"} 9.5\n"
                                "x_seconds_count{a=\"1\"} 3\n"
                                "y_bucket{le=\"0.5\"} 0\ny_bucket{le=\"1\"} 0\ny_bucket{le=\"2.5\"} 0\n"
                                "y_bucket{le=\"+Inf\"} 1\ny_sum 7\ny_count 1\n");
    ms_buf_free(&b);
}

static void test_escape(void **state) {
    (void)state;
    char buf[32];
    assert_string_equal(ms_prom_escape("a\"b\\c\nd", buf, sizeof buf), "a\\\"b\\\\c\\nd");
    assert_string_equal(ms_prom_escape("abcdef", buf, 5), "abc");   /* truncated, still terminated */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_float_as_go),
        cmocka_unit_test(test_histogram),
        cmocka_unit_test(test_escape),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
