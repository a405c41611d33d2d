/* Kubernetes API requests over libcurl, one blocking request at a time
 * per caller.
 *
 * Each request runs on a "slot": an easy handle driven by a private multi
 * handle. The multi handle owns the slot's connection cache, so an idle
 * slot keeps its connection alive for the next request, and the transfer
 * loop can sleep in curl_multi_poll and be woken at once by
 * curl_multi_wakeup when a cancel fires from another thread. Slots are
 * pooled; concurrent requests each take their own (libcurl handles are
 * single-threaded). */
#include "client/kube_client.h"

#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/clock.h"
#include "client/cancel.h"
#include "client/http_endpoint.h"
#include "client/kube_client_priv.h"
#include "moonsched/decode.h"

#define MAX_IDLE_SLOTS 16
#define MAX_TRANSPORT_RETRIES 3
#define MAX_RETRY_AFTER 60.0      /* seconds: a server cannot park a request longer */

typedef struct slot {
    CURLM *multi;
    CURL *easy;
    struct slot *next;
} slot;

struct ms_kube_client {
    char *server;                  /* as configured, for display */
    char *base_url;                /* server with the host replaced by tls-server-name */
    struct curl_slist *connect_to; /* tls-server-name: where to really connect */
    bool insecure;
    char *ca;                      /* PEM, from certificate-authority(-data) */
    size_t ca_len;
    char *cert_file, *key_file;
    char *cert, *key;              /* PEM blobs */
    size_t cert_len, key_len;
    char *username, *password;
    char *proxy;
    struct curl_slist *static_headers;   /* Accept, User-Agent, impersonation */
    char *user_agent;
    double timeout;
    int32_t max_retries;
    bool compression;
    const ms_logger *log;

    pthread_mutex_t tok_mu;
    char *token;
    char *token_file;
    double token_read_at;
    double token_reload;
    bool token_stale;
    ms_exec_credential *exec;      /* a credential plugin instead of the above */

    ms_rate_limiter *rl;
    ms_clock_fn clock;
    void *clock_ctx;

    CURLSH *share;                 /* DNS cache and TLS sessions across slots */
    pthread_mutex_t share_mu[CURL_LOCK_DATA_LAST];

    pthread_mutex_t pool_mu;
    slot *idle;
    size_t nidle;

    pthread_mutex_t stats_mu;
    ms_kube_client_stats stats;
    void (*observe)(void *ctx, const char *method, long status, double seconds);
    void *observe_ctx;
};

static void share_lock(CURL *h, curl_lock_data data, curl_lock_access access, void *ud) {
    (void)h;
    (void)access;
    ms_kube_client *c = ud;
    pthread_mutex_lock(&c->share_mu[data]);
}

static void share_unlock(CURL *h, curl_lock_data data, void *ud) {
    (void)h;
    ms_kube_client *c = ud;
    pthread_mutex_unlock(&c->share_mu[data]);
}

/* CA bundles and token files; anything larger is not one. */
#define MAX_CREDENTIAL_FILE (64u << 20)

/* Token files end with a newline more often than not. */
static ms_rc read_token(const char *path, char **out, ms_error *err) {
    char *buf;
    size_t len;
    ms_rc rc = ms_read_file(path, MAX_CREDENTIAL_FILE, &buf, &len, err);
    if (rc != MS_OK) return rc;
    char *s = buf;
    while (*s == ' ' || *s == '\n' || *s == '\r' || *s == '\t') s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == '\t')) n--;
    if (n == 0) {
        free(buf);
        return ms_error_set(err, MS_EINVAL, "%s: empty token", path);
    }
    char *t = strndup(s, n);
    memset(buf, 0, len);
    free(buf);
    if (!t) return ms_error_set(err, MS_ENOMEM, "out of memory");
    *out = t;
    return MS_OK;
}

static char *dup_blob(const char *p, size_t n) {
    char *b = malloc(n + 1);
    if (!b) return NULL;
    memcpy(b, p, n);
    b[n] = '\0';
    return b;
}

/* tls-server-name: the URL names the expected host (so that libcurl checks
 * the certificate against it and sends it as SNI) and CONNECT_TO sends the
 * connection to the real address. */
static ms_rc set_urls(ms_kube_client *c, const ms_kubeconfig *kc, ms_error *err) {
    c->server = strdup(kc->server);
    if (!c->server) return ms_error_set(err, MS_ENOMEM, "out of memory");
    if (!kc->tls_server_name) {
        if (!(c->base_url = strdup(kc->server))) return ms_error_set(err, MS_ENOMEM, "out of memory");
        return MS_OK;
    }
    CURLU *u = curl_url();
    char *host = NULL, *port = NULL, *url = NULL;
    ms_rc rc = MS_OK;
    if (!u || curl_url_set(u, CURLUPART_URL, kc->server, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) != CURLUE_OK ||
        curl_url_set(u, CURLUPART_HOST, kc->tls_server_name, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_URL, &url, 0) != CURLUE_OK) {
        rc = ms_error_set(err, MS_EINVAL, "server %s with tls-server-name %s: cannot build the URL", kc->server,
                          kc->tls_server_name);
    } else {
        size_t n = strlen(url);
        while (n && url[n - 1] == '/') url[--n] = '\0';
        char ct[600];
        snprintf(ct, sizeof ct, "%s:%s:%s:%s", kc->tls_server_name, port, host, port);
        if (!(c->base_url = strdup(url)) || !(c->connect_to = curl_slist_append(NULL, ct)))
            rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    curl_free(host);
    curl_free(port);
    curl_free(url);
    curl_url_cleanup(u);
    return rc;
}

static ms_rc add_header(struct curl_slist **l, const char *name, const char *value, ms_error *err) {
    size_t n = strlen(name) + strlen(value) + 3;
    char *h = malloc(n);
    if (!h) return ms_error_set(err, MS_ENOMEM, "out of memory");
    snprintf(h, n, "%s: %s", name, value);
    struct curl_slist *nl = curl_slist_append(*l, h);
    free(h);
    if (!nl) return ms_error_set(err, MS_ENOMEM, "out of memory");
    *l = nl;
    return MS_OK;
}

static ms_rc build_static_headers(ms_kube_client *c, const ms_kubeconfig *kc, ms_error *err) {
    ms_rc rc;
    if ((rc = add_header(&c->static_headers, "Accept", "application/json", err)) != MS_OK) return rc;
    /* 100-continue costs a round trip per POST for nothing here. */
    struct curl_slist *nl = curl_slist_append(c->static_headers, "Expect:");
    if (!nl) return ms_error_set(err, MS_ENOMEM, "out of memory");
    c->static_headers = nl;
    if (kc->impersonate && (rc = add_header(&c->static_headers, "Impersonate-User", kc->impersonate, err)) != MS_OK)
        return rc;
    for (size_t i = 0; i < kc->nimpersonate_groups; i++)
        if ((rc = add_header(&c->static_headers, "Impersonate-Group", kc->impersonate_groups[i], err)) != MS_OK)
            return rc;
    for (size_t i = 0; i < kc->nimpersonate_extra; i++) {
        const char *kv = kc->impersonate_extra[i];
        const char *eq = strchr(kv, '=');
        char name[300];
        snprintf(name, sizeof name, "Impersonate-Extra-%.*s", (int)(eq - kv), kv);
        if ((rc = add_header(&c->static_headers, name, eq + 1, err)) != MS_OK) return rc;
    }
    return MS_OK;
}

ms_rc ms_kube_client_new(const ms_kube_client_options *o, ms_kube_client **out, ms_error *err) {
    *out = NULL;
    const ms_kubeconfig *kc = o->config;
    if (!kc || !kc->server) return ms_error_set(err, MS_EINVAL, "kube client: no server configured");
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        return ms_error_set(err, MS_EIO, "kube client: libcurl initialisation failed");
    ms_kube_client *c = calloc(1, sizeof *c);
    if (!c) {
        curl_global_cleanup();
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    pthread_mutex_init(&c->tok_mu, NULL);
    pthread_mutex_init(&c->pool_mu, NULL);
    pthread_mutex_init(&c->stats_mu, NULL);
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_init(&c->share_mu[i], NULL);
    c->log = o->log ? o->log : &ms_log_default;
    c->timeout = o->timeout > 0 ? o->timeout : 60;
    c->max_retries = o->max_retries == 0 ? 10 : o->max_retries < 0 ? 0 : o->max_retries;
    c->compression = !o->disable_compression;
    c->token_reload = o->token_reload > 0 ? o->token_reload : 60;
    c->clock = o->clock ? o->clock : ms_monotonic_now;
    c->clock_ctx = o->clock_ctx;
    c->observe = o->observe;
    c->observe_ctx = o->observe_ctx;
    c->insecure = kc->insecure_skip_tls_verify;
    ms_rc rc = set_urls(c, kc, err);
    if (rc != MS_OK) goto fail;
    if (!(c->user_agent = strdup(o->user_agent ? o->user_agent : "moonsched/0.1"))) goto nomem;
    if ((kc->proxy_url && !(c->proxy = strdup(kc->proxy_url))) ||
        (kc->username && !(c->username = strdup(kc->username))) ||
        (kc->password && !(c->password = strdup(kc->password))) ||
        (kc->cert_file && !(c->cert_file = strdup(kc->cert_file))) ||
        (kc->key_file && !(c->key_file = strdup(kc->key_file))) ||
        (kc->cert_data && !(c->cert = dup_blob(kc->cert_data, kc->cert_len))) ||
        (kc->key_data && !(c->key = dup_blob(kc->key_data, kc->key_len))) ||
        (kc->ca_data && !(c->ca = dup_blob(kc->ca_data, kc->ca_len))) ||
        (kc->token && !(c->token = strdup(kc->token))))
        goto nomem;
    c->cert_len = kc->cert_len;
    c->key_len = kc->key_len;
    c->ca_len = kc->ca_len;
    /* The CA is read once, like client-go; in memory it is also what
     * libcurl trusts exclusively (a CA file would be combined with the
     * system's CA directory). */
    if (kc->ca_file && !c->ca && (rc = ms_read_file(kc->ca_file, MAX_CREDENTIAL_FILE, &c->ca, &c->ca_len, err)) != MS_OK) goto fail;
    if (!c->token && kc->token_file) {
        if (!(c->token_file = strdup(kc->token_file))) goto nomem;
        if ((rc = read_token(c->token_file, &c->token, err)) != MS_OK) goto fail;
        c->token_read_at = c->clock(c->clock_ctx);
    }
    if (o->credentials) {
        c->exec = ms_exec_credential_ref(o->credentials);
    } else if (kc->exec) {
        ms_exec_credential_options eo = {.config = kc, .log = c->log};
        if ((rc = ms_exec_credential_new(&eo, &c->exec, err)) != MS_OK) goto fail;
    }
    if ((rc = build_static_headers(c, kc, err)) != MS_OK) goto fail;
    if (!(c->rl = ms_rate_limiter_new(o->qps, o->burst, c->clock, c->clock_ctx))) goto nomem;
    if (!(c->share = curl_share_init())) goto nomem;
    curl_share_setopt(c->share, CURLSHOPT_LOCKFUNC, share_lock);
    curl_share_setopt(c->share, CURLSHOPT_UNLOCKFUNC, share_unlock);
    curl_share_setopt(c->share, CURLSHOPT_USERDATA, c);
    curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    *out = c;
    return MS_OK;
nomem:
    rc = ms_error_set(err, MS_ENOMEM, "out of memory");
fail:
    ms_kube_client_free(c);
    return rc;
}

static void slot_free(slot *s) {
    if (!s) return;
    if (s->easy) curl_easy_cleanup(s->easy);
    if (s->multi) curl_multi_cleanup(s->multi);
    free(s);
}

static void wipe_free(char *p, size_t n) {
    if (p) memset(p, 0, n);
    free(p);
}

void ms_kube_client_free(ms_kube_client *c) {
    if (!c) return;
    while (c->idle) {
        slot *s = c->idle;
        c->idle = s->next;
        slot_free(s);
    }
    if (c->share) curl_share_cleanup(c->share);
    ms_exec_credential_free(c->exec);
    ms_rate_limiter_free(c->rl);
    curl_slist_free_all(c->static_headers);
    curl_slist_free_all(c->connect_to);
    free(c->server);
    free(c->base_url);
    free(c->ca);
    free(c->cert_file);
    free(c->key_file);
    free(c->cert);
    wipe_free(c->key, c->key_len);
    wipe_free(c->token, c->token ? strlen(c->token) : 0);
    wipe_free(c->password, c->password ? strlen(c->password) : 0);
    free(c->token_file);
    free(c->username);
    free(c->proxy);
    free(c->user_agent);
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_destroy(&c->share_mu[i]);
    pthread_mutex_destroy(&c->stats_mu);
    pthread_mutex_destroy(&c->pool_mu);
    pthread_mutex_destroy(&c->tok_mu);
    free(c);
    curl_global_cleanup();
}

const char *ms_kube_client_server(const ms_kube_client *c) { return c->server; }

void ms_kube_client_stats_get(ms_kube_client *c, ms_kube_client_stats *out) {
    pthread_mutex_lock(&c->stats_mu);
    *out = c->stats;
    pthread_mutex_unlock(&c->stats_mu);
}

static slot *slot_take(ms_kube_client *c) {
    pthread_mutex_lock(&c->pool_mu);
    slot *s = c->idle;
    if (s) {
        c->idle = s->next;
        c->nidle--;
    }
    pthread_mutex_unlock(&c->pool_mu);
    if (s) return s;
    s = calloc(1, sizeof *s);
    if (!s) return NULL;
    if (!(s->multi = curl_multi_init()) || !(s->easy = curl_easy_init())) {
        slot_free(s);
        return NULL;
    }
    return s;
}

static void slot_put(ms_kube_client *c, slot *s) {
    pthread_mutex_lock(&c->pool_mu);
    if (c->nidle < MAX_IDLE_SLOTS) {
        s->next = c->idle;
        c->idle = s;
        c->nidle++;
        s = NULL;
    }
    pthread_mutex_unlock(&c->pool_mu);
    slot_free(s);
}

static char *bearer(const char *token) {
    size_t n = strlen(token) + 32;
    char *h = malloc(n);
    if (h) snprintf(h, n, "Authorization: Bearer %s", token);
    return h;
}

/* "Authorization: Bearer ..." with the current token; the token file is
 * re-read when due (bound service-account tokens rotate) or after a 401. */
static char *auth_header(ms_kube_client *c) {
    pthread_mutex_lock(&c->tok_mu);
    if (c->token_file) {
        double now = c->clock(c->clock_ctx);
        if (c->token_stale || now - c->token_read_at >= c->token_reload) {
            char *t = NULL;
            ms_error e = {0};
            if (read_token(c->token_file, &t, &e) == MS_OK) {
                wipe_free(c->token, c->token ? strlen(c->token) : 0);
                c->token = t;
            } else {
                ms_log(c->log, MS_LOG_WARN, "cannot re-read the token file; keeping the previous token", "error",
                       e.msg, NULL);
            }
            c->token_read_at = now;
            c->token_stale = false;
        }
    }
    char *h = c->token ? bearer(c->token) : NULL;
    pthread_mutex_unlock(&c->tok_mu);
    return h;
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *ud) {
    ms_kube_xfer *x = ud;
    size_t n = size * nmemb;
    if (x->fn) {
        if (!x->status) curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &x->status);
        if (x->status >= 200 && x->status < 300) {
            x->streaming = true;
            int r = x->list ? ms_list_items_feed(&x->items, data, n, &x->body, x->fn, x->ctx)
                            : ms_line_splitter_feed(&x->split, data, n, x->fn, x->ctx);
            if (r == 0) return n;
            if (r == -1)
                x->overflow = true;
            else
                x->stopped = true;
            return n == 0 ? 1 : 0;   /* a short count aborts the transfer */
        }
    }
    ms_buf_append(&x->body, data, n);
    return x->body.failed ? 0 : n;
}

static size_t on_header(char *data, size_t size, size_t nmemb, void *ud) {
    ms_kube_xfer *x = ud;
    size_t n = size * nmemb;
    if (n >= 5 && strncmp(data, "HTTP/", 5) == 0) {   /* a new response (after 100, or a retry) */
        x->has_retry_after = false;
        x->retry_after = 0;
        x->status = 0;
    } else if (n > 12 && strncasecmp(data, "Retry-After:", 12) == 0) {
        char v[64];
        size_t vn = n - 12 < sizeof v - 1 ? n - 12 : sizeof v - 1;
        memcpy(v, data + 12, vn);
        v[vn] = '\0';
        char *end;
        long secs = strtol(v, &end, 10);
        while (*end == ' ' || *end == '\r' || *end == '\n') end++;
        x->has_retry_after = true;
        /* Delta-seconds is what the API server sends; an HTTP date is
         * unusual enough to treat as "soon". */
        x->retry_after = *end == '\0' && secs >= 0 ? (double)secs : 1;
        if (x->retry_after > MAX_RETRY_AFTER) x->retry_after = MAX_RETRY_AFTER;
    }
    return n;
}

/* The static headers, the bearer token (the plugin's when there is
 * one) and the body's Content-Type. */
static CURLcode request_headers(ms_kube_client *c, const ms_kube_request *r, const char *method,
                                const ms_exec_creds *ec, struct curl_slist **hdrs) {
    struct curl_slist *h = NULL;
    for (struct curl_slist *s = c->static_headers; s; s = s->next)
        if (!(h = curl_slist_append(h, s->data))) return CURLE_OUT_OF_MEMORY;
    *hdrs = h;
    char *auth = c->exec ? (ec->token ? bearer(ec->token) : NULL) : auth_header(c);
    if (auth) {
        struct curl_slist *nh = curl_slist_append(h, auth);
        memset(auth, 0, strlen(auth));
        free(auth);
        if (!nh) return CURLE_OUT_OF_MEMORY;
        *hdrs = h = nh;
    }
    if (r->body) {
        const char *ct = r->content_type ? r->content_type
                         : strcmp(method, "PATCH") == 0 ? "application/strategic-merge-patch+json"
                                                        : "application/json";
        char line[160];
        snprintf(line, sizeof line, "Content-Type: %s", ct);
        struct curl_slist *nh = curl_slist_append(h, line);
        if (!nh) return CURLE_OUT_OF_MEMORY;
        *hdrs = h = nh;
    }
    return CURLE_OK;
}

#define SET(opt, val)                                                    \
    do {                                                                 \
        if ((cc = curl_easy_setopt(e, opt, val)) != CURLE_OK) return cc; \
    } while (0)

/* Basic auth, the server's CA (or none), the client certificate and key
 * (a plugin's are copied by libcurl: the next run may replace them while
 * this transfer is still going). */
static CURLcode set_credentials(ms_kube_client *c, CURL *e, const ms_exec_creds *ec) {
    CURLcode cc = CURLE_OK;
    if (c->username) {
        SET(CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
        SET(CURLOPT_USERNAME, c->username);
        SET(CURLOPT_PASSWORD, c->password ? c->password : "");
    }
    ms_http_tls t = {.insecure = c->insecure, .ca_data = c->ca, .ca_len = c->ca_len,
                     .cert_data = c->cert, .cert_len = c->cert_len, .cert_file = c->cert_file,
                     .key_data = c->key, .key_len = c->key_len, .key_file = c->key_file};
    if ((cc = ms_http_tls_apply(e, &t, false)) != CURLE_OK) return cc;
    if (ec->cert) {
        ms_http_tls x = {.cert_data = ec->cert, .cert_len = ec->cert_len, .key_data = ec->key, .key_len = ec->key_len};
        return ms_http_tls_apply(e, &x, true);
    }
    return CURLE_OK;
}

/* The method, and the body (POST without one sends an empty body). */
static CURLcode set_method(CURL *e, const ms_kube_request *r, const char *method) {
    CURLcode cc = CURLE_OK;
    if (strcmp(method, "GET") == 0) return CURLE_OK;
    if (strcmp(method, "POST") != 0) SET(CURLOPT_CUSTOMREQUEST, method);
    if (r->body) {
        SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->body_len);
        SET(CURLOPT_POSTFIELDS, r->body);
    } else if (strcmp(method, "POST") == 0) {
        SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)0);
        SET(CURLOPT_POSTFIELDS, "");
    }
    return CURLE_OK;
}

static CURLcode xfer_setup(ms_kube_client *c, CURL *e, const ms_kube_request *r, ms_kube_xfer *x,
                           const ms_exec_creds *ec, struct curl_slist **hdrs, char **url, bool stream) {
    size_t ulen = strlen(c->base_url) + strlen(r->path) + 2;
    if (!(*url = malloc(ulen))) return CURLE_OUT_OF_MEMORY;
    snprintf(*url, ulen, "%s%s%s", c->base_url, r->path[0] == '/' ? "" : "/", r->path);
    const char *method = r->method ? r->method : "GET";
    CURLcode cc = request_headers(c, r, method, ec, hdrs);
    if (cc != CURLE_OK) return cc;
    SET(CURLOPT_URL, *url);
    SET(CURLOPT_NOSIGNAL, 1L);
    SET(CURLOPT_PROTOCOLS_STR, "http,https");
    SET(CURLOPT_SHARE, c->share);
    SET(CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
    SET(CURLOPT_TCP_KEEPALIVE, 1L);
    SET(CURLOPT_TCP_KEEPIDLE, 30L);
    SET(CURLOPT_TCP_KEEPINTVL, 30L);
    SET(CURLOPT_CONNECTTIMEOUT_MS, 30000L);
    double timeout = r->timeout > 0 ? r->timeout : stream ? 0 : c->timeout;
    if (timeout > 0) SET(CURLOPT_TIMEOUT_MS, (long)(timeout * 1000));
    if (c->compression) SET(CURLOPT_ACCEPT_ENCODING, "");
    SET(CURLOPT_USERAGENT, c->user_agent);
    SET(CURLOPT_HTTPHEADER, *hdrs);
    if (c->connect_to) SET(CURLOPT_CONNECT_TO, c->connect_to);
    if (c->proxy) SET(CURLOPT_PROXY, c->proxy);
    if ((cc = set_credentials(c, e, ec)) != CURLE_OK) return cc;
    if ((cc = set_method(e, r, method)) != CURLE_OK) return cc;
    SET(CURLOPT_WRITEFUNCTION, on_body);
    SET(CURLOPT_WRITEDATA, x);
    SET(CURLOPT_HEADERFUNCTION, on_header);
    SET(CURLOPT_HEADERDATA, x);
    return CURLE_OK;
}

#undef SET

CURLcode ms_kube_xfer_setup(ms_kube_client *c, CURL *e, const ms_kube_request *r, ms_kube_xfer *x,
                            struct curl_slist **hdrs, char **url, bool stream) {
    curl_easy_reset(e);
    ms_exec_creds ec = {0};
    x->cred_error[0] = '\0';
    if (c->exec) {
        ms_error err = {0};
        if (ms_exec_credential_get(c->exec, &ec, &err) != MS_OK) {
            snprintf(x->cred_error, sizeof x->cred_error, "%s", err.msg);
            return CURLE_LOGIN_DENIED;
        }
        x->cred_generation = ec.generation;
    }
    CURLcode cc = xfer_setup(c, e, r, x, &ec, hdrs, url, stream);
    ms_exec_creds_free(&ec);
    return cc;
}

/* Drives one transfer to its end, or until the cancel fires. */
static CURLcode run(slot *s, ms_kube_cancel *cancel, bool *cancelled) {
    *cancelled = false;
    ms_kube_cancel_waiter w = {.multi = s->multi};
    ms_kube_cancel_register(cancel, &w);
    CURLcode result = CURLE_OK;
    if (curl_multi_add_handle(s->multi, s->easy) != CURLM_OK) {
        ms_kube_cancel_unregister(cancel, &w);
        return CURLE_FAILED_INIT;
    }
    int running = 1;
    bool done = false;
    while (!done) {
        if (ms_kube_cancel_fired(cancel)) {
            *cancelled = true;
            break;
        }
        if (curl_multi_perform(s->multi, &running) != CURLM_OK) {
            result = CURLE_FAILED_INIT;
            break;
        }
        int q;
        CURLMsg *m;
        while ((m = curl_multi_info_read(s->multi, &q)))
            if (m->msg == CURLMSG_DONE && m->easy_handle == s->easy) {
                result = m->data.result;
                done = true;
            }
        if (done || !running) break;
        if (curl_multi_poll(s->multi, NULL, 0, 1000, NULL) != CURLM_OK) {
            result = CURLE_FAILED_INIT;
            break;
        }
    }
    curl_multi_remove_handle(s->multi, s->easy);
    ms_kube_cancel_unregister(cancel, &w);
    return result;
}

double ms_kube_rate_reserve(ms_kube_client *c) { return ms_rate_limiter_reserve(c->rl); }

long ms_kube_xfer_account(ms_kube_client *c, CURL *e, bool retry, double throttled) {
    long status = 0, conns = 0, version = 0;
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(e, CURLINFO_NUM_CONNECTS, &conns);
    curl_easy_getinfo(e, CURLINFO_HTTP_VERSION, &version);
    pthread_mutex_lock(&c->stats_mu);
    c->stats.requests++;
    if (version == CURL_HTTP_VERSION_2_0) c->stats.http2++;
    if (retry) c->stats.retries++;
    if (throttled > 0) {
        c->stats.throttled++;
        c->stats.throttle_seconds += throttled;
    }
    c->stats.connections += (uint64_t)(conns > 0 ? conns : 0);
    pthread_mutex_unlock(&c->stats_mu);
    return status;
}

void ms_kube_observe(ms_kube_client *c, const char *method, long status, CURLcode cc, double seconds) {
    if (c->observe) c->observe(c->observe_ctx, method, cc == CURLE_OK ? status : 0, seconds);
}

void ms_kube_log_attempt(ms_kube_client *c, const char *method, const char *path, long status, double seconds,
                         CURLcode cc, const char *cerr) {
    if (!ms_log_enabled(c->log, MS_LOG_DEBUG)) return;
    char st[24], ms[32];
    snprintf(st, sizeof st, "%ld", status);
    snprintf(ms, sizeof ms, "%.1f", seconds * 1000);
    ms_log(c->log, MS_LOG_DEBUG, "request", "verb", method, "path", path, "status", st, "ms", ms,
           cc != CURLE_OK ? "error" : NULL, cerr, NULL);
}

static bool is_get(const char *method) { return !method || strcmp(method, "GET") == 0; }

bool ms_kube_retry_transport(ms_kube_client *c, const char *method, const char *path, const ms_kube_xfer *x,
                             uint32_t attempt, int *transport_failures, const char *cerr, double *delay) {
    if (!is_get(method) || (x->fn && !x->list) || x->streaming || *transport_failures >= MAX_TRANSPORT_RETRIES ||
        (int32_t)attempt >= c->max_retries)
        return false;
    *delay = 0.5 * (double)(1 << (*transport_failures)++);
    ms_log(c->log, MS_LOG_WARN, "request failed; retrying", "verb", method, "path", path, "error", cerr, NULL);
    return true;
}

bool ms_kube_retry_answer(ms_kube_client *c, const char *method, const char *path, long status,
                          const ms_kube_xfer *x, uint32_t attempt, double *delay) {
    if (status == 401 && c->token_file) {
        pthread_mutex_lock(&c->tok_mu);
        c->token_stale = true;
        pthread_mutex_unlock(&c->tok_mu);
    }
    if (status == 401 && c->exec) ms_exec_credential_invalidate(c->exec, x->cred_generation);
    bool retryable = (status == 429 || status >= 500) && !x->streaming && (int32_t)attempt < c->max_retries;
    if (!retryable || !(x->has_retry_after || (is_get(method) && status >= 500))) return false;
    *delay = x->has_retry_after ? x->retry_after : fmin(0.5 * pow(2, attempt), 8);
    char st[24], d[32];
    snprintf(st, sizeof st, "%ld", status);
    snprintf(d, sizeof d, "%.1f", *delay);
    ms_log(c->log, MS_LOG_INFO, "retrying request", "verb", method, "path", path, "status", st, "after", d, NULL);
    return true;
}

/* One attempt's outcome; the slot is back in the pool. */
typedef struct attempt {
    CURLcode cc;
    long status;
    bool cancelled;
    size_t pending;                /* stream bytes after the last complete line */
    char cerr[512];                 /* curl's error, or the credential plugin's */
} attempt;

static ms_rc attempt_once(ms_kube_client *c, const ms_kube_request *r, uint32_t n, double wait, ms_kube_xfer *x,
                          attempt *a, ms_error *err) {
    const char *method = r->method ? r->method : "GET";
    slot *s = slot_take(c);
    if (!s) return ms_error_set(err, MS_ENOMEM, "%s %s: out of memory", method, r->path);
    x->easy = s->easy;
    if (x->list)
        ms_list_items_init(&x->items, 0);
    else if (x->fn)
        ms_line_splitter_init(&x->split, 0);
    struct curl_slist *hdrs = NULL;
    char *url = NULL;
    double t0 = ms_clock_monotonic();
    a->cancelled = false;
    /* a List has an end: the client's timeout applies, as to any request */
    bool line_stream = x->fn && !x->list;
    a->cc = ms_kube_xfer_setup(c, s->easy, r, x, &hdrs, &url, line_stream);
    if (a->cc == CURLE_OK) a->cc = run(s, r->cancel, &a->cancelled);
    a->status = ms_kube_xfer_account(c, s->easy, n > 0, wait);
    snprintf(a->cerr, sizeof a->cerr, "%s", x->cred_error[0] ? x->cred_error : curl_easy_strerror(a->cc));
    curl_easy_reset(s->easy);   /* drop pointers to hdrs, url and x before they go */
    slot_put(c, s);
    curl_slist_free_all(hdrs);
    free(url);
    if (x->list) {
        a->pending = !ms_list_items_complete(&x->items);
        ms_list_items_free(&x->items);
    } else if (x->fn) {
        a->pending = ms_line_splitter_pending(&x->split);
        ms_line_splitter_free(&x->split);
    } else {
        a->pending = 0;
    }
    double took = ms_clock_monotonic() - t0;
    /* a stream's time is its lifetime, not a latency */
    ms_kube_observe(c, method, a->status, a->cc, line_stream ? -1 : took);
    ms_kube_log_attempt(c, method, r->path, a->status, took, a->cc, a->cerr);
    return MS_OK;
}

/* An attempt that got no usable answer: MS_OK with *delay when it is to
 * be retried, else the request's error. */
static ms_rc attempt_failed(ms_kube_client *c, const ms_kube_request *r, uint32_t n, const ms_kube_xfer *x,
                            const attempt *a, int *transport_failures, double *delay, ms_error *err) {
    const char *method = r->method ? r->method : "GET";
    if (x->body.failed || x->overflow)
        return ms_error_set(err, x->body.failed ? MS_ENOMEM : MS_EIO, "%s %s: %s", method, r->path,
                            x->body.failed ? "out of memory reading the answer"
                            : x->list      ? "the list is not a JSON object, or an item of it is too long"
                                           : "a line of the stream is too long");
    if (a->cc == CURLE_OPERATION_TIMEDOUT && x->streaming && x->fn && !x->list)   /* a stream hit its time limit */
        return ms_error_set(err, MS_EIO, "%s %s: stream timed out", method, r->path);
    if (x->cred_error[0]) return ms_error_set(err, MS_EIO, "%s %s: %s", method, r->path, x->cred_error);
    if (ms_kube_retry_transport(c, method, r->path, x, n, transport_failures, a->cerr, delay)) return MS_OK;
    return ms_error_set(err, MS_EIO, "%s %s%s: %s", method, c->server, r->path, a->cerr);
}

static ms_rc perform(ms_kube_client *c, const ms_kube_request *r, ms_line_fn fn, void *ctx, bool list,
                     ms_kube_response *resp, ms_error *err) {
    memset(resp, 0, sizeof *resp);
    const char *method = r->method ? r->method : "GET";
    int transport_failures = 0;
    for (uint32_t n = 0;; n++) {
        if (ms_kube_cancel_fired(r->cancel)) return ms_error_set(err, MS_ESTATE, "%s %s: cancelled", method, r->path);
        double wait = ms_kube_rate_reserve(c);
        if (wait > 0 && ms_kube_cancel_sleep(r->cancel, wait))
            return ms_error_set(err, MS_ESTATE, "%s %s: cancelled", method, r->path);
        ms_kube_xfer x = {.fn = fn, .ctx = ctx, .list = list};
        attempt a;
        ms_rc rc = attempt_once(c, r, n, wait, &x, &a, err);
        if (rc != MS_OK) return rc;
        resp->attempts = n + 1;
        double delay = 0;
        if (a.cancelled) {
            ms_buf_free(&x.body);
            return ms_error_set(err, MS_ESTATE, "%s %s: cancelled", method, r->path);
        }
        if (x.stopped || x.body.failed || x.overflow || a.cc != CURLE_OK) {
            ms_buf_free(&x.body);
            resp->status = a.status;
            if (x.stopped) return MS_OK;
            if ((rc = attempt_failed(c, r, n, &x, &a, &transport_failures, &delay, err)) != MS_OK) return rc;
        } else if (ms_kube_retry_answer(c, method, r->path, a.status, &x, n, &delay)) {
            ms_buf_free(&x.body);
        } else {
            resp->status = a.status;
            resp->body = x.body.data;
            resp->len = x.body.len;
            resp->retry_after = x.has_retry_after ? x.retry_after : 0;
            if (fn && x.streaming && a.pending)
                return ms_error_set(err, MS_EIO, "%s %s: %s", method, r->path,
                                    list ? "the list ended before its end" : "the stream ended inside a line");
            return MS_OK;
        }
        if (ms_kube_cancel_sleep(r->cancel, delay))
            return ms_error_set(err, MS_ESTATE, "%s %s: cancelled", method, r->path);
    }
}

void ms_kube_response_free(ms_kube_response *r) {
    if (!r) return;
    free(r->body);
    r->body = NULL;
    r->len = 0;
}

ms_rc ms_kube_do(ms_kube_client *c, const ms_kube_request *r, ms_kube_response *resp, ms_error *err) {
    return perform(c, r, NULL, NULL, false, resp, err);
}

ms_rc ms_kube_stream(ms_kube_client *c, const ms_kube_request *r, ms_line_fn fn, void *ctx, ms_kube_response *resp,
                     ms_error *err) {
    return perform(c, r, fn, ctx, false, resp, err);
}

ms_rc ms_kube_list(ms_kube_client *c, const ms_kube_request *r, ms_line_fn fn, void *ctx, ms_kube_response *resp,
                   ms_error *err) {
    return perform(c, r, fn, ctx, true, resp, err);
}

ms_rc ms_kube_get(ms_kube_client *c, const char *path, ms_kube_response *resp, ms_error *err) {
    ms_kube_request r = {.method = "GET", .path = path};
    return ms_kube_do(c, &r, resp, err);
}

ms_rc ms_kube_post(ms_kube_client *c, const char *path, const char *json, ms_kube_response *resp, ms_error *err) {
    ms_kube_request r = {.method = "POST", .path = path, .body = json, .body_len = json ? strlen(json) : 0};
    return ms_kube_do(c, &r, resp, err);
}

ms_rc ms_kube_patch(ms_kube_client *c, const char *path, const char *content_type, const char *json,
                    ms_kube_response *resp, ms_error *err) {
    ms_kube_request r = {.method = "PATCH", .path = path, .body = json, .body_len = json ? strlen(json) : 0,
                         .content_type = content_type};
    return ms_kube_do(c, &r, resp, err);
}

ms_rc ms_kube_delete(ms_kube_client *c, const char *path, ms_kube_response *resp, ms_error *err) {
    ms_kube_request r = {.method = "DELETE", .path = path};
    return ms_kube_do(c, &r, resp, err);
}

bool ms_kube_query_escape(char *buf, size_t n, const char *s) {
    static const char hex[] = "0123456789ABCDEF";
    size_t len = strnlen(buf, n);
    if (len >= n) return false;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        bool plain = (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' ||
                     *p == '.' || *p == '_' || *p == '~';
        size_t need = plain ? 1 : 3;
        if (len + need >= n) {
            buf[len] = '\0';
            return false;
        }
        if (plain) {
            buf[len++] = (char)*p;
        } else {
            buf[len++] = '%';
            buf[len++] = hex[*p >> 4];
            buf[len++] = hex[*p & 15];
        }
    }
    buf[len] = '\0';
    return true;
}

bool ms_kube_server_at_least(ms_kube_client *c, int major, int minor, bool unknown) {
    ms_kube_response resp;
    ms_error err = {0};
    bool at_least = unknown;
    if (ms_kube_get(c, "/version", &resp, &err) == MS_OK && resp.status == 200 && resp.body) {
        cJSON *v = cJSON_Parse(resp.body);
        const cJSON *ma = cJSON_GetObjectItemCaseSensitive(v, "major");
        const cJSON *mi = cJSON_GetObjectItemCaseSensitive(v, "minor");
        if (cJSON_IsString(ma) && cJSON_IsString(mi)) {
            int a = atoi(ma->valuestring), b = atoi(mi->valuestring);
            at_least = a > major || (a == major && b >= minor);
        }
        cJSON_Delete(v);
    }
    ms_kube_response_free(&resp);
    return at_least;
}

void ms_kube_status_message(const ms_kube_response *r, char *buf, size_t n) {
    if (!n) return;
    buf[0] = '\0';
    if (!r->body || !r->len) {
        snprintf(buf, n, "HTTP %ld with an empty body", r->status);
        return;
    }
    cJSON *j = cJSON_ParseWithLength(r->body, r->len);
    const cJSON *m = j ? cJSON_GetObjectItemCaseSensitive(j, "message") : NULL;
    if (cJSON_IsString(m)) {
        snprintf(buf, n, "%s", m->valuestring);
    } else {
        size_t k = 0;
        for (size_t i = 0; i < r->len && k + 1 < n; i++) {
            unsigned char ch = (unsigned char)r->body[i];
            buf[k++] = ch < 0x20 || ch == 0x7f ? ' ' : (char)ch;
        }
        buf[k] = '\0';
    }
    cJSON_Delete(j);
}
