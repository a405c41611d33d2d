/* What the blocking client (kube_client.c) shares with the asynchronous
 * engine (kube_async.c): one transfer's state and libcurl setup, and the
 * rules both apply after an attempt (statistics, logging, retries), so
 * that a request behaves the same whichever way it is sent. */
#ifndef MOONSCHED_CLIENT_KUBE_CLIENT_PRIV_H
#define MOONSCHED_CLIENT_KUBE_CLIENT_PRIV_H

#include <curl/curl.h>

#include "base/buf.h"
#include "client/kube_client.h"
#include "codec/list_items.h"

/* One transfer's state, shared with libcurl's callbacks. */
typedef struct ms_kube_xfer {
    CURL *easy;
    ms_buf body;
    double retry_after;
    bool has_retry_after;
    /* streams */
    ms_line_fn fn;
    void *ctx;
    ms_line_splitter split;
    bool list;               /* fn gets a List's items, the envelope goes to body (ms_kube_list) */
    ms_list_items items;
    long status;
    bool streaming;      /* 2xx body bytes reached fn: the request can no longer be retried */
    bool stopped;        /* fn asked to stop */
    bool overflow;
    /* exec plugin credentials: the generation sent (a 401 invalidates
     * it), or why there were none (setup then fails) */
    uint64_t cred_generation;
    char cred_error[512];
} ms_kube_xfer;

/* Resets e and sets it up for r: URL, headers (into *hdrs, *url: the
 * caller frees both once e is reset), credentials, body, callbacks on x.
 * When an exec credential plugin fails, returns CURLE_LOGIN_DENIED with
 * x->cred_error set: the request fails with that error, unretried. */
CURLcode ms_kube_xfer_setup(ms_kube_client *c, CURL *e, const ms_kube_request *r, ms_kube_xfer *x,
                            struct curl_slist **hdrs, char **url, bool stream);

/* Waits the rate limiter asks for before the next attempt, in seconds
 * (the token is taken now). */
double ms_kube_rate_reserve(ms_kube_client *c);

/* Counts a finished attempt on e in the statistics (before e is reset);
 * returns its HTTP status (0: no answer). */
long ms_kube_xfer_account(ms_kube_client *c, CURL *e, bool retry, double throttled);

/* An attempt for the client's observer (ms_kube_client_options.observe);
 * seconds < 0 for a stream. */
void ms_kube_observe(ms_kube_client *c, const char *method, long status, CURLcode cc, double seconds);
/* The debug line of an attempt; cerr is logged when cc failed. */
void ms_kube_log_attempt(ms_kube_client *c, const char *method, const char *path, long status, double seconds,
                         CURLcode cc, const char *cerr);

/* After a transport failure: true, with the backoff in *delay, when the
 * attempt is to be retried (GETs that streamed nothing, at most
 * MAX_TRANSPORT_RETRIES times). */
bool ms_kube_retry_transport(ms_kube_client *c, const char *method, const char *path, const ms_kube_xfer *x,
                             uint32_t attempt, int *transport_failures, const char *cerr, double *delay);

/* After an answer: marks the token stale on 401; true, with the delay in
 * *delay, when the answer asks for a retry (429/5xx with Retry-After, or
 * a GET's 5xx). */
bool ms_kube_retry_answer(ms_kube_client *c, const char *method, const char *path, long status,
                          const ms_kube_xfer *x, uint32_t attempt, double *delay);

#endif
