#include "testutil.h"

#include "api/validation.h"

static bool sub(const char *s) { return ms_is_dns1123_subdomain(s, strlen(s)); }
static bool lab(const char *s) { return ms_is_dns1123_label(s, strlen(s)); }

static void test_dns1123_subdomain(void **st) {
    (void)st;
    const char *good[] = {"a", "ab", "a-b", "0", "a.b", "example.com", "1.2.3", "a--b.c"};
    const char *bad[] = {"", "A", "-a", "a-", "a..b", ".a", "a.", "a_b", "a.-b", "a/b"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) assert_true(sub(good[i]));
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) assert_false(sub(bad[i]));
    char longest[MS_DNS1123_SUBDOMAIN_MAX + 2];
    memset(longest, 'a', sizeof longest);
    assert_true(ms_is_dns1123_subdomain(longest, MS_DNS1123_SUBDOMAIN_MAX));
    assert_false(ms_is_dns1123_subdomain(longest, MS_DNS1123_SUBDOMAIN_MAX + 1));
}

static void test_dns1123_label(void **st) {
    (void)st;
    assert_true(lab("kube-system"));
    assert_false(lab("a.b"));
    assert_false(lab("Upper"));
    assert_false(lab("-x"));
    char longest[MS_DNS1123_LABEL_MAX + 1];
    memset(longest, 'z', sizeof longest);
    assert_true(ms_is_dns1123_label(longest, MS_DNS1123_LABEL_MAX));
    assert_false(ms_is_dns1123_label(longest, MS_DNS1123_LABEL_MAX + 1));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dns1123_subdomain),
        cmocka_unit_test(test_dns1123_label),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
