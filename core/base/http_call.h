/* One HTTP call as data, and the interface that makes calls: what a layer
 * below the client (the scheduler's extenders) needs to talk HTTP(S)
 * without including the client, which implements it
 * (client/http_endpoint.h) with the API client's libcurl and TLS set-up.
 * Nothing here knows libcurl. */
#ifndef MOONSCHED_HTTP_CALL_H
#define MOONSCHED_HTTP_CALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

/* client-go's TLS settings. Data wins over the file of the same part; NULL
 * or empty: not given. Everything must outlive the calls that use it. */
typedef struct ms_http_tls {
    bool insecure;                 /* no check of the server's certificate */
    /* The name the certificate is checked against and sent as SNI, instead
     * of the URL's host (the connection still goes to the URL's host). */
    const char *server_name;
    const char *ca_file, *cert_file, *key_file;
    const void *ca_data, *cert_data, *key_data;    /* PEM */
    size_t ca_len, cert_len, key_len;
} ms_http_tls;

typedef struct ms_http_call {
    const char *method;            /* NULL: POST */
    const char *url;
    const char *body;
    size_t body_len;
    const char *content_type;      /* NULL: application/json */
    double timeout;                /* seconds for the whole call; 0: none */
    const ms_http_tls *tls;        /* NULL: the system's CAs, no client certificate */
    /* The request could not be built (out of memory): not sent, its
     * answer's error says so. */
    bool failed;
} ms_http_call;

typedef struct ms_http_result {
    long status;                   /* 0 when no answer came */
    ms_buf body;                   /* reset by each call; the caller frees it */
    char error[256];               /* the transport's failure; "" when an answer came */
} ms_http_result;

/* What makes calls: the implementation's ctx and functions. */
typedef struct ms_http_caller {
    void *ctx;
    /* Sends reqs[0..n) at once and returns when every one has its answer
     * (or failure) in answers[i]. */
    void (*call_many)(void *ctx, const ms_http_call *reqs, ms_http_result *answers, uint32_t n);
    /* Whether req's URL and TLS settings can be used, before any call
     * (configuration checks); why receives the reason. */
    bool (*check)(void *ctx, const ms_http_call *req, char *why, size_t why_size);
} ms_http_caller;

static inline void ms_http_call_one(const ms_http_caller *c, const ms_http_call *req, ms_http_result *answer) {
    c->call_many(c->ctx, req, answer, 1);
}

#endif
