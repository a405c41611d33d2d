/* The HTTPS certificate: loaded and checked, or generated with GnuTLS.
 * See serving/serving_cert.h. */
#include "serving/serving_cert.h"

#include <arpa/inet.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "moonsched/decode.h"

enum { MAX_PEM = 1 << 20, KEY_BITS = 2048 };

void ms_serving_cert_free(ms_serving_cert *c) {
    if (!c) return;
    free(c->cert_pem);
    free(c->key_pem);
    c->cert_pem = c->key_pem = NULL;
}

ms_rc ms_serving_cert_load(const char *cert_file, const char *key_file, ms_serving_cert *out, ms_error *err) {
    memset(out, 0, sizeof *out);
    size_t clen = 0, klen = 0;
    ms_rc rc = ms_read_file(cert_file, MAX_PEM, &out->cert_pem, &clen, err);
    if (rc == MS_OK) rc = ms_read_file(key_file, MAX_PEM, &out->key_pem, &klen, err);
    if (rc != MS_OK) {
        ms_serving_cert_free(out);
        return rc;
    }
    /* What the server will do with them, so that a wrong pair fails here
     * with GnuTLS's reason instead of in the server's start. */
    gnutls_certificate_credentials_t cred;
    if (gnutls_certificate_allocate_credentials(&cred) < 0) {
        ms_serving_cert_free(out);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    gnutls_datum_t c = {(unsigned char *)out->cert_pem, (unsigned)clen};
    gnutls_datum_t k = {(unsigned char *)out->key_pem, (unsigned)klen};
    int g = gnutls_certificate_set_x509_key_mem2(cred, &c, &k, GNUTLS_X509_FMT_PEM, NULL, 0);
    gnutls_certificate_free_credentials(cred);
    if (g < 0) {
        ms_serving_cert_free(out);
        return ms_error_set(err, MS_EINVAL, "--tls-cert-file %s, --tls-private-key-file %s: %s", cert_file,
                            key_file, gnutls_strerror(g));
    }
    return MS_OK;
}

/* ---- generation ---------------------------------------------------------- */

typedef struct gen {
    gnutls_x509_privkey_t ca_key, key;
    gnutls_x509_crt_t ca, crt;
} gen;

static void gen_free(gen *g) {
    if (g->ca_key) gnutls_x509_privkey_deinit(g->ca_key);
    if (g->key) gnutls_x509_privkey_deinit(g->key);
    if (g->ca) gnutls_x509_crt_deinit(g->ca);
    if (g->crt) gnutls_x509_crt_deinit(g->crt);
}

/* What both certificates share: version, serial, name, validity, key. */
static int crt_common(gnutls_x509_crt_t c, unsigned char serial, const char *cn, time_t from,
                      gnutls_x509_privkey_t key) {
    int g;
    if ((g = gnutls_x509_crt_set_version(c, 3)) < 0 || (g = gnutls_x509_crt_set_serial(c, &serial, 1)) < 0 ||
        (g = gnutls_x509_crt_set_dn_by_oid(c, GNUTLS_OID_X520_COMMON_NAME, 0, cn, (unsigned)strlen(cn))) < 0 ||
        (g = gnutls_x509_crt_set_activation_time(c, from)) < 0 ||
        (g = gnutls_x509_crt_set_expiration_time(c, from + 365 * 24 * 3600)) < 0)
        return g;
    return gnutls_x509_crt_set_key(c, key);
}

static int add_sans(gnutls_x509_crt_t c, const char *const *ips, size_t nips, const char *const *dns, size_t ndns) {
    int g = 0;
    for (size_t i = 0; g >= 0 && i < ndns; i++)
        g = gnutls_x509_crt_set_subject_alt_name(c, GNUTLS_SAN_DNSNAME, dns[i], (unsigned)strlen(dns[i]),
                                                 GNUTLS_FSAN_APPEND);
    for (size_t i = 0; g >= 0 && i < nips; i++) {
        unsigned char a[16];
        unsigned n = inet_pton(AF_INET, ips[i], a) == 1 ? 4 : inet_pton(AF_INET6, ips[i], a) == 1 ? 16 : 0;
        if (n) g = gnutls_x509_crt_set_subject_alt_name(c, GNUTLS_SAN_IPADDRESS, a, n, GNUTLS_FSAN_APPEND);
    }
    return g;
}

static int make(gen *g, const char *host, const char *const *ips, size_t nips, const char *const *dns, size_t ndns) {
    time_t now = time(NULL), from = now - 3600;   /* an hour early: clock skew */
    char ca_cn[300], cn[300];
    snprintf(ca_cn, sizeof ca_cn, "%s-ca@%lld", host, (long long)now);
    snprintf(cn, sizeof cn, "%s@%lld", host, (long long)now);
    unsigned char skid[64];
    size_t skid_len = sizeof skid;
    int r;
    if ((r = gnutls_x509_privkey_init(&g->ca_key)) < 0 || (r = gnutls_x509_privkey_init(&g->key)) < 0 ||
        (r = gnutls_x509_crt_init(&g->ca)) < 0 || (r = gnutls_x509_crt_init(&g->crt)) < 0 ||
        (r = gnutls_x509_privkey_generate(g->ca_key, GNUTLS_PK_RSA, KEY_BITS, 0)) < 0 ||
        (r = gnutls_x509_privkey_generate(g->key, GNUTLS_PK_RSA, KEY_BITS, 0)) < 0)
        return r;
    if ((r = crt_common(g->ca, 1, ca_cn, from, g->ca_key)) < 0 ||
        (r = gnutls_x509_crt_set_basic_constraints(g->ca, 1, -1)) < 0 ||
        (r = gnutls_x509_crt_set_key_usage(g->ca, GNUTLS_KEY_KEY_ENCIPHERMENT | GNUTLS_KEY_DIGITAL_SIGNATURE |
                                                      GNUTLS_KEY_KEY_CERT_SIGN)) < 0 ||
        (r = gnutls_x509_crt_get_key_id(g->ca, 0, skid, &skid_len)) < 0 ||
        (r = gnutls_x509_crt_set_subject_key_id(g->ca, skid, skid_len)) < 0 ||
        (r = gnutls_x509_crt_sign2(g->ca, g->ca, g->ca_key, GNUTLS_DIG_SHA256, 0)) < 0)
        return r;
    if ((r = crt_common(g->crt, 2, cn, from, g->key)) < 0 ||
        (r = gnutls_x509_crt_set_basic_constraints(g->crt, 0, -1)) < 0 ||
        (r = gnutls_x509_crt_set_key_usage(g->crt, GNUTLS_KEY_KEY_ENCIPHERMENT | GNUTLS_KEY_DIGITAL_SIGNATURE)) < 0 ||
        (r = gnutls_x509_crt_set_key_purpose_oid(g->crt, GNUTLS_KP_TLS_WWW_SERVER, 0)) < 0 ||
        (r = gnutls_x509_crt_set_authority_key_id(g->crt, skid, skid_len)) < 0 ||
        (r = add_sans(g->crt, ips, nips, dns, ndns)) < 0)
        return r;
    return gnutls_x509_crt_sign2(g->crt, g->ca, g->ca_key, GNUTLS_DIG_SHA256, 0);
}

/* PEM of the certificate then the CA, and of the key. */
static int export(gen *g, ms_serving_cert *out) {
    gnutls_datum_t c = {0}, ca = {0}, k = {0};
    int r;
    if ((r = gnutls_x509_crt_export2(g->crt, GNUTLS_X509_FMT_PEM, &c)) >= 0 &&
        (r = gnutls_x509_crt_export2(g->ca, GNUTLS_X509_FMT_PEM, &ca)) >= 0 &&
        (r = gnutls_x509_privkey_export2(g->key, GNUTLS_X509_FMT_PEM, &k)) >= 0) {
        out->cert_pem = malloc((size_t)c.size + ca.size + 1);
        out->key_pem = strndup((const char *)k.data, k.size);
        if (out->cert_pem) {
            memcpy(out->cert_pem, c.data, c.size);
            memcpy(out->cert_pem + c.size, ca.data, ca.size);
            out->cert_pem[c.size + ca.size] = 0;
        }
        if (!out->cert_pem || !out->key_pem) r = GNUTLS_E_MEMORY_ERROR;
    }
    gnutls_free(c.data);
    gnutls_free(ca.data);
    gnutls_free(k.data);
    return r;
}

ms_rc ms_serving_cert_self_signed(const char *host, const char *const *ips, size_t nips,
                                  const char *const *dns, size_t ndns, ms_serving_cert *out, ms_error *err) {
    memset(out, 0, sizeof *out);
    gen g = {0};
    int r = make(&g, host, ips, nips, dns, ndns);
    if (r >= 0) r = export(&g, out);
    gen_free(&g);
    if (r < 0) {
        ms_serving_cert_free(out);
        return ms_error_set(err, r == GNUTLS_E_MEMORY_ERROR ? MS_ENOMEM : MS_EIO,
                            "generating a self-signed certificate: %s", gnutls_strerror(r));
    }
    return MS_OK;
}
