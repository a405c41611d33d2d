/* cmd/auth_failures: failed authentications per source, in windows. */
#include "testutil.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include "serving/auth_failures.h"

static struct sockaddr_in v4(const char *ip) {
    struct sockaddr_in a = {.sin_family = AF_INET};
    inet_pton(AF_INET, ip, &a.sin_addr);
    return a;
}

static struct sockaddr_in6 v6(const char *ip) {
    struct sockaddr_in6 a = {.sin6_family = AF_INET6};
    inet_pton(AF_INET6, ip, &a.sin6_addr);
    return a;
}

#define SA(x) ((const struct sockaddr *)&(x))

static void test_window_per_source(void **state) {
    (void)state;
    ms_auth_failures *f = ms_auth_failures_new(3, 10, 0);
    struct sockaddr_in a = v4("10.0.0.1"), b = v4("10.0.0.2");
    for (int i = 0; i < 3; i++) {
        assert_true(ms_auth_failures_allowed(f, SA(a), 100 + i));
        ms_auth_failures_add(f, SA(a), 100 + i);
    }
    /* the budget is spent until 10 s after the first failure */
    assert_false(ms_auth_failures_allowed(f, SA(a), 103));
    assert_false(ms_auth_failures_allowed(f, SA(a), 109.9));
    /* another address has its own */
    assert_true(ms_auth_failures_allowed(f, SA(b), 105));
    /* a new window */
    assert_true(ms_auth_failures_allowed(f, SA(a), 110.1));
    ms_auth_failures_add(f, SA(a), 110.1);
    assert_true(ms_auth_failures_allowed(f, SA(a), 110.2));
    /* no address (a test's socket pair): never limited */
    ms_auth_failures_add(f, NULL, 111);
    assert_true(ms_auth_failures_allowed(f, NULL, 111));
    ms_auth_failures_free(f);
}

static void test_ipv6_by_64_and_mapped_ipv4(void **state) {
    (void)state;
    ms_auth_failures *f = ms_auth_failures_new(2, 10, 0);
    struct sockaddr_in6 a = v6("2001:db8:1:2::1"), b = v6("2001:db8:1:2:ffff::9"), c = v6("2001:db8:1:3::1");
    ms_auth_failures_add(f, SA(a), 1);
    ms_auth_failures_add(f, SA(b), 1);
    /* one /64: one budget */
    assert_false(ms_auth_failures_allowed(f, SA(a), 2));
    assert_true(ms_auth_failures_allowed(f, SA(c), 2));
    /* ::ffff:10.0.0.1 (a dual-stack socket's IPv4 client) is 10.0.0.1 */
    struct sockaddr_in6 m = v6("::ffff:10.0.0.1");
    struct sockaddr_in p = v4("10.0.0.1");
    ms_auth_failures_add(f, SA(m), 1);
    ms_auth_failures_add(f, SA(p), 1);
    assert_false(ms_auth_failures_allowed(f, SA(p), 2));
    ms_auth_failures_free(f);
}

static void test_bounded(void **state) {
    (void)state;
    /* two sources remembered: a third takes the place of the one whose
     * window ends first, which starts afresh */
    ms_auth_failures *f = ms_auth_failures_new(1, 10, 2);
    struct sockaddr_in a = v4("10.0.0.1"), b = v4("10.0.0.2"), c = v4("10.0.0.3");
    ms_auth_failures_add(f, SA(a), 1);
    ms_auth_failures_add(f, SA(b), 2);
    ms_auth_failures_add(f, SA(c), 3);
    assert_true(ms_auth_failures_allowed(f, SA(a), 4));
    assert_false(ms_auth_failures_allowed(f, SA(b), 4));
    assert_false(ms_auth_failures_allowed(f, SA(c), 4));
    ms_auth_failures_free(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window_per_source),
        cmocka_unit_test(test_ipv6_by_64_and_mapped_ipv4),
        cmocka_unit_test(test_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
