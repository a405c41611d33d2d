/* HTTPS with delegated authentication and authorization. See
 * serving/secure_serving.h. */
#include "serving/secure_serving.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "client/kube_client.h"
#include "serving/auth_failures.h"
#include "serving/authenticator.h"
#include "serving/authorizer.h"
#include "serving/client_ca.h"
#include "serving/serving_cert.h"
#include "serving/tls_config.h"
#include "policy/file_watch.h"

struct ms_secure_serving {
    const ms_logger *log;
    ms_kube_cancel *cancel;
    ms_kube_client *authn_client, *authz_client;   /* the same one when shared */
    ms_authenticator *authn;
    ms_authorizer *authz;
    ms_client_ca *client_ca;       /* NULL: no --client-ca-file */
    ms_auth_failures *failures;
    ms_authn_metrics *metrics;
    ms_serving_cert cert;
    ms_http_server *http;
    /* --tls-cert-file and --tls-private-key-file, watched: a new pair is
     * served without a restart (upstream's DynamicServingContent). */
    char *cert_file, *key_file;
    ms_watch *watch;
};

/* ---- upstream's refusals (k8s.io/apiserver responsewriters) ---------------- */

/* Go's %q for the text the messages quote. */
static void go_quote(ms_buf *b, const char *s) {
    ms_buf_putc(b, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': ms_buf_puts(b, "\\\""); break;
        case '\\': ms_buf_puts(b, "\\\\"); break;
        case '\n': ms_buf_puts(b, "\\n"); break;
        case '\r': ms_buf_puts(b, "\\r"); break;
        case '\t': ms_buf_puts(b, "\\t"); break;
        default:
            if (*p < 0x20 || *p == 0x7f) ms_buf_printf(b, "\\x%02x", *p);
            else ms_buf_putc(b, (char)*p);
        }
    }
    ms_buf_putc(b, '"');
}

/* upstream's sanitizer: the messages may echo a path the client chose */
static void sanitize(ms_buf *b, const char *s) {
    for (; *s; s++) {
        if (*s == '&') ms_buf_puts(b, "&amp;");
        else if (*s == '<') ms_buf_puts(b, "&lt;");
        else if (*s == '>') ms_buf_puts(b, "&gt;");
        else ms_buf_putc(b, *s);
    }
}

/* A JSON string as Go's encoder writes it (HTML characters escaped). */
static void go_json_string(ms_buf *b, const char *s) {
    ms_buf_putc(b, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            ms_buf_putc(b, '\\');
            ms_buf_putc(b, (char)*p);
        } else if (*p == '\n') {
            ms_buf_puts(b, "\\n");
        } else if (*p == '\r') {
            ms_buf_puts(b, "\\r");
        } else if (*p == '\t') {
            ms_buf_puts(b, "\\t");
        } else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&') {
            ms_buf_printf(b, "\\u%04x", *p);
        } else {
            ms_buf_putc(b, (char)*p);
        }
    }
    ms_buf_putc(b, '"');
}

static void status_answer(ms_http_answer *out, unsigned code, ms_buf *b) {
    out->status = code;
    out->body = ms_buf_take(b);
    out->len = 0;
    out->content_type = "application/json";
    if (!out->body) out->status = 500;
}

void ms_secure_serving_unauthorized(ms_http_answer *out) {
    ms_buf b = {0};
    ms_buf_puts(&b, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                    "\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}\n");
    status_answer(out, 401, &b);
}

void ms_secure_serving_forbidden(ms_http_answer *out, const char *user, const char *verb, const char *path,
                                 const char *reason) {
    ms_buf m = {0}, msg = {0}, b = {0};
    ms_buf_puts(&m, "User ");
    go_quote(&m, user);
    ms_buf_printf(&m, " cannot %s path ", verb);
    go_quote(&m, path);
    ms_buf_puts(&msg, "forbidden: ");
    sanitize(&msg, m.data ? m.data : "");
    if (reason && *reason) ms_buf_printf(&msg, ": %s", reason);
    ms_buf_puts(&b, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":");
    go_json_string(&b, msg.data ? msg.data : "");
    ms_buf_puts(&b, ",\"reason\":\"Forbidden\",\"details\":{},\"code\":403}\n");
    if (m.failed || msg.failed) b.failed = true;
    ms_buf_free(&m);
    ms_buf_free(&msg);
    status_answer(out, 403, &b);
    out->nosniff = true;
}

void ms_secure_serving_internal_error(ms_http_answer *out, const char *uri, const char *why) {
    ms_buf m = {0}, b = {0};
    ms_buf_puts(&m, "Internal Server Error: ");
    go_quote(&m, uri);
    ms_buf_printf(&m, ": %s", why);
    sanitize(&b, m.data ? m.data : "");
    ms_buf_putc(&b, '\n');
    if (m.failed) b.failed = true;
    ms_buf_free(&m);
    out->status = 500;
    out->body = ms_buf_take(&b);
    out->len = 0;
    out->content_type = "text/plain; charset=utf-8";
    out->nosniff = true;
}

/* ---- the gate: authenticate, then authorize ---------------------------------- */

/* upstream's order: a client certificate, then a bearer token, else
 * anonymous; a certificate or a token that is refused is a 401. */
static ms_authn_result authenticate(ms_secure_serving *s, const ms_http_request *rq, cJSON **user, ms_error *e) {
    if (s->client_ca) {
        ms_rc rc = ms_client_ca_user(s->client_ca, rq->tls_session, user, e);
        if (rc == MS_OK) {
            ms_authenticated_group_add(*user);
            return MS_AUTHN_SUCCESS;
        }
        if (rc != MS_ENOENT) return rc == MS_EINVAL ? MS_AUTHN_FAILURE : MS_AUTHN_ERROR;
    }
    /* only reviews are limited: anonymous requests and cached answers
     * cost the API server nothing */
    double now = ms_monotonic_now(NULL);
    bool review = ms_authenticator_has_bearer(rq->authorization) &&
                  !ms_authenticator_answer_cached(s->authn, rq->authorization);
    if (review && !ms_auth_failures_allowed(s->failures, rq->peer, now)) {
        ms_error_set(e, MS_ESTATE, "too many failed authentications from this address: not reviewed");
        return MS_AUTHN_THROTTLED;
    }
    ms_rc rc = ms_authenticator_authenticate(s->authn, rq->authorization, user, e);
    if (rc == MS_OK) return MS_AUTHN_SUCCESS;
    if (review) ms_auth_failures_add(s->failures, rq->peer, now);
    return rc == MS_EINVAL ? MS_AUTHN_FAILURE : MS_AUTHN_ERROR;
}

static void gate(void *ctx, const ms_http_request *rq, ms_http_answer *out) {
    ms_secure_serving *s = ctx;
    cJSON *user = NULL;
    ms_error e = {0};
    ms_authn_result ar = authenticate(s, rq, &user, &e);
    ms_authn_metrics_attempt(s->metrics, ar);
    if (ar != MS_AUTHN_SUCCESS) {
        ms_log(s->log, MS_LOG_DEBUG, "unable to authenticate the request", "path", rq->path, "error", e.msg, NULL);
        ms_secure_serving_unauthorized(out);
        return;
    }
    char verb[16];
    size_t i = 0;
    for (; rq->method[i] && i + 1 < sizeof verb; i++) verb[i] = (char)tolower((unsigned char)rq->method[i]);
    verb[i] = 0;
    char reason[512];
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(user, "username");
    const char *who = cJSON_IsString(name) ? name->valuestring : "";
    ms_authz_decision d = ms_authorizer_authorize(s->authz, user, verb, rq->path, reason, sizeof reason);
    if (d == MS_AUTHZ_DENY) {
        ms_log(s->log, MS_LOG_DEBUG, "forbidden", "path", rq->path, "user", who, "reason", reason, NULL);
        ms_secure_serving_forbidden(out, who, verb, rq->path, reason);
    } else if (d == MS_AUTHZ_ERROR) {
        ms_log(s->log, MS_LOG_WARN, "authorization failed", "path", rq->path, "user", who, "error", reason, NULL);
        ms_secure_serving_internal_error(out, rq->uri, reason);
    }
    cJSON_Delete(user);
}

/* ---- start and stop -------------------------------------------------------- */

static ms_rc make_client(const ms_kubeconfig *kc, const ms_logger *log, ms_kube_client **out, ms_error *err) {
    /* upstream's delegated clients: qps 200, burst 400; one attempt, the
     * review's own timeout bounds it */
    ms_kube_client_options co = {.config = kc, .qps = 200, .burst = 400, .max_retries = -1, .timeout = 10,
                                 .user_agent = "moonsched/0.1 (delegated auth)", .log = log};
    return ms_kube_client_new(&co, out, err);
}

static ms_rc setup_delegation(ms_secure_serving *s, const ms_secure_serving_options *o, ms_error *err) {
    if (!(s->cancel = ms_kube_cancel_new())) return ms_error_set(err, MS_ENOMEM, "out of memory");
    ms_rc rc = make_client(o->authn_config, s->log, &s->authn_client, err);
    if (rc != MS_OK) return rc;
    if (o->authz_config == o->authn_config) s->authz_client = s->authn_client;
    else if ((rc = make_client(o->authz_config, s->log, &s->authz_client, err)) != MS_OK) return rc;
    if (o->client_ca_file && *o->client_ca_file &&
        (rc = ms_client_ca_load(o->client_ca_file, &s->client_ca, err)) != MS_OK)
        return rc;
    if (!(s->failures = ms_auth_failures_new(o->auth_failure_max, o->auth_failure_window, 0)))
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    ms_authenticator_options ao = {.client = s->authn_client, .cache_ttl = o->authn_cache_ttl,
                                   .cancel = s->cancel, .log = s->log};
    if ((rc = ms_authenticator_new(&ao, &s->authn, err)) != MS_OK) return rc;
    ms_authorizer_options zo = {.client = s->authz_client, .cancel = s->cancel, .log = s->log,
                                .always_allow_paths = o->always_allow_paths,
                                .nalways_allow_paths = o->nalways_allow_paths};
    return ms_authorizer_new(&zo, &s->authz, err);
}

static bool unspecified(const char *a) {
    return !a || !*a || strcmp(a, "0.0.0.0") == 0 || strcmp(a, "::") == 0;
}

/* The given pair, or one made for localhost, 127.0.0.1 and a specific
 * bind address (upstream's MaybeDefaultWithSelfSignedCerts). */
static ms_rc setup_cert(ms_secure_serving *s, const ms_secure_serving_options *o, ms_error *err) {
    bool cert = o->cert_file && *o->cert_file, key = o->key_file && *o->key_file;
    if (cert != key)
        return ms_error_set(err, MS_EINVAL, "--tls-cert-file and --tls-private-key-file go together: %s",
                            cert ? "no key" : "no certificate");
    if (cert) return ms_serving_cert_load(o->cert_file, o->key_file, &s->cert, err);
    const char *ips[2] = {"127.0.0.1", o->bind_address};
    size_t nips = unspecified(o->bind_address) || strcmp(o->bind_address, "127.0.0.1") == 0 ? 1 : 2;
    const char *dns[] = {"localhost"};
    ms_rc rc = ms_serving_cert_self_signed("localhost", ips, nips, dns, 1, &s->cert, err);
    if (rc == MS_OK)
        ms_log(s->log, MS_LOG_INFO, "generated a self-signed certificate in memory", "names",
               nips > 1 ? o->bind_address : "localhost,127.0.0.1", NULL);
    return rc;
}

static ms_rc listen_on(ms_secure_serving *s, const ms_secure_serving_options *o, ms_error *err) {
    char priorities[512], extra[1024];
    ms_rc rc = ms_tls_priorities(o->tls_min_version, o->tls_cipher_suites, priorities, sizeof priorities, extra,
                                 sizeof extra, err);
    if (rc != MS_OK) return rc;
    if (*extra)
        ms_log(s->log, MS_LOG_WARN, "GnuTLS pairs the listed key exchanges and ciphers: these suites are allowed too",
               "suites", extra, NULL);
    ms_http_server_options ho = {.handler = o->handler, .ctx = o->ctx, .tls_cert_pem = s->cert.cert_pem,
                                 .tls_key_pem = s->cert.key_pem, .tls_priorities = priorities,
                                 .tls_client_ca_pem = s->client_ca ? ms_client_ca_pem(s->client_ca) : NULL,
                                 .gate = gate, .gate_ctx = s};
    char addr[128];
    unsigned char ip[16];
    if (unspecified(o->bind_address)) {
        snprintf(addr, sizeof addr, "[::]:%u", o->port);
        ho.address = addr;
        ho.dual_stack = true;
        ms_error e6 = {0};
        if (ms_http_server_start_with(&ho, &s->http, &e6) == MS_OK) return MS_OK;
        /* a host (or a pod) without IPv6 */
        snprintf(addr, sizeof addr, "0.0.0.0:%u", o->port);
        ho.dual_stack = false;
    } else if (inet_pton(AF_INET, o->bind_address, ip) == 1) {
        snprintf(addr, sizeof addr, "%s:%u", o->bind_address, o->port);
    } else if (inet_pton(AF_INET6, o->bind_address, ip) == 1) {
        snprintf(addr, sizeof addr, "[%s]:%u", o->bind_address, o->port);
    } else {
        return ms_error_set(err, MS_EINVAL, "--bind-address \"%s\": not an IP address", o->bind_address);
    }
    ho.address = addr;
    return ms_http_server_start_with(&ho, &s->http, err);
}

/* One of the files changed: the pair is read and checked again and served
 * when it belongs together. While one file of a rotation is new and the
 * other not yet, the pair does not match: the old one stays until the
 * second file arrives. */
static void cert_changed(void *ctx, uint32_t index) {
    (void)index;
    ms_secure_serving *s = ctx;
    ms_serving_cert c;
    ms_error err = {0};
    ms_rc rc = ms_serving_cert_load(s->cert_file, s->key_file, &c, &err);
    if (rc == MS_OK) {
        rc = ms_http_server_replace_certificate(s->http, c.cert_pem, c.key_pem, &err);
        ms_serving_cert_free(&c);
    }
    if (rc == MS_OK)
        ms_log(s->log, MS_LOG_INFO, "serving certificate reloaded", "certificate", s->cert_file, "key",
               s->key_file, NULL);
    else
        ms_log(s->log, MS_LOG_WARN, "serving certificate not reloaded, the last one stays", "error", err.msg,
               NULL);
}

static ms_rc watch_cert(ms_secure_serving *s, const ms_secure_serving_options *o, ms_error *err) {
    if (!o->cert_file || !*o->cert_file) return MS_OK;
    if (!(s->cert_file = strdup(o->cert_file)) || !(s->key_file = strdup(o->key_file)))
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    /* a rotation writes both files: look once both are there */
    ms_watch_options wo = {.changed = cert_changed, .ctx = s, .settle = 0.5};
    uint32_t index;
    ms_rc rc = ms_watch_new(&wo, &s->watch, err);
    if (rc == MS_OK) rc = ms_watch_add(s->watch, s->cert_file, &index, err);
    if (rc == MS_OK) rc = ms_watch_add(s->watch, s->key_file, &index, err);
    if (rc == MS_OK) rc = ms_watch_start(s->watch, err);
    return rc;
}

ms_rc ms_secure_serving_start(const ms_secure_serving_options *o, ms_secure_serving **out, ms_error *err) {
    *out = NULL;
    ms_secure_serving *s = calloc(1, sizeof *s);
    if (!s) return ms_error_set(err, MS_ENOMEM, "out of memory");
    s->log = o->log ? o->log : &ms_log_default;
    s->metrics = o->metrics;
    unsigned char ip[16];
    ms_rc rc = MS_OK;
    if (!unspecified(o->bind_address) && inet_pton(AF_INET, o->bind_address, ip) != 1 &&
        inet_pton(AF_INET6, o->bind_address, ip) != 1)
        rc = ms_error_set(err, MS_EINVAL, "--bind-address \"%s\": not an IP address", o->bind_address);
    if (rc == MS_OK) rc = setup_cert(s, o, err);
    if (rc == MS_OK) rc = setup_delegation(s, o, err);
    if (rc == MS_OK) rc = listen_on(s, o, err);
    if (rc == MS_OK) rc = watch_cert(s, o, err);
    if (rc != MS_OK) {
        ms_secure_serving_stop(s);
        return rc;
    }
    *out = s;
    return MS_OK;
}

uint16_t ms_secure_serving_port(const ms_secure_serving *s) { return s ? ms_http_server_port(s->http) : 0; }

void ms_secure_serving_stop(ms_secure_serving *s) {
    if (!s) return;
    /* reviews in flight end at once, so the connection threads can be joined */
    if (s->cancel) ms_kube_cancel_fire(s->cancel);
    ms_watch_free(s->watch);   /* no replacement in progress while the server stops */
    ms_http_server_stop(s->http);
    ms_authenticator_free(s->authn);
    ms_authorizer_free(s->authz);
    ms_client_ca_free(s->client_ca);
    ms_auth_failures_free(s->failures);
    if (s->authz_client && s->authz_client != s->authn_client) ms_kube_client_free(s->authz_client);
    if (s->authn_client) ms_kube_client_free(s->authn_client);
    ms_kube_cancel_free(s->cancel);
    ms_serving_cert_free(&s->cert);
    free(s->cert_file);
    free(s->key_file);
    free(s);
}
