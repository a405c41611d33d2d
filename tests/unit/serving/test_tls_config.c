/* --tls-min-version and --tls-cipher-suites as GnuTLS priorities
 * (core/serving/tls_config.c), checked against GnuTLS itself. */
#include "testutil.h"

#include <gnutls/gnutls.h>

#include "serving/tls_config.h"

static void priorities(const char *min, const char *suites, char *out, char *extra) {
    ms_error err = {0};
    if (ms_tls_priorities(min, suites, out, 512, extra, 512, &err) != MS_OK) fail_msg("%s", err.msg);
    gnutls_priority_t p;
    const char *where = NULL;
    if (gnutls_priority_init(&p, out, &where) != GNUTLS_E_SUCCESS) fail_msg("GnuTLS refuses %s at %s", out, where);
    gnutls_priority_deinit(p);
}

static void test_versions(void **state) {
    (void)state;
    char out[512], extra[512];
    priorities(NULL, NULL, out, extra);
    assert_string_equal(out, "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2");
    priorities("VersionTLS13", "", out, extra);
    assert_string_equal(out, "NORMAL:-VERS-ALL:+VERS-TLS1.3");
    priorities("VersionTLS10", NULL, out, extra);
    assert_string_equal(out, "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:+VERS-TLS1.1:+VERS-TLS1.0");
    ms_error err = {0};
    assert_int_equal(ms_tls_priorities("TLS1.3", NULL, out, sizeof out, NULL, 0, &err), MS_EINVAL);
    assert_string_equal(err.msg, "--tls-min-version: unknown tls version \"TLS1.3\" (VersionTLS10, VersionTLS11, "
                                 "VersionTLS12, VersionTLS13)");
}

static void test_cipher_suites(void **state) {
    (void)state;
    char out[512], extra[512];
    priorities(NULL, "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", out, extra);
    assert_string_equal(out, "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:-KX-ALL:-CIPHER-ALL:-MAC-ALL"
                             ":+ECDHE-RSA:+AES-256-GCM:+AEAD");
    assert_string_equal(extra, "");
    /* GnuTLS pairs every key exchange with every cipher: said, not hidden */
    priorities("VersionTLS12", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_RSA_WITH_AES_256_GCM_SHA384", out, extra);
    assert_string_equal(extra, "TLS_RSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384");
    /* Go's two names of one suite */
    priorities(NULL, "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305", out, extra);
    assert_string_equal(extra, "");
    priorities("VersionTLS13", "TLS_AES_128_GCM_SHA256", out, extra);
    ms_error err = {0};
    assert_int_equal(ms_tls_priorities(NULL, "TLS_AES_128_GCM_SHA256", out, sizeof out, NULL, 0, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "no suite for TLS 1.2"));
    assert_int_equal(ms_tls_priorities(NULL, "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_RSA_WITH_RC4_128_SHA", out,
                                       sizeof out, NULL, 0, &err),
                     MS_EINVAL);
    assert_string_equal(err.msg, "--tls-cipher-suites: cipher suite \"TLS_RSA_WITH_RC4_128_SHA\" not supported");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_versions),
        cmocka_unit_test(test_cipher_suites),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
