/* HTTP client for the Kubernetes API (libcurl): TLS verified by default,
 * bearer tokens (re-read from a token file every minute), client
 * certificates, HTTP/2 when the server offers it, connections kept alive
 * and reused, client-side rate limiting (qps/burst), Retry-After honoured.
 *
 * Thread-safe: any number of threads may issue requests at once; each
 * blocking request uses a connection of its own from a pool (an idle
 * connection is reused). ms_kube_async instead multiplexes many requests
 * over shared connections from one thread. */
#ifndef MOONSCHED_KUBE_CLIENT_H
#define MOONSCHED_KUBE_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/line_splitter.h"
#include "base/rate_limiter.h"
#include "client/exec_credential.h"
#include "client/kubeconfig.h"
#include "moonsched/error.h"
#include "moonsched/log.h"

/* Cancels requests and sleeps from another thread, at once (not at the
 * next timeout). Sticky: once fired, every request that uses it fails with
 * MS_ESTATE and every sleep returns early. */
typedef struct ms_kube_cancel ms_kube_cancel;

ms_kube_cancel *ms_kube_cancel_new(void);
void ms_kube_cancel_free(ms_kube_cancel *c);
void ms_kube_cancel_fire(ms_kube_cancel *c);
bool ms_kube_cancel_fired(const ms_kube_cancel *c);
/* Sleeps up to seconds; true when woken by the cancel (c may be NULL). */
bool ms_kube_cancel_sleep(ms_kube_cancel *c, double seconds);

typedef struct ms_kube_client ms_kube_client;

typedef struct ms_kube_client_options {
    const ms_kubeconfig *config;   /* copied; need not outlive the call */
    /* The user's exec credential plugin, shared with the other clients
     * of the same kubeconfig (the client takes a reference). NULL: the
     * client has one of its own when config->exec is set. */
    ms_exec_credential *credentials;
    double qps;                    /* clientConnection.qps; <= 0: no limit */
    int32_t burst;                 /* clientConnection.burst */
    const char *user_agent;        /* NULL: "moonsched/0.1" */
    double timeout;                /* seconds per request (not streams); 0: 60 */
    /* Retries of one request: on 429 and 5xx answers that carry
     * Retry-After (any method: the server asks for it; waits capped at
     * 60 s), and for GET also on other 5xx answers (backoff 0.5 s doubling
     * to 8 s) and on transport errors (at most 3 times). Streams are not
     * retried once lines have been delivered. 0: 10, as client-go;
     * < 0: none. */
    int32_t max_retries;
    bool disable_compression;      /* else gzip is accepted, as client-go does */
    double token_reload;           /* seconds between token file reads; 0: 60 */
    const ms_logger *log;          /* NULL: ms_log_default; must outlive the client */
    ms_clock_fn clock;             /* for the rate limiter; NULL: monotonic */
    void *clock_ctx;
    /* Called after every attempt, retries included, on the thread that
     * made it (rest_client_* metrics): the method, the HTTP status (0: no
     * answer) and the seconds it took, or -1 for a stream (a watch lasts
     * as long as it lasts: no latency). Must be thread-safe; NULL: none. */
    void (*observe)(void *ctx, const char *method, long status, double seconds);
    void *observe_ctx;
} ms_kube_client_options;

ms_rc ms_kube_client_new(const ms_kube_client_options *o, ms_kube_client **out, ms_error *err);
void ms_kube_client_free(ms_kube_client *c);

/* The server's base URL ("https://127.0.0.1:6443"). */
const char *ms_kube_client_server(const ms_kube_client *c);

typedef struct ms_kube_request {
    const char *method;            /* "GET", "POST", "PUT", "PATCH", "DELETE" */
    const char *path;              /* with query: "/api/v1/pods?limit=500" */
    const char *body;              /* NULL: none */
    size_t body_len;
    /* NULL: "application/json", or for PATCH
     * "application/strategic-merge-patch+json" (kubectl's default). */
    const char *content_type;
    double timeout;                /* seconds; 0: the client's (streams: none) */
    ms_kube_cancel *cancel;        /* NULL: not cancellable */
} ms_kube_request;

typedef struct ms_kube_response {
    long status;                   /* HTTP status; 0 when no answer came */
    char *body;                    /* NUL-terminated, malloc'd (streams: only for
                                      non-2xx answers); may be NULL when empty */
    size_t len;
    double retry_after;            /* Retry-After of the last answer, seconds; 0: none */
    uint32_t attempts;             /* requests sent, retries included */
    double sent;                   /* async: monotonic time its last attempt went on the
                                      wire (ms_kube_async); 0 otherwise */
} ms_kube_response;

void ms_kube_response_free(ms_kube_response *r);

/* Sends a request and reads the whole answer. MS_OK whenever the server
 * answered (whatever the status: look at resp->status); MS_EIO when it
 * could not be reached or the transfer failed or timed out; MS_ESTATE when
 * cancelled. resp is always initialised (free it in every case). */
ms_rc ms_kube_do(ms_kube_client *c, const ms_kube_request *r, ms_kube_response *resp, ms_error *err);

/* Shorthands for JSON bodies. */
ms_rc ms_kube_get(ms_kube_client *c, const char *path, ms_kube_response *resp, ms_error *err);
ms_rc ms_kube_post(ms_kube_client *c, const char *path, const char *json, ms_kube_response *resp,
                   ms_error *err);
ms_rc ms_kube_patch(ms_kube_client *c, const char *path, const char *content_type, const char *json,
                    ms_kube_response *resp, ms_error *err);
ms_rc ms_kube_delete(ms_kube_client *c, const char *path, ms_kube_response *resp, ms_error *err);

/* A streaming GET (watch): while the answer is 2xx, each complete line of
 * the body goes to fn as it arrives (see ms_line_splitter); a non-2xx
 * answer is read whole into resp->body instead. Returns MS_OK when the
 * server ended the stream, or when fn returned non-zero; MS_EIO on a
 * transport failure, a timeout, or a stream that ended inside a line;
 * MS_ESTATE when cancelled. 429/5xx answers with Retry-After are retried
 * before streaming starts, like ms_kube_do. */
ms_rc ms_kube_stream(ms_kube_client *c, const ms_kube_request *r, ms_line_fn fn, void *ctx,
                     ms_kube_response *resp, ms_error *err);

/* A LIST whose items are decoded one at a time: while the answer is 2xx,
 * each element of its "items" goes to fn as it arrives (see
 * ms_list_items) and resp->body gets the rest of the document (kind,
 * apiVersion, metadata; "items":[] empty); a non-2xx answer is read whole
 * into resp->body. Timed out, retried (until the first item arrived) and
 * counted as ms_kube_do. MS_OK when the answer is complete or fn returned
 * non-zero; MS_EIO also when a 2xx answer is not a JSON object or ends
 * before its end. */
ms_rc ms_kube_list(ms_kube_client *c, const ms_kube_request *r, ms_line_fn fn, void *ctx,
                   ms_kube_response *resp, ms_error *err);

/* Asynchronous requests: one thread drives a libcurl multi handle, and
 * the requests share its connections (HTTP/2 streams multiplexed over one
 * connection when the server speaks HTTP/2; a few connections otherwise).
 * The client's rate limiter, Retry-After and retry rules apply as for
 * ms_kube_do (a request waiting for a token or a retry holds no stream and
 * blocks no other). Many requests in flight cost one thread, one TLS
 * session and a stream each, instead of a thread and a connection each. */
typedef struct ms_kube_async ms_kube_async;

/* Called on the engine's thread when a request is over. rc as
 * ms_kube_do's (MS_ESTATE: dropped at shutdown, never sent or not
 * answered); resp is the callee's (free it with ms_kube_response_free);
 * err is NULL when rc == MS_OK. */
typedef void (*ms_kube_async_fn)(void *ctx, ms_rc rc, ms_kube_response *resp, const ms_error *err);

/* max_in_flight: streams (requests sent and not answered) at once; 0: 64.
 * c must outlive the engine. */
ms_rc ms_kube_async_new(ms_kube_client *c, uint32_t max_in_flight, ms_kube_async **out,
                        ms_error *err);
/* Queues a request (r->timeout as for ms_kube_do; r->cancel is checked
 * before each attempt; streams are not supported). The strings r points to (path, body, content_type,
 * method) must stay valid until fn is called; r itself is copied.
 * MS_ESTATE once the engine is shutting down (fn is then not called). */
ms_rc ms_kube_async_submit(ms_kube_async *a, const ms_kube_request *r, ms_kube_async_fn fn,
                           void *ctx);
/* Requests submitted and not yet called back. */
uint32_t ms_kube_async_pending(ms_kube_async *a);
/* Stops taking requests, waits up to `drain` seconds for those submitted,
 * then drops the rest (their fn gets MS_ESTATE) and joins the thread. */
void ms_kube_async_free(ms_kube_async *a, double drain);

/* Appends s percent-encoded for a query value to buf (size n, always
 * NUL-terminated); false when it does not fit. */
bool ms_kube_query_escape(char *buf, size_t n, const char *s);

/* The message of a Kubernetes Status body ({"kind":"Status","message":...}),
 * or the start of the body when it is not one, into buf. */
void ms_kube_status_message(const ms_kube_response *r, char *buf, size_t n);

/* Whether the server's version (GET /version: major, minor; "26+" reads
 * 26) is at least major.minor; `unknown` when it cannot be read. */
bool ms_kube_server_at_least(ms_kube_client *c, int major, int minor, bool unknown);

/* Requests made so far, for metrics and tests. */
typedef struct ms_kube_client_stats {
    uint64_t requests;             /* attempts, retries included */
    uint64_t retries;
    uint64_t throttled;            /* attempts that waited for the rate limiter */
    double throttle_seconds;       /* total time waited */
    uint64_t connections;          /* new connections opened */
    uint64_t http2;                /* attempts answered over HTTP/2 */
} ms_kube_client_stats;

void ms_kube_client_stats_get(ms_kube_client *c, ms_kube_client_stats *out);

#endif
