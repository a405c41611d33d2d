/* Asynchronous Kubernetes API requests: one thread drives a libcurl multi
 * handle, so that many requests in flight share its connections (HTTP/2
 * streams over one connection) instead of taking a thread and a
 * connection each. Rate limiting, Retry-After and retries follow the
 * blocking client's rules (kube_client_priv.h). */
#include "client/kube_client.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "client/kube_client_priv.h"

/* One request of an engine, from submit to its callback. */
typedef struct atask {
    struct atask *next;
    ms_kube_request r;
    ms_kube_async_fn fn;
    void *ctx;
    CURL *easy;                    /* while in flight */
    struct curl_slist *hdrs;
    char *url;
    ms_kube_xfer x;
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
    CURLcode cc = ms_kube_xfer_setup(a->c, e, &t->r, &t->x, &t->hdrs, &t->url, false);
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
        async_fail(a, t, MS_EIO, "%s %s: %s",
                   t->x.cred_error[0]    ? t->x.cred_error
                   : cc != CURLE_OK      ? curl_easy_strerror(cc)
                                         : "cannot start the transfer");
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
            double wait = ms_kube_rate_reserve(a->c);
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
    ms_buf_free(&t->x.body);
    memset(&t->x, 0, sizeof t->x);
    t->attempt++;
    t->has_token = false;
    t->not_before = now + delay;
    alist_push(&a->waiting, t);
}

/* A finished attempt: retried as the blocking client would, or delivered. */
static void async_finish(ms_kube_async *a, atask *t, CURLcode cc, double now) {
    ms_kube_client *c = a->c;
    const char *method = t->r.method ? t->r.method : "GET";
    long status = ms_kube_xfer_account(c, t->easy, t->attempt > 0, t->throttled);
    curl_multi_remove_handle(a->multi, t->easy);
    a->active--;
    inflight_unlink(a, t);
    async_release_easy(a, t);
    const char *cerr = curl_easy_strerror(cc);
    ms_kube_observe(c, method, status, cc, now - t->t0);
    ms_kube_log_attempt(c, method, t->r.path, status, now - t->t0, cc, cerr);
    double delay;
    if (t->x.body.failed) {
        ms_buf_free(&t->x.body);
        async_fail(a, t, MS_ENOMEM, "%s %s: %s", "out of memory reading the answer");
        return;
    }
    if (cc != CURLE_OK) {
        if (ms_kube_retry_transport(c, method, t->r.path, &t->x, t->attempt, &t->transport_failures, cerr, &delay)) {
            async_retry(a, t, now, delay);
            return;
        }
        ms_buf_free(&t->x.body);
        ms_kube_response resp = {.status = status, .attempts = t->attempt + 1, .sent = t->t0};
        ms_error err = {0};
        ms_error_set(&err, MS_EIO, "%s %s%s: %s", method, ms_kube_client_server(c), t->r.path, cerr);
        async_deliver(a, t, MS_EIO, &resp, &err);
        return;
    }
    if (ms_kube_retry_answer(c, method, t->r.path, status, &t->x, t->attempt, &delay)) {
        async_retry(a, t, now, delay);
        return;
    }
    ms_kube_response resp = {.status = status, .body = t->x.body.data, .len = t->x.body.len,
                             .retry_after = t->x.has_retry_after ? t->x.retry_after : 0,
                             .attempts = t->attempt + 1, .sent = t->t0};
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
        double now = ms_clock_monotonic();
        if (closing && (now >= deadline || (a->active == 0 && !a->waiting.head))) break;
        double next_due;
        async_start_due(a, now, &next_due);
        int running = 0;
        if (curl_multi_perform(a->multi, &running) != CURLM_OK) break;
        CURLMsg *m;
        int q;
        now = ms_clock_monotonic();
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
        ms_buf_free(&t->x.body);
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
        a->drain_deadline = ms_clock_monotonic() + (drain > 0 ? drain : 0);
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
