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

/* The reasons upstream's IsDNS1123Label / IsDNS1123Subdomain give first:
 * the length, then the characters. */
static void test_dns1123_problems(void **st) {
    (void)st;
    assert_null(ms_dns1123_label_problem("gpu-0", 5));
    assert_string_equal(ms_dns1123_label_problem("GPU", 3),
                        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "
                        "'-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "
                        "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
    char longest[MS_DNS1123_SUBDOMAIN_MAX + 1];
    memset(longest, 'z', sizeof longest);
    assert_string_equal(ms_dns1123_label_problem(longest, MS_DNS1123_LABEL_MAX + 1),
                        "must be no more than 63 characters");
    assert_null(ms_dns1123_subdomain_problem("gpu.example.com", 15));
    assert_string_equal(ms_dns1123_subdomain_problem("a_b", 3),
                        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
                        "'-' or '.', and must start and end with an alphanumeric character (e.g. "
                        "'example.com', regex used for validation is "
                        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
    assert_string_equal(ms_dns1123_subdomain_problem(longest, sizeof longest),
                        "must be no more than 253 characters");
}

static bool starts(const char *s, const char *prefix) {
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static const char *qn(const char *s) { return ms_qualified_name_problem(s, strlen(s)); }

static void test_qualified_name(void **st) {
    (void)st;
    const char *good[] = {"a", "A", "a.b_c-d", "example.com/MyName", "kubernetes.io/hostname", "0/x"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) assert_null(qn(good[i]));
    assert_string_equal(qn(""), "name part must be non-empty");
    assert_string_equal(qn("a/"), "name part must be non-empty");
    assert_string_equal(qn("/a"), "prefix part must be non-empty");
    assert_true(starts(qn("-x"), "name part must consist of alphanumeric characters"));
    assert_true(starts(qn("a/b/c"), "a qualified name must consist of"));
    assert_true(strstr(qn("a/b/c"), "(e.g. 'example.com/MyName')") != NULL);
    assert_true(starts(qn("Example.com/x"), "prefix part a lowercase RFC 1123 subdomain"));
    assert_true(strstr(qn("Example.com/x"), "(e.g. 'example.com', regex used") != NULL);
    char name[MS_QUALIFIED_NAME_MAX + 2];
    memset(name, 'n', sizeof name);
    assert_null(ms_qualified_name_problem(name, MS_QUALIFIED_NAME_MAX));
    assert_string_equal(ms_qualified_name_problem(name, MS_QUALIFIED_NAME_MAX + 1),
                        "name part must be no more than 63 characters");
    char key[MS_DNS1123_SUBDOMAIN_MAX + 3];
    memset(key, 'p', sizeof key);
    key[MS_DNS1123_SUBDOMAIN_MAX] = '/';
    key[MS_DNS1123_SUBDOMAIN_MAX + 1] = 'x';
    assert_null(ms_qualified_name_problem(key, MS_DNS1123_SUBDOMAIN_MAX + 2));
    key[MS_DNS1123_SUBDOMAIN_MAX] = 'p';
    key[MS_DNS1123_SUBDOMAIN_MAX + 1] = '/';
    key[MS_DNS1123_SUBDOMAIN_MAX + 2] = 'x';
    assert_string_equal(ms_qualified_name_problem(key, MS_DNS1123_SUBDOMAIN_MAX + 3),
                        "prefix part must be no more than 253 characters");
    /* the length bounds the check: a slash past n is not seen */
    assert_null(ms_qualified_name_problem("ab/", 2));
}

static void test_label_value(void **st) {
    (void)st;
    assert_null(ms_label_value_problem("", 0));
    assert_null(ms_label_value_problem("v1.2_x-y", 8));
    assert_true(starts(ms_label_value_problem("_a", 2), "a valid label must consist of"));
    assert_null(ms_label_value_problem("a/b", 1));
    assert_non_null(ms_label_value_problem("a/b", 3));
    char v[MS_LABEL_VALUE_MAX + 1];
    memset(v, 'v', sizeof v);
    assert_null(ms_label_value_problem(v, MS_LABEL_VALUE_MAX));
    assert_string_equal(ms_label_value_problem(v, MS_LABEL_VALUE_MAX + 1),
                        "must be no more than 63 characters");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dns1123_subdomain),
        cmocka_unit_test(test_dns1123_label),
        cmocka_unit_test(test_dns1123_problems),
        cmocka_unit_test(test_qualified_name),
        cmocka_unit_test(test_label_value),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
