/* Requests from the HTTPS threads to the scheduler thread (/debug/explain,
 * /debug/snapshot, /debug/shadow): the scheduler thread owns the cache, the queue and the
 * framework, so a connection thread never reads them; it queues its
 * request, wakes the scheduler loop through an eventfd and waits for the
 * answer (at most `timeout`). The loop answers between two cycles.
 * Thread-safe. */
#ifndef MOONSCHED_SERVING_DEBUG_REQUESTS_H
#define MOONSCHED_SERVING_DEBUG_REQUESTS_H

#include "serving/http_server.h"

typedef struct ms_debug_requests ms_debug_requests;

typedef enum ms_debug_kind {
    MS_DEBUG_EXPLAIN = 0,          /* arg: "NAMESPACE/NAME" */
    MS_DEBUG_SNAPSHOT,             /* arg: "" */
    MS_DEBUG_SHADOW,               /* arg: "" */
} ms_debug_kind;

/* Work the asking thread finishes, so that the scheduler thread only
 * takes what it must (references to its objects) and the writing happens
 * off it: fn(ctx, out) fills the answer on the asking thread, or, with out
 * NULL (the asker gave up), only frees ctx. */
typedef struct ms_debug_later {
    void (*fn)(void *ctx, ms_http_answer *out);
    void *ctx;
} ms_debug_later;

/* Fills the answer (status, malloc'd body, content type) on the scheduler
 * thread, or sets *later to finish it on the asking thread. */
typedef void (*ms_debug_answer_fn)(void *ctx, ms_debug_kind kind, const char *arg, ms_http_answer *out,
                                   ms_debug_later *later);

ms_debug_requests *ms_debug_requests_new(void);
/* Readable when requests wait: poll it in the scheduler loop. */
int ms_debug_requests_fd(const ms_debug_requests *q);
/* From a connection thread: blocks until the scheduler thread answered,
 * the queue was closed (503) or `timeout` seconds passed (503). */
void ms_debug_requests_ask(ms_debug_requests *q, ms_debug_kind kind, const char *arg, double timeout,
                           ms_http_answer *out);
/* On the scheduler thread: answers every waiting request through fn. */
void ms_debug_requests_serve(ms_debug_requests *q, ms_debug_answer_fn fn, void *ctx);
/* Refuses new requests and answers the waiting ones with 503 (before the
 * HTTP server stops, so that none waits out its timeout). */
void ms_debug_requests_close(ms_debug_requests *q);
/* After close, once no connection thread can ask any more. NULL is fine. */
void ms_debug_requests_free(ms_debug_requests *q);

#endif
