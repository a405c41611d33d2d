/* The scheduler thread's mailbox for debug requests. See
 * serving/debug_requests.h. A request lives on the heap: the asker frees it
 * once answered, or, when it gave up waiting, the scheduler thread frees
 * it after answering (`abandoned`), so neither waits for the other. */
#include "serving/debug_requests.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/mailbox.h"

typedef struct request {
    ms_job job;                    /* first: the queue links requests through it */
    ms_debug_kind kind;
    char *arg;
    ms_http_answer answer;
    ms_debug_later later;          /* fn NULL: the answer is complete */
    bool done, abandoned;          /* under mu */
} request;

struct ms_debug_requests {
    ms_mailbox q;
    pthread_mutex_t mu;            /* done and abandoned of every request */
    pthread_cond_t cv;
};

ms_debug_requests *ms_debug_requests_new(void) {
    ms_debug_requests *q = calloc(1, sizeof *q);
    if (!q) return NULL;
    if (ms_mailbox_init(&q->q) != 0) {
        free(q);
        return NULL;
    }
    pthread_mutex_init(&q->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&q->cv, &ca);
    pthread_condattr_destroy(&ca);
    return q;
}

int ms_debug_requests_fd(const ms_debug_requests *q) { return q ? ms_mailbox_fd(&q->q) : -1; }

static void unavailable(ms_http_answer *out, const char *why) {
    out->status = 503;
    out->body = strdup(why);
    out->len = 0;
    out->content_type = "text/plain; charset=utf-8";
}

static void free_request(request *r) {
    if (r->later.fn) r->later.fn(r->later.ctx, NULL);
    free(r->answer.body);
    free(r->arg);
    free(r);
}

/* Waits for r under q->mu; false on timeout. */
static bool wait_done(ms_debug_requests *q, request *r, double timeout) {
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += (time_t)timeout;
    until.tv_nsec += (long)((timeout - (double)(time_t)timeout) * 1e9);
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    while (!r->done)
        if (pthread_cond_timedwait(&q->cv, &q->mu, &until) == ETIMEDOUT) return r->done;
    return true;
}

void ms_debug_requests_ask(ms_debug_requests *q, ms_debug_kind kind, const char *arg, double timeout,
                           ms_http_answer *out) {
    request *r = calloc(1, sizeof *r);
    if (r) r->arg = strdup(arg ? arg : "");
    if (!r || !r->arg) {
        free(r);
        unavailable(out, "out of memory\n");
        return;
    }
    r->kind = kind;
    pthread_mutex_lock(&q->mu);
    if (ms_mailbox_closed(&q->q)) {
        pthread_mutex_unlock(&q->mu);
        free_request(r);
        unavailable(out, "the scheduler is stopping\n");
        return;
    }
    ms_mailbox_post(&q->q, &r->job, false);
    bool answered = wait_done(q, r, timeout);
    if (!answered) r->abandoned = true;
    pthread_mutex_unlock(&q->mu);
    if (!answered) {
        unavailable(out, "the scheduler did not answer in time\n");
        return;
    }
    *out = r->answer;
    r->answer.body = NULL;
    if (r->later.fn) {
        r->later.fn(r->later.ctx, out);
        r->later.fn = NULL;
    }
    free_request(r);
}

/* Hands r's answer over (or frees r when its asker is gone). */
static void finish(ms_debug_requests *q, request *r) {
    pthread_mutex_lock(&q->mu);
    bool gone = r->abandoned;
    r->done = true;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
    if (gone) free_request(r);
}

void ms_debug_requests_serve(ms_debug_requests *q, ms_debug_answer_fn fn, void *ctx) {
    ms_job *j = ms_mailbox_take_all(&q->q);
    while (j) {
        request *r = (request *)j;
        j = j->next;
        r->answer = (ms_http_answer){.status = 500, .content_type = "text/plain; charset=utf-8"};
        fn(ctx, r->kind, r->arg, &r->answer, &r->later);
        finish(q, r);
    }
}

void ms_debug_requests_close(ms_debug_requests *q) {
    if (!q) return;
    pthread_mutex_lock(&q->mu);
    ms_mailbox_close(&q->q);
    pthread_mutex_unlock(&q->mu);
    ms_job *j = ms_mailbox_take_all(&q->q);
    while (j) {
        request *r = (request *)j;
        j = j->next;
        unavailable(&r->answer, "the scheduler is stopping\n");
        finish(q, r);
    }
}

static void free_job(ms_job *j) { free_request((request *)j); }

void ms_debug_requests_free(ms_debug_requests *q) {
    if (!q) return;
    ms_mailbox_destroy(&q->q, free_job);
    pthread_cond_destroy(&q->cv);
    pthread_mutex_destroy(&q->mu);
    free(q);
}
