/* A growable ring of deltas behind one mutex. Producers push whole pages of
 * a LIST at a time (one lock, one wake-up); the consumer drains in batches,
 * so the lock is taken per batch, not per object. The wake-up is a mailbox
 * used without jobs (base/mailbox.h): deltas stay in the ring, where a page
 * costs no allocation, and the mailbox's eventfd serves both the consumer
 * that polls it among other fds and the one that blocks in a pop. */
#include "client/delta_queue.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/mailbox.h"

struct ms_delta_queue {
    pthread_mutex_t mu;
    ms_delta *ring;
    size_t cap;          /* power of two, or 0 */
    size_t head;         /* index of the oldest */
    size_t len;
    bool closed;
    bool signalled;      /* a wake is pending in the mailbox's fd */
    ms_mailbox wake;
};

ms_delta_queue *ms_delta_queue_new(void) {
    ms_delta_queue *q = calloc(1, sizeof *q);
    if (!q) return NULL;
    if (ms_mailbox_init(&q->wake) != 0) {
        free(q);
        return NULL;
    }
    pthread_mutex_init(&q->mu, NULL);
    return q;
}

void ms_delta_queue_free(ms_delta_queue *q) {
    if (!q) return;
    for (size_t i = 0; i < q->len; i++) ms_delta_release(&q->ring[(q->head + i) & (q->cap - 1)]);
    free(q->ring);
    ms_mailbox_destroy(&q->wake, NULL);
    pthread_mutex_destroy(&q->mu);
    free(q);
}

/* Level-triggered readiness: wakes and drains happen under the mutex, so
 * the fd is readable exactly while there is something to pop (or the queue
 * is closed), and a consumer that saw it empty and waits on the fd cannot
 * miss the push that follows. */
static void signal_fd(ms_delta_queue *q) {
    if (q->signalled) return;
    ms_mailbox_wake(&q->wake);
    q->signalled = true;
}

static void clear_fd(ms_delta_queue *q) {
    if (!q->signalled || q->closed) return;
    ms_mailbox_drain(&q->wake);
    q->signalled = false;
}

static int grow(ms_delta_queue *q, size_t need) {
    if (q->len + need <= q->cap) return 0;
    size_t cap = q->cap ? q->cap : 64;
    while (cap < q->len + need) cap *= 2;
    ms_delta *r = malloc(cap * sizeof *r);
    if (!r) return -1;
    for (size_t i = 0; i < q->len; i++) r[i] = q->ring[(q->head + i) & (q->cap - 1)];
    free(q->ring);
    q->ring = r;
    q->cap = cap;
    q->head = 0;
    return 0;
}

ms_rc ms_delta_queue_push_many(ms_delta_queue *q, const ms_delta *d, size_t n) {
    if (!n) return MS_OK;
    pthread_mutex_lock(&q->mu);
    if (q->closed) {
        pthread_mutex_unlock(&q->mu);
        for (size_t i = 0; i < n; i++) {
            ms_delta c = d[i];
            ms_delta_release(&c);
        }
        return MS_ESTATE;
    }
    if (grow(q, n) != 0) {
        pthread_mutex_unlock(&q->mu);
        return MS_ENOMEM;
    }
    bool was_empty = q->len == 0;
    for (size_t i = 0; i < n; i++) q->ring[(q->head + q->len + i) & (q->cap - 1)] = d[i];
    q->len += n;
    if (was_empty) signal_fd(q);
    pthread_mutex_unlock(&q->mu);
    return MS_OK;
}

ms_rc ms_delta_queue_push(ms_delta_queue *q, const ms_delta *d) { return ms_delta_queue_push_many(q, d, 1); }

size_t ms_delta_queue_pop(ms_delta_queue *q, ms_delta *out, size_t max, double timeout) {
    if (!max) return 0;
    double deadline = timeout > 0 ? ms_clock_monotonic() + timeout : 0;
    pthread_mutex_lock(&q->mu);
    while (q->len == 0 && !q->closed && timeout != 0) {
        double left = -1;
        if (timeout > 0 && (left = deadline - ms_clock_monotonic()) <= 0) break;
        pthread_mutex_unlock(&q->mu);
        ms_mailbox_wait(&q->wake, left);
        pthread_mutex_lock(&q->mu);
    }
    size_t n = q->len < max ? q->len : max;
    for (size_t i = 0; i < n; i++) out[i] = q->ring[(q->head + i) & (q->cap - 1)];
    if (n) {
        q->head = (q->head + n) & (q->cap - 1);
        q->len -= n;
    }
    if (q->len == 0) clear_fd(q);
    pthread_mutex_unlock(&q->mu);
    return n;
}

int ms_delta_queue_fd(const ms_delta_queue *q) { return ms_mailbox_fd(&q->wake); }

void ms_delta_queue_close(ms_delta_queue *q) {
    pthread_mutex_lock(&q->mu);
    q->closed = true;
    signal_fd(q);
    pthread_mutex_unlock(&q->mu);
}

size_t ms_delta_queue_len(ms_delta_queue *q) {
    pthread_mutex_lock(&q->mu);
    size_t n = q->len;
    pthread_mutex_unlock(&q->mu);
    return n;
}
