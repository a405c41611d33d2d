/* --tls-min-version and --tls-cipher-suites as GnuTLS priorities. See
 * serving/tls_config.h. */
#include "serving/tls_config.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"

/* Go's suites that GnuTLS can serve, by their parts. TLS 1.3 suites have
 * no key exchange of their own. The insecure ones Go still names (RC4,
 * 3DES) are refused: GnuTLS does not offer them. */
typedef struct suite {
    const char *name;
    const char *kx, *cipher, *mac;
} suite;

static const suite suites[] = {
    {"TLS_RSA_WITH_AES_128_CBC_SHA", "RSA", "AES-128-CBC", "SHA1"},
    {"TLS_RSA_WITH_AES_256_CBC_SHA", "RSA", "AES-256-CBC", "SHA1"},
    {"TLS_RSA_WITH_AES_128_CBC_SHA256", "RSA", "AES-128-CBC", "SHA256"},
    {"TLS_RSA_WITH_AES_128_GCM_SHA256", "RSA", "AES-128-GCM", "AEAD"},
    {"TLS_RSA_WITH_AES_256_GCM_SHA384", "RSA", "AES-256-GCM", "AEAD"},
    {"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "ECDHE-ECDSA", "AES-128-CBC", "SHA1"},
    {"TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", "ECDHE-ECDSA", "AES-256-CBC", "SHA1"},
    {"TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "ECDHE-RSA", "AES-128-CBC", "SHA1"},
    {"TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", "ECDHE-RSA", "AES-256-CBC", "SHA1"},
    {"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", "ECDHE-ECDSA", "AES-128-CBC", "SHA256"},
    {"TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256", "ECDHE-RSA", "AES-128-CBC", "SHA256"},
    {"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "ECDHE-RSA", "AES-128-GCM", "AEAD"},
    {"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "ECDHE-ECDSA", "AES-128-GCM", "AEAD"},
    {"TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "ECDHE-RSA", "AES-256-GCM", "AEAD"},
    {"TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "ECDHE-ECDSA", "AES-256-GCM", "AEAD"},
    {"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305", "ECDHE-RSA", "CHACHA20-POLY1305", "AEAD"},
    {"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-RSA", "CHACHA20-POLY1305", "AEAD"},
    {"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305", "ECDHE-ECDSA", "CHACHA20-POLY1305", "AEAD"},
    {"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-ECDSA", "CHACHA20-POLY1305", "AEAD"},
    {"TLS_AES_128_GCM_SHA256", NULL, "AES-128-GCM", "AEAD"},
    {"TLS_AES_256_GCM_SHA384", NULL, "AES-256-GCM", "AEAD"},
    {"TLS_CHACHA20_POLY1305_SHA256", NULL, "CHACHA20-POLY1305", "AEAD"},
};
#define NSUITES (sizeof suites / sizeof *suites)

static const char *const versions[] = {"VersionTLS10", "VersionTLS11", "VersionTLS12", "VersionTLS13"};
static const char *const gnutls_versions[] = {"+VERS-TLS1.0", "+VERS-TLS1.1", "+VERS-TLS1.2", "+VERS-TLS1.3"};

static int suite_index(const char *name, size_t len) {
    for (size_t i = 0; i < NSUITES; i++)
        if (strlen(suites[i].name) == len && memcmp(suites[i].name, name, len) == 0) return (int)i;
    return -1;
}

static const char *part(size_t i, size_t which) {
    return which == 0 ? suites[i].kx : which == 1 ? suites[i].cipher : suites[i].mac;
}

/* Whether suite k's part `which` is one of the chosen suites'. */
static bool chosen_part(const bool *chosen, size_t which, size_t k) {
    for (size_t i = 0; i < NSUITES; i++)
        if (chosen[i] && part(i, which) && strcmp(part(i, which), part(k, which)) == 0) return true;
    return false;
}

/* A suite of the same parts as a chosen one (Go's two names of a
 * CHACHA20-POLY1305 suite) is not allowed beyond the list. */
static bool same_as_chosen(const bool *chosen, size_t k) {
    for (size_t i = 0; i < NSUITES; i++) {
        if (!chosen[i]) continue;
        bool same = true;
        for (size_t w = 0; w < 3 && same; w++)
            same = part(i, w) && part(k, w) && strcmp(part(i, w), part(k, w)) == 0;
        if (same) return true;
    }
    return false;
}

/* Each part once, in the order of the table. */
static void add_parts(ms_buf *b, const bool *chosen, size_t which) {
    for (size_t i = 0; i < NSUITES; i++) {
        if (!chosen[i]) continue;
        const char *p = part(i, which);
        if (!p) continue;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++) seen = chosen[j] && part(j, which) && strcmp(p, part(j, which)) == 0;
        if (!seen) ms_buf_printf(b, ":+%s", p);
    }
}

ms_rc ms_tls_priorities(const char *min_version, const char *cipher_suites, char *out, size_t n, char *extra,
                        size_t extra_n, ms_error *err) {
    size_t min = 2;
    if (min_version && *min_version) {
        for (min = 0; min < 4 && strcmp(versions[min], min_version) != 0; min++) {}
        if (min == 4)
            return ms_error_set(err, MS_EINVAL,
                                "--tls-min-version: unknown tls version \"%s\" (VersionTLS10, VersionTLS11, "
                                "VersionTLS12, VersionTLS13)",
                                min_version);
    }
    bool chosen[NSUITES] = {false}, any = false, tls12 = false;
    for (const char *p = cipher_suites ? cipher_suites : ""; *p;) {
        size_t len = strcspn(p, ",");
        int k = suite_index(p, len);
        if (k < 0 && len)
            return ms_error_set(err, MS_EINVAL, "--tls-cipher-suites: cipher suite \"%.*s\" not supported", (int)len,
                                p);
        if (k >= 0) {
            chosen[k] = any = true;
            tls12 |= suites[k].kx != NULL;
        }
        p += len + (p[len] == ',');
    }
    if (any && !tls12 && min < 3)
        return ms_error_set(err, MS_EINVAL,
                            "--tls-cipher-suites: no suite for TLS 1.2 (\"%s\" are TLS 1.3's); "
                            "add one or set --tls-min-version VersionTLS13",
                            cipher_suites);
    ms_buf b = {0};
    ms_buf_puts(&b, "NORMAL:-VERS-ALL");
    for (size_t v = 4; v-- > min;) ms_buf_printf(&b, ":%s", gnutls_versions[v]);
    if (any) {
        ms_buf_puts(&b, ":-KX-ALL:-CIPHER-ALL:-MAC-ALL");
        for (size_t which = 0; which < 3; which++) add_parts(&b, chosen, which);
    }
    if (extra && extra_n) extra[0] = '\0';
    if (any && extra) {
        ms_buf x = {0};
        for (size_t i = 0; i < NSUITES; i++)
            if (!chosen[i] && suites[i].kx && chosen_part(chosen, 0, i) && chosen_part(chosen, 1, i) &&
                chosen_part(chosen, 2, i) && !same_as_chosen(chosen, i))
                ms_buf_printf(&x, "%s%s", x.len ? "," : "", suites[i].name);
        snprintf(extra, extra_n, "%s", x.len ? x.data : "");
        ms_buf_free(&x);
    }
    bool fits = !b.failed && b.len < n;
    if (fits) memcpy(out, b.data, b.len + 1);
    ms_buf_free(&b);
    return fits ? MS_OK : ms_error_set(err, MS_ENOMEM, "TLS priorities: out of memory");
}
