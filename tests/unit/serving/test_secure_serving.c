#include "testutil.h"

#include <curl/curl.h>
#include <gnutls/x509.h>

#include "fake_reviews.h"
#include "base/buf.h"
#include "metrics_states.h"
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

/* "STATUS BODY" of a GET over HTTPS (the certificate is not checked) with
 * a client certificate (files; NULL: none), a token (NULL: none), from a
 * source address (NULL: the default). */
static char *get_as(uint16_t port, const char *path, const char *cert, const char *key, const char *token,
                    const char *source) {
    static char out[1024];
    char url[128], auth[128];
    snprintf(url, sizeof url, "https://127.0.0.1:%u%s", port, path);
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
    if (cert) curl_easy_setopt(c, CURLOPT_SSLCERT, cert);
    if (key) curl_easy_setopt(c, CURLOPT_SSLKEY, key);
    if (source) curl_easy_setopt(c, CURLOPT_INTERFACE, source);
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

static char *get(fixture *f, const char *path, const char *token) {
    return get_as(ms_secure_serving_port(f->s), path, NULL, NULL, token, NULL);
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

/* The value of a moonsched_authentication_attempts_total series. */
static long attempts(ms_authn_metrics *m, const char *result) {
    size_t len;
    char *t = metrics_render_one(ms_authn_metrics_collect, m, &len), key[96];
    snprintf(key, sizeof key, "moonsched_authentication_attempts_total{result=\"%s\"}", result);
    long n = (long)tu_series(t, key);
    free(t);
    return n;
}

#define UNAUTHORIZED                                                                                          \
    "401 {\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":"    \
    "\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}\n"

/* Certificates made with openssl in dir: ca.crt; alice.crt (CN alice, O
 * devs and O ops, for client authentication, signed by ca); server.crt
 * (signed by ca, for server authentication only); rogue.crt (CN alice,
 * signed by another CA); nocn.crt (no Common Name, signed by ca). Each
 * with its .key. */
static void make_certs(const char *dir) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "cd %s && {\n"
             "openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 1 -subj /CN=test-ca\n"
             "openssl req -x509 -newkey rsa:2048 -nodes -keyout other.key -out other.crt -days 1 -subj /CN=other\n"
             "mk() { openssl req -newkey rsa:2048 -nodes -keyout $1.key -out $1.csr -subj \"$2\" &&\n"
             "  printf 'extendedKeyUsage=%%s\\n' $3 >$1.ext &&\n"
             "  openssl x509 -req -in $1.csr -CA $4.crt -CAkey $4.key -CAcreateserial -days 1 -extfile $1.ext "
             "-out $1.crt; }\n"
             "mk alice /O=devs/O=ops/CN=alice clientAuth ca\n"
             "mk server /CN=alice serverAuth ca\n"
             "mk rogue /CN=alice clientAuth other\n"
             "mk nocn /O=devs clientAuth ca\n"
             "} >/dev/null 2>&1",
             dir);
    assert_int_equal(system(cmd), 0);
}

/* --client-ca-file: a certificate the CA signed for client authentication
 * is its Common Name, in its Organizations' groups, before any token; one
 * that does not verify is a 401; none, or one without a name, leaves the
 * request to the token. */
static void test_client_certificates(void **state) {
    fixture *f = *state;
    char dir[] = "/tmp/ms-client-ca-XXXXXX", ca[64], crt[64], key[64];
    assert_non_null(mkdtemp(dir));
    make_certs(dir);
    snprintf(ca, sizeof ca, "%s/ca.crt", dir);
    ms_authn_metrics *m = ms_authn_metrics_new();
    ms_secure_serving_options o = {.bind_address = "127.0.0.1", .authn_config = &f->kc, .authz_config = &f->kc,
                                   .handler = serve, .log = &quiet, .client_ca_file = ca, .metrics = m};
    ms_secure_serving *s = NULL;
    ms_error err = {0};
    assert_int_equal(ms_secure_serving_start(&o, &s, &err), MS_OK);
    uint16_t port = ms_secure_serving_port(s);
#define AS(name, token) \
    (snprintf(crt, sizeof crt, "%s/%s.crt", dir, name), snprintf(key, sizeof key, "%s/%s.key", dir, name), \
     get_as(port, "/metrics", crt, key, token, NULL))
    /* alice may get /metrics (the fake's access rule): no TokenReview */
    assert_string_equal(AS("alice", NULL), "200 ok\n");
    assert_string_equal(AS("alice", "bad"), "200 ok\n");
    assert_int_equal(atomic_load(&f->fr.token_reviews), 0);
    /* the review asked: user alice, groups devs, ops, system:authenticated */
    const fh_request *r = &f->srv->reqs[f->srv->nreqs - 1];
    assert_non_null(strstr(r->body, "\"user\":\"alice\",\"groups\":[\"devs\",\"ops\",\"system:authenticated\"]"));
    assert_string_equal(AS("rogue", NULL), UNAUTHORIZED);
    assert_string_equal(AS("rogue", "good"), UNAUTHORIZED);
    assert_string_equal(AS("server", NULL), UNAUTHORIZED);
    assert_int_equal(atomic_load(&f->fr.token_reviews), 0);
    /* no name: the token decides, else anonymous */
    assert_string_equal(AS("nocn", "good"), "200 ok\n");
    assert_non_null(strstr(AS("nocn", NULL), "403 "));
    assert_string_equal(get_as(port, "/metrics", NULL, NULL, "good", NULL), "200 ok\n");
    assert_string_equal(get_as(port, "/healthz", NULL, NULL, NULL, NULL), "200 ok\n");
#undef AS
    assert_int_equal(attempts(m, "failure"), 3);
    assert_int_equal(attempts(m, "success"), 6);
    ms_secure_serving_stop(s);
    /* a file without a certificate: refused at start */
    snprintf(key, sizeof key, "%s/ca.key", dir);
    o.client_ca_file = key;
    assert_int_equal(ms_secure_serving_start(&o, &s, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "--client-ca-file"));
    ms_authn_metrics_free(m);
    tu_rmtree(dir);
}

/* The serving certificate replaced under the running server: the new
 * daemon asks for client certificates as the first did. */
static void test_client_ca_after_rotation(void **state) {
    fixture *f = *state;
    char dir[] = "/tmp/ms-client-ca-XXXXXX", ca[64], crt[64], key[64], tls_crt[64], tls_key[64];
    assert_non_null(mkdtemp(dir));
    make_certs(dir);
    snprintf(ca, sizeof ca, "%s/ca.crt", dir);
    snprintf(crt, sizeof crt, "%s/alice.crt", dir);
    snprintf(key, sizeof key, "%s/alice.key", dir);
    snprintf(tls_crt, sizeof tls_crt, "%s/tls.crt", dir);
    snprintf(tls_key, sizeof tls_key, "%s/tls.key", dir);
    ms_serving_cert a, b;
    ms_error err = {0};
    const char *ips[] = {"127.0.0.1"};
    assert_int_equal(ms_serving_cert_self_signed("first", ips, 1, NULL, 0, &a, &err), MS_OK);
    assert_int_equal(ms_serving_cert_self_signed("second", ips, 1, NULL, 0, &b, &err), MS_OK);
    tu_replace(tls_crt, a.cert_pem);
    tu_replace(tls_key, a.key_pem);
    ms_secure_serving_options o = {.bind_address = "127.0.0.1", .authn_config = &f->kc, .authz_config = &f->kc,
                                   .handler = serve, .log = &quiet, .client_ca_file = ca, .cert_file = tls_crt,
                                   .key_file = tls_key};
    ms_secure_serving *s = NULL;
    assert_int_equal(ms_secure_serving_start(&o, &s, &err), MS_OK);
    uint16_t port = ms_secure_serving_port(s);
    assert_string_equal(get_as(port, "/metrics", crt, key, NULL, NULL), "200 ok\n");
    tu_replace(tls_key, b.key_pem);
    tu_replace(tls_crt, b.cert_pem);
    bool rotated = false;
    for (int i = 0; i < 300 && !rotated; i++) {
        rotated = serves(port, "CN = second@");
        if (!rotated) usleep(100000);
    }
    assert_true(rotated);
    assert_string_equal(get_as(port, "/metrics", crt, key, NULL, NULL), "200 ok\n");
    assert_int_equal(atomic_load(&f->fr.token_reviews), 0);
    ms_secure_serving_stop(s);
    ms_serving_cert_free(&a);
    ms_serving_cert_free(&b);
    tu_rmtree(dir);
}

/* A client sending bad tokens: after the budget, its tokens are refused
 * without a review; another address is not held back. */
static void test_failed_authentications_limited(void **state) {
    fixture *f = *state;
    ms_authn_metrics *m = ms_authn_metrics_new();
    /* a window longer than the test: the count cannot depend on its speed */
    ms_secure_serving_options o = {.bind_address = "127.0.0.1", .authn_config = &f->kc, .authz_config = &f->kc,
                                   .handler = serve, .log = &quiet, .metrics = m, .auth_failure_max = 3,
                                   .auth_failure_window = 3600};
    ms_secure_serving *s = NULL;
    ms_error err = {0};
    assert_int_equal(ms_secure_serving_start(&o, &s, &err), MS_OK);
    uint16_t port = ms_secure_serving_port(s);
    for (int i = 0; i < 10; i++)
        assert_string_equal(get_as(port, "/healthz", NULL, NULL, i % 2 ? "bad" : "boom", "127.0.0.1"),
                            UNAUTHORIZED);
    /* ("boom" is a failed review: an error; "bad" a refused token) */
    assert_int_equal(atomic_load(&f->fr.token_reviews), 3);
    assert_int_equal(attempts(m, "error"), 2);
    assert_int_equal(attempts(m, "failure"), 1);
    assert_int_equal(attempts(m, "throttled"), 7);
    /* even a good token, from there, until the window ends */
    assert_string_equal(get_as(port, "/metrics", NULL, NULL, "good", "127.0.0.1"), UNAUTHORIZED);
    /* anonymous requests are not held back */
    assert_string_equal(get_as(port, "/healthz", NULL, NULL, NULL, "127.0.0.1"), "200 ok\n");
    /* another address */
    assert_string_equal(get_as(port, "/metrics", NULL, NULL, "good", "127.0.0.2"), "200 ok\n");
    assert_int_equal(atomic_load(&f->fr.token_reviews), 4);
    /* a cached answer needs no review: served from the held-back address too */
    assert_string_equal(get_as(port, "/metrics", NULL, NULL, "good", "127.0.0.1"), "200 ok\n");
    assert_int_equal(atomic_load(&f->fr.token_reviews), 4);
    ms_secure_serving_stop(s);
    ms_authn_metrics_free(m);
}

int main(void) {
    curl_global_init(CURL_GLOBAL_DEFAULT);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_answers, fx_setup, fx_teardown),
        cmocka_unit_test(test_self_signed),
        cmocka_unit_test_setup_teardown(test_files, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_tls_version_and_suites, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_client_certificates, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_client_ca_after_rotation, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_failed_authentications_limited, fx_setup, fx_teardown),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}
