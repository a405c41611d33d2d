/* Kubernetes API requests over libcurl.
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
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moonsched/decode.h"
#include <strings.h>
#include <time.h>

#define MAX_IDLE_SLOTS 16
#define MAX_TRANSPORT_RETRIES 3
#define MAX_RETRY_AFTER 60.0      /* seconds: a server cannot park a request longer */

/* ---- cancel ---- */

typedef struct waiter {
    CURLM *multi;
    struct waiter *next;
} waiter;

struct ms_kube_cancel {
    atomic_bool fired;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    waiter *waiters;
};

ms_kube_cancel *ms_kube_cancel_new(void) {
    ms_kube_cancel *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    atomic_init(&c->fired, false);
    pthread_mutex_init(&c->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&c->cv, &ca);
    pthread_condattr_destroy(&ca);
    return c;
}

void ms_kube_cancel_free(ms_kube_cancel *c) {
    if (!c) return;
    pthread_cond_destroy(&c->cv);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

void ms_kube_cancel_fire(ms_kube_cancel *c) {
    pthread_mutex_lock(&c->mu);
    atomic_store(&c->fired, true);
    for (waiter *w = c->waiters; w; w = w->next) curl_multi_wakeup(w->multi);
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

bool ms_kube_cancel_fired(const ms_kube_cancel *c) { return c && atomic_load(&c->fired); }

static struct timespec deadline_after(double seconds) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double whole;
    double frac = modf(seconds, &whole);
    ts.tv_sec += (time_t)whole;
    ts.tv_nsec += (long)(frac * 1e9);
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}

bool ms_kube_cancel_sleep(ms_kube_cancel *c, double seconds) {
    if (seconds <= 0) return ms_kube_cancel_fired(c);
    if (!c) {
        struct timespec ts = {(time_t)seconds, (long)((seconds - floor(seconds)) * 1e9)};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
        return false;
    }
    struct timespec dl = deadline_after(seconds);
    pthread_mutex_lock(&c->mu);
    while (!atomic_load(&c->fired))
        if (pthread_cond_timedwait(&c->cv, &c->mu, &dl) == ETIMEDOUT) break;
    bool fired = atomic_load(&c->fired);
    pthread_mutex_unlock(&c->mu);
    return fired;
}

static void cancel_register(ms_kube_cancel *c, waiter *w) {
    if (!c) return;
    pthread_mutex_lock(&c->mu);
    w->next = c->waiters;
    c->waiters = w;
    pthread_mutex_unlock(&c->mu);
}

static void cancel_unregister(ms_kube_cancel *c, waiter *w) {
    if (!c) return;
    pthread_mutex_lock(&c->mu);
    for (waiter **p = &c->waiters; *p; p = &(*p)->next)
        if (*p == w) {
            *p = w->next;
            break;
        }
    pthread_mutex_unlock(&c->mu);
}

/* ---- client ---- */

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
    char *h = NULL;
    if (c->token) {
        size_t n = strlen(c->token) + 32;
        if ((h = malloc(n))) snprintf(h, n, "Authorization: Bearer %s", c->token);
    }
    pthread_mutex_unlock(&c->tok_mu);
    return h;
}

/* One transfer's state, shared with libcurl's callbacks. */
typedef struct xfer {
    CURL *easy;
    char *body;
    size_t len, cap;
    bool oom;
    double retry_after;
    bool has_retry_after;
    /* streams */
    ms_line_fn fn;
    void *ctx;
    ms_line_splitter split;
    long status;
    bool streaming;      /* 2xx body bytes reached fn: the request can no longer be retried */
    bool stopped;        /* fn asked to stop */
    bool overflow;
} xfer;

static int buf_append(xfer *x, const char *p, size_t n) {
    if (x->len + n + 1 > x->cap) {
        size_t cap = x->cap ? x->cap : 16384;
        while (cap < x->len + n + 1) cap *= 2;
        char *nb = realloc(x->body, cap);
        if (!nb) {
            x->oom = true;
            return -1;
        }
        x->body = nb;
        x->cap = cap;
    }
    memcpy(x->body + x->len, p, n);
    x->len += n;
    x->body[x->len] = '\0';
    return 0;
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *ud) {
    xfer *x = ud;
    size_t n = size * nmemb;
    if (x->fn) {
        if (!x->status) curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &x->status);
        if (x->status >= 200 && x->status < 300) {
            x->streaming = true;
            int r = ms_line_splitter_feed(&x->split, data, n, x->fn, x->ctx);
            if (r == 0) return n;
            if (r == -1)
                x->overflow = true;
            else
                x->stopped = true;
            return n == 0 ? 1 : 0;   /* a short count aborts the transfer */
        }
    }
    return buf_append(x, data, n) == 0 ? n : 0;
}

static size_t on_header(char *data, size_t size, size_t nmemb, void *ud) {
    xfer *x = ud;
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

static CURLcode setup(ms_kube_client *c, CURL *e, const ms_kube_request *r, xfer *x, struct curl_slist **hdrs,
                      char **url, bool stream) {
    curl_easy_reset(e);
    size_t ulen = strlen(c->base_url) + strlen(r->path) + 2;
    if (!(*url = malloc(ulen))) return CURLE_OUT_OF_MEMORY;
    snprintf(*url, ulen, "%s%s%s", c->base_url, r->path[0] == '/' ? "" : "/", r->path);

    struct curl_slist *h = NULL;
    for (struct curl_slist *s = c->static_headers; s; s = s->next)
        if (!(h = curl_slist_append(h, s->data))) return CURLE_OUT_OF_MEMORY;
    *hdrs = h;
    char *auth = auth_header(c);
    if (auth) {
        struct curl_slist *nh = curl_slist_append(h, auth);
        memset(auth, 0, strlen(auth));
        free(auth);
        if (!nh) return CURLE_OUT_OF_MEMORY;
        *hdrs = h = nh;
    }
    const char *method = r->method ? r->method : "GET";
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

    CURLcode cc = CURLE_OK;
#define SET(opt, val)                                          \
    do {                                                       \
        if ((cc = curl_easy_setopt(e, opt, val)) != CURLE_OK) return cc; \
    } while (0)
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
    SET(CURLOPT_HTTPHEADER, h);
    if (c->connect_to) SET(CURLOPT_CONNECT_TO, c->connect_to);
    if (c->proxy) SET(CURLOPT_PROXY, c->proxy);
    if (c->username) {
        SET(CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
        SET(CURLOPT_USERNAME, c->username);
        SET(CURLOPT_PASSWORD, c->password ? c->password : "");
    }
    if (c->insecure) {
        SET(CURLOPT_SSL_VERIFYPEER, 0L);
        SET(CURLOPT_SSL_VERIFYHOST, 0L);
    } else if (c->ca) {
        struct curl_blob b = {.data = c->ca, .len = c->ca_len, .flags = CURL_BLOB_NOCOPY};
        SET(CURLOPT_CAINFO_BLOB, &b);
        SET(CURLOPT_CAPATH, (char *)NULL);
    }
    if (c->cert) {
        struct curl_blob b = {.data = c->cert, .len = c->cert_len, .flags = CURL_BLOB_NOCOPY};
        SET(CURLOPT_SSLCERT_BLOB, &b);
        SET(CURLOPT_SSLCERTTYPE, "PEM");
    } else if (c->cert_file) {
        SET(CURLOPT_SSLCERT, c->cert_file);
    }
    if (c->key) {
        struct curl_blob b = {.data = c->key, .len = c->key_len, .flags = CURL_BLOB_NOCOPY};
        SET(CURLOPT_SSLKEY_BLOB, &b);
        SET(CURLOPT_SSLKEYTYPE, "PEM");
    } else if (c->key_file) {
        SET(CURLOPT_SSLKEY, c->key_file);
    }
    if (strcmp(method, "GET") != 0) {
        if (strcmp(method, "POST") != 0) SET(CURLOPT_CUSTOMREQUEST, method);
        if (r->body) {
            SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->body_len);
            SET(CURLOPT_POSTFIELDS, r->body);
        } else if (strcmp(method, "POST") == 0) {
            SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)0);
            SET(CURLOPT_POSTFIELDS, "");
        }
    }
    SET(CURLOPT_WRITEFUNCTION, on_body);
    SET(CURLOPT_WRITEDATA, x);
    SET(CURLOPT_HEADERFUNCTION, on_header);
    SET(CURLOPT_HEADERDATA, x);
#undef SET
    return CURLE_OK;
}

/* Drives one transfer to its end, or until the cancel fires. */
static CURLcode run(slot *s, ms_kube_cancel *cancel, bool *cancelled) {
    *cancelled = false;
    waiter w = {.multi = s->multi};
    cancel_register(cancel, &w);
    CURLcode result = CURLE_OK;
    if (curl_multi_add_handle(s->multi, s->easy) != CURLM_OK) {
        cancel_unregister(cancel, &w);
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
    cancel_unregister(cancel, &w);
    return result;
}

static void count(ms_kube_client *c, bool retry, double throttled, long conns, bool h2) {
    pthread_mutex_lock(&c->stats_mu);
    c->stats.requests++;
    if (h2) c->stats.http2++;
    if (retry) c->stats.retries++;
    if (throttled > 0) {
        c->stats.throttled++;
        c->stats.throttle_seconds += throttled;
    }
    c->stats.connections += (uint64_t)(conns > 0 ? conns : 0);
    pthread_mutex_unlock(&c->stats_mu);
}

static bool is_get(const char *method) { return !method || strcmp(method, "GET") == 0; }

static ms_rc perform(ms_kube_client *c, const ms_kube_request *r, ms_line_fn fn, void *ctx, ms_kube_response *resp,
                     ms_error *err) {
    memset(resp, 0, sizeof *resp);
    const char *method = r->method ? r->method : "GET";
    bool idempotent = is_get(method);
    int transport_failures = 0;
    for (uint32_t attempt = 0;; attempt++) {
        if (ms_kube_cancel_fired(r->cancel)) return ms_error_set(err, MS_ESTATE, "%s %s: cancelled", method, r->path);
        double wait = ms_rate_limiter_reserve(c->rl);
        if (wait > 0 && ms_kube_cancel_sleep(r->cancel, wait))
            return ms_error_set(err, MS_ESTATE, "%s %s: cancelled", method, r->path);
        slot *s = slot_take(c);
        if (!s) return ms_error_set(err, MS_ENOMEM, "%s %s: out of memory", method, r->path);
        xfer x = {.easy = s->easy, .fn = fn, .ctx = ctx};
        if (fn) ms_line_splitter_init(&x.split, 0);
        struct curl_slist *hdrs = NULL;
        char *url = NULL;
        double t0 = ms_monotonic_now(NULL);
        bool cancelled = false;
        CURLcode cc = setup(c, s->easy, r, &x, &hdrs, &url, fn != NULL);
        if (cc == CURLE_OK) cc = run(s, r->cancel, &cancelled);
        long status = 0, conns = 0, version = 0;
        curl_easy_getinfo(s->easy, CURLINFO_RESPONSE_CODE, &status);
        curl_easy_getinfo(s->easy, CURLINFO_NUM_CONNECTS, &conns);
        curl_easy_getinfo(s->easy, CURLINFO_HTTP_VERSION, &version);
        char cerr[CURL_ERROR_SIZE];
        snprintf(cerr, sizeof cerr, "%s", curl_easy_strerror(cc));
        curl_easy_reset(s->easy);   /* drop pointers to hdrs, url and x before they go */
        slot_put(c, s);
        curl_slist_free_all(hdrs);
        free(url);
        size_t pending = fn ? ms_line_splitter_pending(&x.split) : 0;
        if (fn) ms_line_splitter_free(&x.split);
        count(c, attempt > 0, wait, conns, version == CURL_HTTP_VERSION_2_0);
        resp->attempts = attempt + 1;
        if (ms_log_enabled(c->log, MS_LOG_DEBUG)) {
            char st[24], ms[32];
            snprintf(st, sizeof st, "%ld", status);
            snprintf(ms, sizeof ms, "%.1f", (ms_monotonic_now(NULL) - t0) * 1000);
            ms_log(c->log, MS_LOG_DEBUG, "request", "verb", method, "path", r->path, "status", st, "ms", ms,
                   cc != CURLE_OK ? "error" : NULL, cerr, NULL);
        }

        if (cancelled) {
            free(x.body);
            return ms_error_set(err, MS_ESTATE, "%s %s: cancelled", method, r->path);
        }
        if (x.stopped) {
            free(x.body);
            resp->status = status;
            return MS_OK;
        }
        if (x.oom || x.overflow) {
            free(x.body);
            resp->status = status;
            return ms_error_set(err, x.oom ? MS_ENOMEM : MS_EIO, "%s %s: %s", method, r->path,
                                x.oom ? "out of memory reading the answer" : "a line of the stream is too long");
        }
        if (cc != CURLE_OK && !(cc == CURLE_OPERATION_TIMEDOUT && x.streaming && fn)) {
            free(x.body);
            resp->status = status;
            if (idempotent && !fn && !x.streaming && transport_failures < MAX_TRANSPORT_RETRIES &&
                (int32_t)attempt < c->max_retries) {
                double backoff = 0.5 * (double)(1 << transport_failures++);
                ms_log(c->log, MS_LOG_WARN, "request failed; retrying", "verb", method, "path", r->path, "error",
                       cerr, NULL);
                if (ms_kube_cancel_sleep(r->cancel, backoff))
                    return ms_error_set(err, MS_ESTATE, "%s %s: cancelled", method, r->path);
                continue;
            }
            return ms_error_set(err, MS_EIO, "%s %s%s: %s", method, c->server, r->path, cerr);
        }
        if (cc == CURLE_OPERATION_TIMEDOUT) {   /* a stream hit its time limit */
            free(x.body);
            resp->status = status;
            return ms_error_set(err, MS_EIO, "%s %s: stream timed out", method, r->path);
        }

        /* The server answered. */
        if (status == 401 && c->token_file) {
            pthread_mutex_lock(&c->tok_mu);
            c->token_stale = true;
            pthread_mutex_unlock(&c->tok_mu);
        }
        bool retryable = (status == 429 || status >= 500) && !x.streaming && (int32_t)attempt < c->max_retries;
        if (retryable && (x.has_retry_after || (idempotent && status >= 500))) {
            double delay = x.has_retry_after ? x.retry_after : fmin(0.5 * pow(2, attempt), 8);
            char st[24], d[32];
            snprintf(st, sizeof st, "%ld", status);
            snprintf(d, sizeof d, "%.1f", delay);
            ms_log(c->log, MS_LOG_INFO, "retrying request", "verb", method, "path", r->path, "status", st,
                   "after", d, NULL);
            free(x.body);
            if (ms_kube_cancel_sleep(r->cancel, delay))
                return ms_error_set(err, MS_ESTATE, "%s %s: cancelled", method, r->path);
            continue;
        }
        resp->status = status;
        resp->body = x.body;
        resp->len = x.len;
        resp->retry_after = x.has_retry_after ? x.retry_after : 0;
        if (fn && x.streaming && pending)
            return ms_error_set(err, MS_EIO, "%s %s: the stream ended inside a line", method, r->path);
        return MS_OK;
    }
}

void ms_kube_response_free(ms_kube_response *r) {
    if (!r) return;
    free(r->body);
    r->body = NULL;
    r->len = 0;
}

ms_rc ms_kube_do(ms_kube_client *c, const ms_kube_request *r, ms_kube_response *resp, ms_error *err) {
    return perform(c, r, NULL, NULL, resp, err);
}

ms_rc ms_kube_stream(ms_kube_client *c, const ms_kube_request *r, ms_line_fn fn, void *ctx, ms_kube_response *resp,
                     ms_error *err) {
    return perform(c, r, fn, ctx, resp, err);
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

/* ---- asynchronous requests ---- */

/* One request of an engine, from submit to its callback. */
typedef struct atask {
    struct atask *next;
    ms_kube_request r;
    ms_kube_async_fn fn;
    void *ctx;
    CURL *easy;                    /* while in flight */
    struct curl_slist *hdrs;
    char *url;
    xfer x;
    double not_before;             /* monotonic: its rate-limiter token, or a retry delay */
    double throttled;              /* the wait the token cost, for the stats */
    bool has_token;
    uint32_t attempt;
    int transport_failures;
    double t0;
} atask;

typedef struct alist {
    atask *head, *tail;
} alist;

static void alist_push(alist *l, atask *t) {
    t->next = NULL;
    if (l->tail) l->tail->next = t;
    else l->head = t;
    l->tail = t;
}

struct ms_kube_async {
    ms_kube_client *c;
    CURLM *multi;
    pthread_t thread;
    uint32_t max_in_flight;
    pthread_mutex_t mu;
    alist submitted;               /* under mu */
    bool closing;                  /* under mu */
    double drain_deadline;         /* under mu */
    atomic_uint pending;
    /* the engine thread's own */
    alist waiting;                 /* FIFO: not started (first attempt or a retry) */
    uint32_t active;               /* streams in flight */
    atask *inflight;               /* those, linked through next */
    uint32_t reserved;             /* waiting tasks holding a token */
    CURL **idle;                   /* easy handles kept for reuse */
    uint32_t nidle;
};

static void async_deliver(ms_kube_async *a, atask *t, ms_rc rc, ms_kube_response *resp, const ms_error *err) {
    t->fn(t->ctx, rc, resp, rc == MS_OK ? NULL : err);
    atomic_fetch_sub(&a->pending, 1);
    free(t);
}

static void async_fail(ms_kube_async *a, atask *t, ms_rc rc, const char *fmt, const char *what) {
    ms_kube_response resp = {.attempts = t->attempt + 1};
    ms_error err = {0};
    ms_error_set(&err, rc, fmt, t->r.method ? t->r.method : "GET", t->r.path, what);
    async_deliver(a, t, rc, &resp, &err);
}

static void inflight_unlink(ms_kube_async *a, atask *t) {
    for (atask **p = &a->inflight; *p; p = &(*p)->next)
        if (*p == t) {
            *p = t->next;
            break;
        }
    t->next = NULL;
}

static void async_release_easy(ms_kube_async *a, atask *t) {
    if (t->easy) {
        curl_easy_reset(t->easy);   /* drops its pointers to hdrs, url and x */
        if (a->nidle < a->max_in_flight) a->idle[a->nidle++] = t->easy;
        else curl_easy_cleanup(t->easy);
        t->easy = NULL;
    }
    curl_slist_free_all(t->hdrs);
    t->hdrs = NULL;
    free(t->url);
    t->url = NULL;
}

/* Puts an attempt on the multi handle; false when it could not start (the
 * task is then delivered as failed). */
static bool async_start(ms_kube_async *a, atask *t, double now) {
    CURL *e = a->nidle ? a->idle[--a->nidle] : curl_easy_init();
    if (!e) {
        async_fail(a, t, MS_ENOMEM, "%s %s: %s", "out of memory");
        return false;
    }
    t->easy = e;
    memset(&t->x, 0, sizeof t->x);
    t->x.easy = e;
    t->t0 = now;
    CURLcode cc = setup(a->c, e, &t->r, &t->x, &t->hdrs, &t->url, false);
    /* Wait for the connection being set up rather than open another: it
     * may turn out to multiplex. */
    if (cc == CURLE_OK) cc = curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
    /* Buffers are per handle, and a handle per stream: API requests are
     * small, libcurl's default upload buffer (64 KiB) is sized for bulk
     * transfers. */
    if (cc == CURLE_OK) cc = curl_easy_setopt(e, CURLOPT_UPLOAD_BUFFERSIZE, 16384L);
    if (cc == CURLE_OK) cc = curl_easy_setopt(e, CURLOPT_PRIVATE, t);
    if (cc != CURLE_OK || curl_multi_add_handle(a->multi, e) != CURLM_OK) {
        async_release_easy(a, t);
        async_fail(a, t, MS_EIO, "%s %s: %s", cc != CURLE_OK ? curl_easy_strerror(cc) : "cannot start the transfer");
        return false;
    }
    a->active++;
    t->next = a->inflight;
    a->inflight = t;
    return true;
}

/* Starts the waiting tasks that are due, within the in-flight limit, in
 * submission order; *next_due: the earliest start still ahead (0: none). */
static void async_start_due(ms_kube_async *a, double now, double *next_due) {
    *next_due = 0;
    atask *prev = NULL, *t = a->waiting.head;
    while (t && a->active < a->max_in_flight) {
        atask *next = t->next;
        if (!t->has_token) {
            if (a->active + a->reserved >= a->max_in_flight) break;
            double wait = ms_rate_limiter_reserve(a->c->rl);
            t->has_token = true;
            t->throttled = wait;
            a->reserved++;
            if (now + wait > t->not_before) t->not_before = now + wait;
        }
        if (t->not_before > now) {
            if (*next_due == 0 || t->not_before < *next_due) *next_due = t->not_before;
            prev = t;
            t = next;
            continue;
        }
        /* unlink */
        if (prev) prev->next = next;
        else a->waiting.head = next;
        if (a->waiting.tail == t) a->waiting.tail = prev;
        a->reserved--;
        if (ms_kube_cancel_fired(t->r.cancel)) async_fail(a, t, MS_ESTATE, "%s %s: %s", "cancelled");
        else async_start(a, t, now);
        t = next;
    }
}

static void async_retry(ms_kube_async *a, atask *t, double now, double delay) {
    free(t->x.body);
    memset(&t->x, 0, sizeof t->x);
    t->attempt++;
    t->has_token = false;
    t->not_before = now + delay;
    alist_push(&a->waiting, t);
}

/* A finished attempt: retried as perform() would, or delivered. */
static void async_finish(ms_kube_async *a, atask *t, CURLcode cc, double now) {
    ms_kube_client *c = a->c;
    const char *method = t->r.method ? t->r.method : "GET";
    long status = 0, conns = 0, version = 0;
    curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(t->easy, CURLINFO_NUM_CONNECTS, &conns);
    curl_easy_getinfo(t->easy, CURLINFO_HTTP_VERSION, &version);
    curl_multi_remove_handle(a->multi, t->easy);
    a->active--;
    inflight_unlink(a, t);
    async_release_easy(a, t);
    count(c, t->attempt > 0, t->throttled, conns, version == CURL_HTTP_VERSION_2_0);
    const char *cerr = curl_easy_strerror(cc);
    if (ms_log_enabled(c->log, MS_LOG_DEBUG)) {
        char st[24], ms[32];
        snprintf(st, sizeof st, "%ld", status);
        snprintf(ms, sizeof ms, "%.1f", (now - t->t0) * 1000);
        ms_log(c->log, MS_LOG_DEBUG, "request", "verb", method, "path", t->r.path, "status", st, "ms", ms,
               cc != CURLE_OK ? "error" : NULL, cerr, NULL);
    }
    if (t->x.oom) {
        free(t->x.body);
        async_fail(a, t, MS_ENOMEM, "%s %s: %s", "out of memory reading the answer");
        return;
    }
    if (cc != CURLE_OK) {
        if (is_get(method) && t->transport_failures < MAX_TRANSPORT_RETRIES && (int32_t)t->attempt < c->max_retries) {
            double backoff = 0.5 * (double)(1 << t->transport_failures++);
            ms_log(c->log, MS_LOG_WARN, "request failed; retrying", "verb", method, "path", t->r.path, "error", cerr,
                   NULL);
            async_retry(a, t, now, backoff);
            return;
        }
        free(t->x.body);
        ms_kube_response resp = {.status = status, .attempts = t->attempt + 1};
        ms_error err = {0};
        ms_error_set(&err, MS_EIO, "%s %s%s: %s", method, c->server, t->r.path, cerr);
        async_deliver(a, t, MS_EIO, &resp, &err);
        return;
    }
    if (status == 401 && c->token_file) {
        pthread_mutex_lock(&c->tok_mu);
        c->token_stale = true;
        pthread_mutex_unlock(&c->tok_mu);
    }
    bool retryable = (status == 429 || status >= 500) && (int32_t)t->attempt < c->max_retries;
    if (retryable && (t->x.has_retry_after || (is_get(method) && status >= 500))) {
        double delay = t->x.has_retry_after ? t->x.retry_after : fmin(0.5 * pow(2, t->attempt), 8);
        char st[24], d[32];
        snprintf(st, sizeof st, "%ld", status);
        snprintf(d, sizeof d, "%.1f", delay);
        ms_log(c->log, MS_LOG_INFO, "retrying request", "verb", method, "path", t->r.path, "status", st, "after", d,
               NULL);
        async_retry(a, t, now, delay);
        return;
    }
    ms_kube_response resp = {.status = status, .body = t->x.body, .len = t->x.len,
                             .retry_after = t->x.has_retry_after ? t->x.retry_after : 0,
                             .attempts = t->attempt + 1};
    async_deliver(a, t, MS_OK, &resp, NULL);
}

static void async_drop_list(ms_kube_async *a, atask *t) {
    while (t) {
        atask *next = t->next;
        async_fail(a, t, MS_ESTATE, "%s %s: %s", "dropped at shutdown");
        t = next;
    }
}

static void *async_main(void *arg) {
    ms_kube_async *a = arg;
    for (;;) {
        pthread_mutex_lock(&a->mu);
        if (a->submitted.head) {
            if (a->waiting.tail) a->waiting.tail->next = a->submitted.head;
            else a->waiting.head = a->submitted.head;
            a->waiting.tail = a->submitted.tail;
            a->submitted.head = a->submitted.tail = NULL;
        }
        bool closing = a->closing;
        double deadline = a->drain_deadline;
        pthread_mutex_unlock(&a->mu);
        double now = ms_monotonic_now(NULL);
        if (closing && (now >= deadline || (a->active == 0 && !a->waiting.head))) break;
        double next_due;
        async_start_due(a, now, &next_due);
        int running = 0;
        if (curl_multi_perform(a->multi, &running) != CURLM_OK) break;
        CURLMsg *m;
        int q;
        now = ms_monotonic_now(NULL);
        while ((m = curl_multi_info_read(a->multi, &q))) {
            if (m->msg != CURLMSG_DONE) continue;
            atask *t = NULL;
            curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&t);
            CURLcode cc = m->data.result;
            if (t) async_finish(a, t, cc, now);
        }
        int timeout_ms = 1000;
        if (next_due > 0) {
            double d = (next_due - now) * 1000 + 1;
            if (d < timeout_ms) timeout_ms = d < 0 ? 0 : (int)d;
        }
        if (closing) {
            double d = (deadline - now) * 1000 + 1;
            if (d < timeout_ms) timeout_ms = d < 0 ? 0 : (int)d;
        }
        /* A finished transfer may have freed room for a waiting one. */
        if (a->waiting.head && a->active < a->max_in_flight && a->waiting.head->not_before <= now) timeout_ms = 0;
        if (timeout_ms > 0 && curl_multi_poll(a->multi, NULL, 0, timeout_ms, NULL) != CURLM_OK) break;
    }
    /* Whatever is left is dropped: in flight, waiting, and submitted late. */
    while (a->inflight) {
        atask *t = a->inflight;
        curl_multi_remove_handle(a->multi, t->easy);
        a->active--;
        inflight_unlink(a, t);
        async_release_easy(a, t);
        free(t->x.body);
        async_fail(a, t, MS_ESTATE, "%s %s: %s", "dropped at shutdown");
    }
    async_drop_list(a, a->waiting.head);
    a->waiting.head = a->waiting.tail = NULL;
    pthread_mutex_lock(&a->mu);
    atask *late = a->submitted.head;
    a->submitted.head = a->submitted.tail = NULL;
    pthread_mutex_unlock(&a->mu);
    async_drop_list(a, late);
    return NULL;
}

ms_rc ms_kube_async_new(ms_kube_client *c, uint32_t max_in_flight, ms_kube_async **out, ms_error *err) {
    *out = NULL;
    ms_kube_async *a = calloc(1, sizeof *a);
    if (!a) return ms_error_set(err, MS_ENOMEM, "out of memory");
    a->c = c;
    a->max_in_flight = max_in_flight ? max_in_flight : 64;
    atomic_init(&a->pending, 0);
    pthread_mutex_init(&a->mu, NULL);
    if (!(a->idle = calloc(a->max_in_flight, sizeof *a->idle)) || !(a->multi = curl_multi_init())) {
        ms_kube_async_free(a, 0);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    curl_multi_setopt(a->multi, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX);
    curl_multi_setopt(a->multi, CURLMOPT_MAX_CONCURRENT_STREAMS, (long)a->max_in_flight);
    /* HTTP/2: one connection carries every stream. HTTP/1.1: a few
     * connections, each a request at a time. */
    curl_multi_setopt(a->multi, CURLMOPT_MAX_HOST_CONNECTIONS, 8L);
    if (pthread_create(&a->thread, NULL, async_main, a) != 0) {
        curl_multi_cleanup(a->multi);
        a->multi = NULL;
        ms_kube_async_free(a, 0);
        return ms_error_set(err, MS_EIO, "cannot start the request thread");
    }
    *out = a;
    return MS_OK;
}

ms_rc ms_kube_async_submit(ms_kube_async *a, const ms_kube_request *r, ms_kube_async_fn fn, void *ctx) {
    atask *t = calloc(1, sizeof *t);
    if (!t) return MS_ENOMEM;
    t->r = *r;
    t->fn = fn;
    t->ctx = ctx;
    pthread_mutex_lock(&a->mu);
    if (a->closing) {
        pthread_mutex_unlock(&a->mu);
        free(t);
        return MS_ESTATE;
    }
    atomic_fetch_add(&a->pending, 1);
    /* The thread takes the whole list at once: one wakeup per batch. */
    bool wake = !a->submitted.head;
    alist_push(&a->submitted, t);
    pthread_mutex_unlock(&a->mu);
    if (wake) curl_multi_wakeup(a->multi);
    return MS_OK;
}

uint32_t ms_kube_async_pending(ms_kube_async *a) { return atomic_load(&a->pending); }

void ms_kube_async_free(ms_kube_async *a, double drain) {
    if (!a) return;
    if (a->multi) {
        pthread_mutex_lock(&a->mu);
        a->closing = true;
        a->drain_deadline = ms_monotonic_now(NULL) + (drain > 0 ? drain : 0);
        pthread_mutex_unlock(&a->mu);
        curl_multi_wakeup(a->multi);
        pthread_join(a->thread, NULL);
        for (uint32_t i = 0; i < a->nidle; i++) curl_easy_cleanup(a->idle[i]);
        curl_multi_cleanup(a->multi);
    }
    free(a->idle);
    pthread_mutex_destroy(&a->mu);
    free(a);
}
