#include "testutil.h"

#include "codec/base64.h"

static void test_base64(void **state) {
    (void)state;
    static const struct {
        const char *in;
        const char *out;   /* NULL: error */
        size_t bad_at;
    } cases[] = {
        {"", "", 0},
        {"Zg==", "f", 0},
        {"Zm8=", "fo", 0},
        {"Zm9v", "foo", 0},
        {"Zm9v\nYmFy\r\n", "foobar", 0},   /* line breaks ignored, as Go does */
        {"Zm9vYg==", "foob", 0},
        {"Zm9", NULL, 3},
        {"Z===", NULL, 1},
        {"Zg==Zg==", NULL, 4},
        {"Zm 9v", NULL, 2},
        {"Zm9v_w==", NULL, 4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *out = NULL;
        size_t len = 0, bad = 99;
        ms_rc rc = ms_base64_decode(cases[i].in, strlen(cases[i].in), &out, &len, &bad);
        if (cases[i].out) {
            if (rc != MS_OK) fail_msg("case %zu: error at %zu", i, bad);
            assert_int_equal(len, strlen(cases[i].out));
            assert_string_equal(out, cases[i].out);
            free(out);
        } else {
            if (rc != MS_EINVAL) fail_msg("case %zu: decoded", i);
            assert_null(out);
            if (bad != cases[i].bad_at) fail_msg("case %zu: bad at %zu, want %zu", i, bad, cases[i].bad_at);
        }
    }
}

static void test_base64_encode(void **state) {
    (void)state;
    static const char *const plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    static const char *const coded[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
        char *e = ms_base64_encode(plain[i], strlen(plain[i]));
        assert_string_equal(e, coded[i]);
        free(e);
    }
    /* every byte value survives the round trip */
    unsigned char all[256];
    for (int i = 0; i < 256; i++) all[i] = (unsigned char)(255 - i);
    char *e = ms_base64_encode(all, sizeof all), *d = NULL;
    size_t len = 0, bad = 0;
    assert_int_equal(ms_base64_decode(e, strlen(e), &d, &len, &bad), MS_OK);
    assert_int_equal(len, sizeof all);
    assert_memory_equal(d, all, sizeof all);
    free(e);
    free(d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_base64),
        cmocka_unit_test(test_base64_encode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
