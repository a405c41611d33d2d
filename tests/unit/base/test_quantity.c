#include "testutil.h"

#include <limits.h>

#include "base/quantity.h"

typedef struct { const char *in; int64_t value; int64_t milli; } valid_case;

/* Expected values follow resource.Quantity's Value() and MilliValue():
 * exact, rounded away from zero, saturating. */
static const valid_case valid[] = {
    {"0", 0, 0},
    {"00", 0, 0},
    {"-0", 0, 0},
    {"+0", 0, 0},
    {"-", 0, 0},
    {"+", 0, 0},
    {"0Mi", 0, 0},
    {"Mi", 0, 0},      /* no digits: upstream scans the numerator as 0 */
    {"1", 1, 1000},
    {"+1", 1, 1000},
    {"100m", 1, 100},
    {"1500m", 2, 1500},
    {"0.1", 1, 100},
    {".5", 1, 500},
    {"5.", 5, 5000},
    {"1.", 1, 1000},
    {"0.5m", 1, 1},
    {"0.1m", 1, 1},
    {"1.5", 2, 1500},
    {"-1.5", -2, -1500},
    {"-100m", -1, -100},
    {"1k", 1000, 1000000},
    {"1M", 1000000, 1000000000},
    {"1G", 1000000000, 1000000000000},
    {"1T", 1000000000000, 1000000000000000},
    {"1P", 1000000000000000, 1000000000000000000},
    {"1E", 1000000000000000000, INT64_MAX},
    {"9E", 9000000000000000000, INT64_MAX},
    {"10E", INT64_MAX, INT64_MAX},
    {"1Ki", 1024, 1024000},
    {"1Mi", 1048576, 1048576000},
    {"1Gi", 1073741824, 1073741824000},
    {"128Gi", 137438953472, 137438953472000},
    {"1Ti", 1099511627776, 1099511627776000},
    {"1Pi", 1125899906842624, 1125899906842624000},
    {"1Ei", 1152921504606846976, INT64_MAX},
    {"8Ei", INT64_MAX, INT64_MAX},
    {"1.5Ki", 1536, 1536000},
    {"0.5Ki", 512, 512000},
    {"0.001Ki", 2, 1024},
    {"500Mi", 524288000, 524288000000},
    {"1n", 1, 1},
    {"1u", 1, 1},
    {"1000u", 1, 1},
    {"1000000u", 1, 1000},
    {"1500000n", 1, 2},
    {"1e3", 1000, 1000000},
    {"1E3", 1000, 1000000},
    {"1e-3", 1, 1},
    {"1e+3", 1000, 1000000},
    {"2e-1", 1, 200},
    {"1.5e1", 15, 15000},
    {"1e18", 1000000000000000000, INT64_MAX},
    {"1e19", INT64_MAX, INT64_MAX},
    {"1e999999", INT64_MAX, INT64_MAX},
    {"1e-999999", 1, 1},
    {"9223372036854775807", INT64_MAX, INT64_MAX},
    {"9223372036854775808", INT64_MAX, INT64_MAX},
    {"-9223372036854775808", INT64_MIN, INT64_MIN},
    {"0.000000000000000000001", 1, 1},
    {"000000000000000000000000000001", 1, 1000},
    {"12345678901234567890123", INT64_MAX, INT64_MAX},
    {"0.000001Gi", 1074, 1073742},
    {"4", 4, 4000},
    {"32Gi", 34359738368, 34359738368000},
};

static const char *const invalid[] = {
    "", " 1", "1 ", "1.2.3", "a", "1a", "1iM", "1K", "1e", "1e3m", "1Mii", "1.5m5",
    "--1", "+-1", "1e--3", "0x10", "1,000", "1_000", "∞", "1e3.5", ".", "1ki", "1KI",
};

static void test_valid_quantities(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof valid / sizeof valid[0]; i++) {
        ms_quantity q;
        ms_error err = {0};
        ms_rc rc = ms_quantity_parse_cstr(valid[i].in, &q, &err);
        if (rc != MS_OK) fail_msg("%s: unexpected error %s", valid[i].in, err.msg);
        if (q.value != valid[i].value || q.milli != valid[i].milli)
            fail_msg("%s: got value %lld milli %lld, want %lld %lld", valid[i].in,
                     (long long)q.value, (long long)q.milli, (long long)valid[i].value,
                     (long long)valid[i].milli);
    }
}

static void test_invalid_quantities(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
        ms_quantity q;
        ms_error err = {0};
        /* "." scans as zero upstream; everything else here is rejected. */
        ms_rc rc = ms_quantity_parse_cstr(invalid[i], &q, &err);
        if (strcmp(invalid[i], ".") == 0) {
            assert_int_equal(rc, MS_OK);
            assert_int_equal(q.value, 0);
            continue;
        }
        if (rc != MS_EINVAL) fail_msg("%s: accepted (value %lld)", invalid[i], (long long)q.value);
        assert_true(strstr(err.msg, "quantities must match") || strstr(err.msg, "suffix"));
    }
}

static void test_error_texts(void **state) {
    (void)state;
    ms_quantity q;
    ms_error err = {0};
    assert_int_equal(ms_quantity_parse_cstr("1iM", &q, &err), MS_EINVAL);
    assert_string_equal(err.msg, "unable to parse quantity's suffix");
    assert_int_equal(ms_quantity_parse_cstr("1 ", &q, &err), MS_EINVAL);
    assert_string_equal(err.msg,
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    /* the length is respected: no NUL needed */
    assert_int_equal(ms_quantity_parse("250mXYZ", 4, &q, &err), MS_OK);
    assert_int_equal(q.milli, 250);
}

static void test_formatting(void **state) {
    (void)state;
    char buf[32];
    ms_format_milli(buf, sizeof buf, 1500);
    assert_string_equal(buf, "1500m");
    ms_format_milli(buf, sizeof buf, 2000);
    assert_string_equal(buf, "2");
    ms_format_milli(buf, sizeof buf, 0);
    assert_string_equal(buf, "0");
    ms_format_bytes(buf, sizeof buf, 1073741824);
    assert_string_equal(buf, "1Gi");
    ms_format_bytes(buf, sizeof buf, 524288000);
    assert_string_equal(buf, "500Mi");
    ms_format_bytes(buf, sizeof buf, 1536);
    assert_string_equal(buf, "1536");
    ms_format_bytes(buf, sizeof buf, 1500);
    assert_string_equal(buf, "1500");
}

/* Up to 18 significant digits take a 128-bit path; more take the exact
 * digit-string path. The same amount written both ways ("D" and "D.000...",
 * 19 zeros) must parse the same, whatever the suffix and sign. */
static void test_short_and_long_digit_paths_agree(void **state) {
    (void)state;
    static const char *const suffixes[] = {"",   "m",  "n",  "u",   "k",   "M",    "G",  "T",
                                           "P",  "E",  "Ki", "Mi",  "Gi",  "Ti",   "Pi", "Ei",
                                           "e3", "e-5", "e18", "e-19", "E25", "e-40", "e+2"};
    uint64_t x = 0x2545f4914f6cdd1dULL;
    for (int round = 0; round < 20000; round++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        char digits[20];
        size_t n = 1 + x % 18;
        uint64_t y = x;
        for (size_t i = 0; i < n; i++) {
            y = y * 6364136223846793005ULL + 1442695040888963407ULL;
            digits[i] = (char)('0' + (y >> 33) % 10);
        }
        digits[n] = '\0';
        const char *sfx = suffixes[(x >> 20) % (sizeof suffixes / sizeof suffixes[0])];
        const char *sign = (x >> 40) % 4 == 0 ? "-" : "";
        char a[64], b[64];
        snprintf(a, sizeof a, "%s%s%s", sign, digits, sfx);
        snprintf(b, sizeof b, "%s%s.0000000000000000000%s", sign, digits, sfx);
        ms_quantity qa, qb;
        ms_error err = {0};
        assert_int_equal(ms_quantity_parse_cstr(a, &qa, &err), MS_OK);
        assert_int_equal(ms_quantity_parse_cstr(b, &qb, &err), MS_OK);
        if (qa.value != qb.value || qa.milli != qb.milli)
            fail_msg("%s: value %lld milli %lld; %s: value %lld milli %lld", a, (long long)qa.value,
                     (long long)qa.milli, b, (long long)qb.value, (long long)qb.milli);
    }
    /* Edges of the short path. */
    ms_quantity q;
    ms_error err = {0};
    assert_int_equal(ms_quantity_parse_cstr("999999999999999999Ei", &q, &err), MS_OK);
    assert_int_equal(q.value, INT64_MAX);
    assert_int_equal(ms_quantity_parse_cstr("999999999999999999", &q, &err), MS_OK);
    assert_int_equal(q.value, 999999999999999999LL);
    assert_int_equal(q.milli, INT64_MAX);
    assert_int_equal(ms_quantity_parse_cstr("9223372036854775807n", &q, &err), MS_OK);
    assert_int_equal(q.value, 9223372037LL);
    assert_int_equal(q.milli, 9223372036855LL);
    assert_int_equal(ms_quantity_parse_cstr("1e-40", &q, &err), MS_OK);
    assert_int_equal(q.value, 1);
    assert_int_equal(q.milli, 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_quantities),
        cmocka_unit_test(test_invalid_quantities),
        cmocka_unit_test(test_error_texts),
        cmocka_unit_test(test_formatting),
        cmocka_unit_test(test_short_and_long_digit_paths_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
