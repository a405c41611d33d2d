/* Client certificates verified against --client-ca-file. See
 * serving/client_ca.h. */
#include "serving/client_ca.h"

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <stdlib.h>
#include <string.h>

#include "moonsched/decode.h"

enum { MAX_PEM = 1 << 20, MAX_CHAIN = 16 };

struct ms_client_ca {
    char *pem;
    gnutls_x509_trust_list_t trust;
};

ms_rc ms_client_ca_load(const char *path, ms_client_ca **out, ms_error *err) {
    *out = NULL;
    ms_client_ca *ca = calloc(1, sizeof *ca);
    if (!ca) return ms_error_set(err, MS_ENOMEM, "out of memory");
    size_t len = 0;
    ms_rc rc = ms_read_file(path, MAX_PEM, &ca->pem, &len, err);
    if (rc == MS_OK && gnutls_x509_trust_list_init(&ca->trust, 0) < 0)
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    if (rc == MS_OK) {
        gnutls_datum_t d = {(unsigned char *)ca->pem, (unsigned)len};
        int n = gnutls_x509_trust_list_add_trust_mem(ca->trust, &d, NULL, GNUTLS_X509_FMT_PEM, 0, 0);
        if (n <= 0)
            rc = ms_error_set(err, MS_EINVAL, "--client-ca-file %s: %s", path,
                              n < 0 ? gnutls_strerror(n) : "no certificate in it");
    }
    if (rc != MS_OK) {
        ms_client_ca_free(ca);
        return rc;
    }
    *out = ca;
    return MS_OK;
}

void ms_client_ca_free(ms_client_ca *ca) {
    if (!ca) return;
    if (ca->trust) gnutls_x509_trust_list_deinit(ca->trust, 1);
    free(ca->pem);
    free(ca);
}

const char *ms_client_ca_pem(const ms_client_ca *ca) { return ca->pem; }

/* The n-th value of a subject attribute; false when there is none. */
static bool subject_value(gnutls_x509_crt_t crt, const char *oid, unsigned n, char *out, size_t size) {
    size_t len = size;
    return gnutls_x509_crt_get_dn_by_oid(crt, oid, n, 0, out, &len) == 0;
}

static ms_rc user_of(gnutls_x509_crt_t leaf, cJSON **user, ms_error *err) {
    char value[1024];
    if (!subject_value(leaf, GNUTLS_OID_X520_COMMON_NAME, 0, value, sizeof value) || !value[0])
        return ms_error_set(err, MS_ENOENT, "the client certificate has no Common Name");
    cJSON *u = cJSON_CreateObject(), *groups = NULL;
    bool ok = u && cJSON_AddStringToObject(u, "username", value) && (groups = cJSON_AddArrayToObject(u, "groups"));
    for (unsigned i = 0; ok && subject_value(leaf, GNUTLS_OID_X520_ORGANIZATION_NAME, i, value, sizeof value); i++) {
        cJSON *g = cJSON_CreateString(value);
        ok = g && cJSON_AddItemToArray(groups, g);
    }
    if (!ok) {
        cJSON_Delete(u);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    *user = u;
    return MS_OK;
}

ms_rc ms_client_ca_user(const ms_client_ca *ca, void *tls_session, cJSON **user, ms_error *err) {
    *user = NULL;
    unsigned n = 0;
    const gnutls_datum_t *der = tls_session ? gnutls_certificate_get_peers(tls_session, &n) : NULL;
    if (!der || !n) return ms_error_set(err, MS_ENOENT, "no client certificate");
    if (n > MAX_CHAIN) n = MAX_CHAIN;
    gnutls_x509_crt_t chain[MAX_CHAIN];
    unsigned have = 0;
    ms_rc rc = MS_OK;
    for (; have < n && rc == MS_OK; have++) {
        if (gnutls_x509_crt_init(&chain[have]) < 0) {
            rc = ms_error_set(err, MS_ENOMEM, "out of memory");
            break;
        }
        if (gnutls_x509_crt_import(chain[have], &der[have], GNUTLS_X509_FMT_DER) < 0)
            rc = ms_error_set(err, MS_EINVAL, "the client certificate cannot be read");
    }
    if (rc == MS_OK) {
        /* upstream's x509 options: KeyUsages ExtKeyUsageClientAuth */
        gnutls_typed_vdata_st purpose = {.type = GNUTLS_DT_KEY_PURPOSE_OID,
                                         .data = (unsigned char *)GNUTLS_KP_TLS_WWW_CLIENT};
        unsigned status = 0;
        int g = gnutls_x509_trust_list_verify_crt2(ca->trust, chain, n, &purpose, 1, 0, &status, NULL);
        if (g < 0 || status) {
            gnutls_datum_t why = {0};
            if (g >= 0) gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &why, 0);
            char dn[256] = "";
            size_t dnlen = sizeof dn;
            gnutls_x509_crt_get_dn(chain[0], dn, &dnlen);
            rc = ms_error_set(err, MS_EINVAL, "verifying certificate %s failed: %s", dn,
                              g < 0 ? gnutls_strerror(g) : why.data ? (const char *)why.data : "not trusted");
            gnutls_free(why.data);
        }
    }
    if (rc == MS_OK) rc = user_of(chain[0], user, err);
    for (unsigned i = 0; i < have; i++) gnutls_x509_crt_deinit(chain[i]);
    return rc;
}
