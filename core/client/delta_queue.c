/* A growable ring of deltas behind one mutex. Producers push whole pages of
 * a LIST at a time (one lock, one wake-up); the consumer drains in batches,
 * so the lock is taken per batch, not per object. */
#include "client/delta_queue.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

struct ms_delta_queue {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    ms_delta *ring;
    size_t cap;          /* power of two, or 0 */
    size_t head;         /* index of the oldest */
    size_t len;
    bool closed;
    bool signalled;      /* the eventfd holds a count */
    int efd;
};

ms_delta_queue *ms_delta_queue_new(void) {
    ms_delta_queue *q = calloc(1, sizeof *q);
    if (!q) return NULL;
    q->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (q->efd < 0) {
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

void ms_delta_queue_free(ms_delta_queue *q) {
    if (!q) return;
    for (size_t i = 0; i < q->len; i++) ms_delta_release(&q->ring[(q->head + i) & (q->cap - 1)]);
    free(q->ring);
    close(q->efd);
    pthread_cond_destroy(&q->cv);
    pthread_mutex_destroy(&q->mu);
    free(q);
}

/* Level-triggered readiness: the eventfd is readable exactly while there is
 * something to pop (or the queue is closed). */
static void signal_fd(ms_delta_queue *q) {
    if (q->signalled) return;
    uint64_t one = 1;
    while (write(q->efd, &one, sizeof one) < 0 && errno == EINTR) {}
    q->signalled = true;
}

static void clear_fd(ms_delta_queue *q) {
    if (!q->signalled || q->closed) return;
    uint64_t v;
    while (read(q->efd, &v, sizeof v) < 0 && errno == EINTR) {}
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
    if (was_empty) {
        signal_fd(q);
        pthread_cond_signal(&q->cv);
    }
    pthread_mutex_unlock(&q->mu);
    return MS_OK;
}

ms_rc ms_delta_queue_push(ms_delta_queue *q, const ms_delta *d) { return ms_delta_queue_push_many(q, d, 1); }

size_t ms_delta_queue_pop(ms_delta_queue *q, ms_delta *out, size_t max, double timeout) {
    if (!max) return 0;
    pthread_mutex_lock(&q->mu);
    if (q->len == 0 && !q->closed && timeout != 0) {
        struct timespec dl;
        if (timeout > 0) {
            clock_gettime(CLOCK_MONOTONIC, &dl);
            double whole;
            double frac = modf(timeout, &whole);
            dl.tv_sec += (time_t)whole;
            dl.tv_nsec += (long)(frac * 1e9);
            if (dl.tv_nsec >= 1000000000L) {
                dl.tv_sec++;
                dl.tv_nsec -= 1000000000L;
            }
        }
        while (q->len == 0 && !q->closed) {
            if (timeout < 0) {
                pthread_cond_wait(&q->cv, &q->mu);
            } else if (pthread_cond_timedwait(&q->cv, &q->mu, &dl) == ETIMEDOUT) {
                break;
            }
        }
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

int ms_delta_queue_fd(const ms_delta_queue *q) { return q->efd; }

void ms_delta_queue_close(ms_delta_queue *q) {
    pthread_mutex_lock(&q->mu);
    q->closed = true;
    signal_fd(q);
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
}

size_t ms_delta_queue_len(ms_delta_queue *q) {
    pthread_mutex_lock(&q->mu);
    size_t n = q->len;
    pthread_mutex_unlock(&q->mu);
    return n;
}
