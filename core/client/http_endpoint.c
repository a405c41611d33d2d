/* Calls of base/http_call.h over libcurl. Each call in flight has an easy
 * handle of the endpoint's pool; the multi handle holds the connections,
 * so that a later call to the same server reuses one (keep-alive). */
#include "client/http_endpoint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct slot {
    CURL *h;
    struct curl_slist *headers, *connect_to;
    char *url;                     /* the URL under tls->server_name, else NULL */
    ms_http_result *answer;
    CURLcode result;
    char errbuf[CURL_ERROR_SIZE];
} slot;

struct ms_http_endpoint {
    CURLM *multi;
    slot *slots;
    uint32_t nslots;
};

#define SET(opt, val)                                                    \
    do {                                                                 \
        if ((cc = curl_easy_setopt(h, opt, val)) != CURLE_OK) return cc; \
    } while (0)

CURLcode ms_http_tls_apply(CURL *h, const ms_http_tls *t, bool copy) {
    CURLcode cc = CURLE_OK;
    unsigned int flags = copy ? CURL_BLOB_COPY : CURL_BLOB_NOCOPY;
    if (t->insecure) {
        SET(CURLOPT_SSL_VERIFYPEER, 0L);
        SET(CURLOPT_SSL_VERIFYHOST, 0L);
    } else if (t->ca_data && t->ca_len) {
        struct curl_blob b = {.data = (void *)t->ca_data, .len = t->ca_len, .flags = flags};
        SET(CURLOPT_CAINFO_BLOB, &b);
        /* client-go trusts the given CA only */
        SET(CURLOPT_CAPATH, (char *)NULL);
    } else if (t->ca_file && *t->ca_file) {
        SET(CURLOPT_CAINFO, t->ca_file);
    }
    if (t->cert_data && t->cert_len) {
        struct curl_blob b = {.data = (void *)t->cert_data, .len = t->cert_len, .flags = flags};
        SET(CURLOPT_SSLCERT_BLOB, &b);
        SET(CURLOPT_SSLCERTTYPE, "PEM");
    } else if (t->cert_file && *t->cert_file) {
        SET(CURLOPT_SSLCERT, t->cert_file);
    }
    if (t->key_data && t->key_len) {
        struct curl_blob b = {.data = (void *)t->key_data, .len = t->key_len, .flags = flags};
        SET(CURLOPT_SSLKEY_BLOB, &b);
        SET(CURLOPT_SSLKEYTYPE, "PEM");
    } else if (t->key_file && *t->key_file) {
        SET(CURLOPT_SSLKEY, t->key_file);
    }
    return CURLE_OK;
}

/* tls.serverName: the URL names that host (libcurl checks the certificate
 * against it and sends it as SNI) and CONNECT_TO sends the connection where
 * the URL pointed. */
static bool server_name_url(const char *url, const char *server_name, char **out,
                            struct curl_slist **connect_to) {
    CURLU *u = curl_url();
    char *host = NULL, *port = NULL, *res = NULL;
    bool ok = u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
              curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
              curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK &&
              curl_url_set(u, CURLUPART_HOST, server_name, 0) == CURLUE_OK &&
              curl_url_get(u, CURLUPART_URL, &res, 0) == CURLUE_OK;
    if (ok && out) {
        char ct[600];
        snprintf(ct, sizeof ct, "%s:%s:%s:%s", server_name, port, host, port);
        *out = strdup(res);
        *connect_to = curl_slist_append(NULL, ct);
    }
    curl_free(host);
    curl_free(port);
    curl_free(res);
    curl_url_cleanup(u);
    return ok;
}

static size_t on_body(char *p, size_t size, size_t n, void *ctx) {
    ms_http_result *a = ctx;
    ms_buf_append(&a->body, p, size * n);
    return a->body.failed ? 0 : size * n;
}

static CURLcode prepare(slot *s, const ms_http_call *r) {
    CURL *h = s->h;
    CURLcode cc = CURLE_OK;
    const ms_http_tls *t = r->tls;
    const char *url = r->url;
    if (t && t->server_name && *t->server_name) {
        if (!server_name_url(r->url, t->server_name, &s->url, &s->connect_to)) return CURLE_URL_MALFORMAT;
        if (!s->url || !s->connect_to) return CURLE_OUT_OF_MEMORY;
        url = s->url;
        SET(CURLOPT_CONNECT_TO, s->connect_to);
    }
    char ct[160];
    snprintf(ct, sizeof ct, "Content-Type: %s", r->content_type ? r->content_type : "application/json");
    /* Go's client sends no Expect: 100-continue, which would cost a round trip */
    const char *lines[] = {ct, "Expect:", "Accept: application/json"};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        struct curl_slist *l = curl_slist_append(s->headers, lines[i]);
        if (!l) return CURLE_OUT_OF_MEMORY;
        s->headers = l;
    }
    SET(CURLOPT_URL, url);
    SET(CURLOPT_NOSIGNAL, 1L);
    SET(CURLOPT_PROTOCOLS_STR, "http,https");
    SET(CURLOPT_HTTPHEADER, s->headers);
    SET(CURLOPT_USERAGENT, "moonsched");
    if (r->timeout > 0) SET(CURLOPT_TIMEOUT_MS, (long)(r->timeout * 1000 + 0.5));
    SET(CURLOPT_TCP_KEEPALIVE, 1L);
    SET(CURLOPT_WRITEFUNCTION, on_body);
    SET(CURLOPT_WRITEDATA, s->answer);
    SET(CURLOPT_ERRORBUFFER, s->errbuf);
    if (r->method && strcmp(r->method, "POST") != 0) SET(CURLOPT_CUSTOMREQUEST, r->method);
    SET(CURLOPT_POST, 1L);
    SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->body_len);
    SET(CURLOPT_POSTFIELDS, r->body ? r->body : "");
    return t ? ms_http_tls_apply(h, t, false) : CURLE_OK;
}

#undef SET

static void fail(ms_http_result *a, const char *errbuf, CURLcode cc) {
    snprintf(a->error, sizeof a->error, "%s", errbuf && *errbuf ? errbuf : curl_easy_strerror(cc));
}

static bool grow(ms_http_endpoint *ep, uint32_t n) {
    if (n <= ep->nslots) return true;
    slot *s = realloc(ep->slots, n * sizeof *s);
    if (!s) return false;
    ep->slots = s;
    for (; ep->nslots < n; ep->nslots++) {
        memset(&s[ep->nslots], 0, sizeof *s);
        if (!(s[ep->nslots].h = curl_easy_init())) return false;
    }
    return true;
}

static void call_many(void *ctx, const ms_http_call *reqs, ms_http_result *answers, uint32_t n) {
    ms_http_endpoint *ep = ctx;
    for (uint32_t i = 0; i < n; i++) {
        ms_buf_reset(&answers[i].body);
        answers[i].status = 0;
        answers[i].error[0] = '\0';
    }
    if (!grow(ep, n)) {
        for (uint32_t i = 0; i < n; i++) fail(&answers[i], NULL, CURLE_OUT_OF_MEMORY);
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        slot *s = &ep->slots[i];
        s->answer = &answers[i];
        s->errbuf[0] = '\0';
        curl_easy_reset(s->h);
        CURLcode cc = reqs[i].failed ? CURLE_OUT_OF_MEMORY : prepare(s, &reqs[i]);
        if (cc == CURLE_OK && curl_multi_add_handle(ep->multi, s->h) != CURLM_OK) cc = CURLE_FAILED_INIT;
        s->result = cc == CURLE_OK ? CURLE_FAILED_INIT : cc;
        if (cc != CURLE_OK) fail(&answers[i], NULL, cc);
    }
    int running = 1;
    while (running > 0) {
        if (curl_multi_perform(ep->multi, &running) != CURLM_OK) break;
        if (running > 0 && curl_multi_poll(ep->multi, NULL, 0, 1000, NULL) != CURLM_OK) break;
    }
    CURLMsg *m;
    int left;
    while ((m = curl_multi_info_read(ep->multi, &left))) {
        if (m->msg != CURLMSG_DONE) continue;
        for (uint32_t i = 0; i < n; i++)
            if (ep->slots[i].h == m->easy_handle) {
                ep->slots[i].result = m->data.result;
                curl_easy_getinfo(ep->slots[i].h, CURLINFO_RESPONSE_CODE, &answers[i].status);
            }
    }
    for (uint32_t i = 0; i < n; i++) {
        slot *s = &ep->slots[i];
        curl_multi_remove_handle(ep->multi, s->h);
        if (s->result != CURLE_OK && !answers[i].error[0]) fail(&answers[i], s->errbuf, s->result);
        curl_slist_free_all(s->headers);
        curl_slist_free_all(s->connect_to);
        free(s->url);
        s->headers = s->connect_to = NULL;
        s->url = NULL;
    }
}

static bool check(void *ctx, const ms_http_call *req, char *why, size_t why_size) {
    (void)ctx;
    const ms_http_tls *t = req->tls;
    if (t && t->server_name && *t->server_name && !server_name_url(req->url, t->server_name, NULL, NULL)) {
        snprintf(why, why_size, "cannot use \"%.100s\" with urlPrefix \"%.200s\"", t->server_name, req->url);
        return false;
    }
    return true;
}

ms_http_caller ms_http_endpoint_caller(ms_http_endpoint *ep) {
    return (ms_http_caller){.ctx = ep, .call_many = call_many, .check = check};
}

ms_rc ms_http_endpoint_new(ms_http_endpoint **out, ms_error *err) {
    *out = NULL;
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        return ms_error_set(err, MS_EIO, "libcurl initialisation failed");
    ms_http_endpoint *ep = calloc(1, sizeof *ep);
    if (ep) ep->multi = curl_multi_init();
    if (!ep || !ep->multi) {
        free(ep);
        curl_global_cleanup();
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    *out = ep;
    return MS_OK;
}

void ms_http_endpoint_free(ms_http_endpoint *ep) {
    if (!ep) return;
    for (uint32_t i = 0; i < ep->nslots; i++)
        if (ep->slots[i].h) curl_easy_cleanup(ep->slots[i].h);
    curl_multi_cleanup(ep->multi);
    free(ep->slots);
    free(ep);
    curl_global_cleanup();
}
