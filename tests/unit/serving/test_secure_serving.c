#include "testutil.h"

#include <curl/curl.h>
#include <gnutls/x509.h>

#include "fake_reviews.h"
#include "base/buf.h"
#include "serving/secure_serving.h"
#include "serving/serving_cert.h"

static const ms_logger quiet = {.level = -1};

static void serve(void *ctx, const char *path, ms_http_answer *out) {
    (void)ctx;
    out->status = strcmp(path, "/metrics") == 0 || strcmp(path, "/healthz") == 0 ? 200 : 404;
    out->body = strdup(out->status == 200 ? "ok\n" : "not found\n");
}

typedef struct fixture {
    fake_reviews fr;
    fake_http *srv;
    ms_kubeconfig kc;
    ms_secure_serving *s;
} fixture;

static int fx_setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    f->srv = fh_start(fr_handler, &f->fr);
    f->kc.server = strdup(f->srv->url);
    ms_secure_serving_options o = {.bind_address = "127.0.0.1", .authn_config = &f->kc, .authz_config = &f->kc,
                                   .handler = serve, .log = &quiet};
    ms_error err = {0};
    if (ms_secure_serving_start(&o, &f->s, &err) != MS_OK) fail_msg("start: %s", err.msg);
    *state = f;
    return 0;
}

static int fx_teardown(void **state) {
    fixture *f = *state;
    ms_secure_serving_stop(f->s);
    fh_stop(f->srv);
    ms_kubeconfig_free(&f->kc);
    free(f);
    return 0;
}

static size_t collect(char *p, size_t size, size_t n, void *ctx) {
    ms_buf_append(ctx, p, size * n);
    return size * n;
}

/* "STATUS BODY" of a GET over HTTPS (the certificate is not checked). */
static char *get(fixture *f, const char *path, const char *token) {
    static char out[1024];
    char url[128], auth[128];
    snprintf(url, sizeof url, "https://127.0.0.1:%u%s", ms_secure_serving_port(f->s), path);
    CURL *c = curl_easy_init();
    ms_buf b = {0};
    struct curl_slist *h = NULL;
    if (token) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
        h = curl_slist_append(h, auth);
    }
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
    CURLcode rc = curl_easy_perform(c);
    long status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    snprintf(out, sizeof out, "%ld %s", rc == CURLE_OK ? status : -1, b.data ? b.data : "");
    ms_buf_free(&b);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    return out;
}

static void test_answers(void **state) {
    fixture *f = *state;
    assert_string_equal(get(f, "/healthz", NULL), "200 ok\n");
    assert_string_equal(get(f, "/metrics", NULL),
                        "403 {\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                        "\"message\":\"forbidden: User \\\"system:anonymous\\\" cannot get path \\\"/metrics\\\"\","
                        "\"reason\":\"Forbidden\",\"details\":{},\"code\":403}\n");
    assert_string_equal(get(f, "/metrics", "good"), "200 ok\n");
    assert_string_equal(get(f, "/healthz", "bad"),
                        "401 {\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                        "\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}\n");
    assert_string_equal(get(f, "/metrics", "boom"), get(f, "/healthz", "bad"));
    /* the review's reason follows the message; a client's <&> is escaped */
    assert_string_equal(get(f, "/reason", "good"),
                        "403 {\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                        "\"message\":\"forbidden: User \\\"alice\\\" cannot get path \\\"/reason\\\": no way\","
                        "\"reason\":\"Forbidden\",\"details\":{},\"code\":403}\n");
    assert_non_null(strstr(get(f, "/a%3Cb", NULL), "cannot get path \\\"/a\\u0026lt;b\\\"\""));
    assert_string_equal(get(f, "/err?x=1", "good"),
                        "500 Internal Server Error: \"/err?x=1\": SubjectAccessReview: HTTP 500: no etcd\n");
    /* authorized, then the handler: 404 */
    assert_string_equal(get(f, "/nothing", "sa"), "403 {\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
                                                  "\"status\":\"Failure\",\"message\":\"forbidden: User "
                                                  "\\\"system:serviceaccount:ns:sa\\\" cannot get path "
                                                  "\\\"/nothing\\\"\",\"reason\":\"Forbidden\",\"details\":{},"
                                                  "\"code\":403}\n");
}

static void test_self_signed(void **state) {
    (void)state;
    ms_serving_cert c;
    ms_error err = {0};
    const char *ips[] = {"127.0.0.1", "10.1.2.3"}, *dns[] = {"localhost"};
    assert_int_equal(ms_serving_cert_self_signed("localhost", ips, 2, dns, 1, &c, &err), MS_OK);
    gnutls_x509_crt_t crt[4];
    unsigned n = 4;
    gnutls_datum_t d = {(unsigned char *)c.cert_pem, (unsigned)strlen(c.cert_pem)};
    assert_int_equal(gnutls_x509_crt_list_import(crt, &n, &d, GNUTLS_X509_FMT_PEM, 0), 2);
    char dn[256];
    size_t dl = sizeof dn;
    gnutls_x509_crt_get_dn_by_oid(crt[0], GNUTLS_OID_X520_COMMON_NAME, 0, 0, dn, &dl);
    assert_int_equal(strncmp(dn, "localhost@", 10), 0);
    dl = sizeof dn;
    gnutls_x509_crt_get_dn_by_oid(crt[1], GNUTLS_OID_X520_COMMON_NAME, 0, 0, dn, &dl);
    assert_int_equal(strncmp(dn, "localhost-ca@", 13), 0);
    unsigned status = 1;
    assert_int_equal(gnutls_x509_crt_list_verify(crt, 1, &crt[1], 1, NULL, 0, 0, &status), 0);
    assert_int_equal(status, 0);   /* the CA signed the certificate */
    assert_true(gnutls_x509_crt_check_ip(crt[0], (const unsigned char[]){10, 1, 2, 3}, 4, 0));
    assert_true(gnutls_x509_crt_check_hostname(crt[0], "localhost"));
    for (unsigned i = 0; i < n; i++) gnutls_x509_crt_deinit(crt[i]);
    ms_serving_cert_free(&c);
}

/* Whether the certificate served on port has subject text `cn`. */
static bool serves(uint16_t port, const char *cn) {
    char url[64];
    snprintf(url, sizeof url, "https://127.0.0.1:%u/healthz", port);
    CURL *c = curl_easy_init();
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
    curl_easy_setopt(c, CURLOPT_CERTINFO, 1L);
    curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    bool found = false;
    struct curl_certinfo *ci = NULL;
    if (curl_easy_perform(c) == CURLE_OK && curl_easy_getinfo(c, CURLINFO_CERTINFO, &ci) == CURLE_OK && ci)
        for (struct curl_slist *l = ci->num_of_certs ? ci->certinfo[0] : NULL; l; l = l->next)
            if (strncmp(l->data, "Subject:", 8) == 0 && strstr(l->data, cn)) found = true;
    curl_easy_cleanup(c);
    return found;
}

/* Files: a pair that belongs together is served, and served anew when the
 * files are replaced; one that does not, or a certificate without its key,
 * is refused at start. */
static void test_files(void **state) {
    fixture *f = *state;
    ms_serving_cert a, b;
    ms_error err = {0};
    const char *ips[] = {"127.0.0.1"};
    assert_int_equal(ms_serving_cert_self_signed("test", ips, 1, NULL, 0, &a, &err), MS_OK);
    assert_int_equal(ms_serving_cert_self_signed("other", ips, 1, NULL, 0, &b, &err), MS_OK);
    char dir[] = "/tmp/ms-serving-XXXXXX", crt[64], key[64], key2[64];
    assert_non_null(mkdtemp(dir));
    snprintf(crt, sizeof crt, "%s/tls.crt", dir);
    snprintf(key, sizeof key, "%s/tls.key", dir);
    snprintf(key2, sizeof key2, "%s/other.key", dir);
    FILE *fp = fopen(crt, "w");
    fputs(a.cert_pem, fp);
    fclose(fp);
    fp = fopen(key, "w");
    fputs(a.key_pem, fp);
    fclose(fp);
    fp = fopen(key2, "w");
    fputs(b.key_pem, fp);
    fclose(fp);
    ms_secure_serving *s = NULL;
    ms_secure_serving_options o = {.bind_address = "127.0.0.1", .cert_file = crt, .key_file = key2,
                                   .authn_config = &f->kc, .authz_config = &f->kc, .handler = serve, .log = &quiet};
    assert_int_equal(ms_secure_serving_start(&o, &s, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "--tls-cert-file"));
    o.key_file = NULL;
    assert_int_equal(ms_secure_serving_start(&o, &s, &err), MS_EINVAL);
    assert_string_equal(err.msg, "--tls-cert-file and --tls-private-key-file go together: no key");
    o.key_file = key;
    o.bind_address = "localhost";
    assert_int_equal(ms_secure_serving_start(&o, &s, &err), MS_EINVAL);
    assert_string_equal(err.msg, "--bind-address \"localhost\": not an IP address");
    o.bind_address = "127.0.0.1";
    assert_int_equal(ms_secure_serving_start(&o, &s, &err), MS_OK);
    /* the served certificate is the file's */
    assert_true(serves(ms_secure_serving_port(s), "CN = test@"));
    /* files replaced under the running server, as cert-manager rotates
     * them: the new pair is served, on the same port */
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%s/new", dir);
    const char *pems[2] = {b.key_pem, b.cert_pem}, *paths[2] = {key, crt};
    for (int i = 0; i < 2; i++) {
        fp = fopen(tmp, "w");
        fputs(pems[i], fp);
        fclose(fp);
        assert_int_equal(rename(tmp, paths[i]), 0);
    }
    bool rotated = false;
    for (int i = 0; i < 300 && !rotated; i++) {
        rotated = serves(ms_secure_serving_port(s), "CN = other@");
        if (!rotated) usleep(100000);
    }
    assert_true(rotated);
    ms_secure_serving_stop(s);
    unlink(crt);
    unlink(key);
    unlink(key2);
    rmdir(dir);
    ms_serving_cert_free(&a);
    ms_serving_cert_free(&b);
}

/* The TLS version and cipher of a handshake with /healthz limited to
 * max_version (CURL_SSLVERSION_MAX_*) and ciphers (OpenSSL's names, or
 * NULL), or "refused". */
static const char *handshake(uint16_t port, long max_version, const char *ciphers) {
    static char out[128];
    char url[64];
    snprintf(url, sizeof url, "https://127.0.0.1:%u/healthz", port);
    CURL *c = curl_easy_init();
    ms_buf b = {0};
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
    curl_easy_setopt(c, CURLOPT_SSLVERSION, CURL_SSLVERSION_TLSv1_2 | max_version);
    if (ciphers) curl_easy_setopt(c, CURLOPT_SSL_CIPHER_LIST, ciphers);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
    curl_easy_setopt(c, CURLOPT_CERTINFO, 1L);
    snprintf(out, sizeof out, "%s", curl_easy_perform(c) == CURLE_OK ? "served" : "refused");
    ms_buf_free(&b);
    curl_easy_cleanup(c);
    return out;
}

static ms_secure_serving *start_tls(fixture *f, const char *min_version, const char *suites) {
    ms_secure_serving_options o = {.bind_address = "127.0.0.1", .authn_config = &f->kc, .authz_config = &f->kc,
                                   .handler = serve, .log = &quiet, .tls_min_version = min_version,
                                   .tls_cipher_suites = suites};
    ms_secure_serving *s = NULL;
    ms_error err = {0};
    if (ms_secure_serving_start(&o, &s, &err) != MS_OK) fail_msg("start: %s", err.msg);
    return s;
}

/* --tls-min-version and --tls-cipher-suites reach the handshake. */
static void test_tls_version_and_suites(void **state) {
    fixture *f = *state;
    uint16_t port = ms_secure_serving_port(f->s);
    assert_string_equal(handshake(port, CURL_SSLVERSION_MAX_TLSv1_2, NULL), "served");
    ms_secure_serving *s = start_tls(f, "VersionTLS13", NULL);
    port = ms_secure_serving_port(s);
    assert_string_equal(handshake(port, CURL_SSLVERSION_MAX_TLSv1_2, NULL), "refused");
    assert_string_equal(handshake(port, CURL_SSLVERSION_MAX_TLSv1_3, NULL), "served");
    ms_secure_serving_stop(s);
    s = start_tls(f, NULL, "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384");
    port = ms_secure_serving_port(s);
    assert_string_equal(handshake(port, CURL_SSLVERSION_MAX_TLSv1_2, "ECDHE-RSA-AES256-GCM-SHA384"), "served");
    assert_string_equal(handshake(port, CURL_SSLVERSION_MAX_TLSv1_2, "ECDHE-RSA-AES128-GCM-SHA256"), "refused");
    ms_secure_serving_stop(s);
}

int main(void) {
    curl_global_init(CURL_GLOBAL_DEFAULT);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_answers, fx_setup, fx_teardown),
        cmocka_unit_test(test_self_signed),
        cmocka_unit_test_setup_teardown(test_files, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_tls_version_and_suites, fx_setup, fx_teardown),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}
