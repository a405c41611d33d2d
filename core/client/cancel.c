/* The cancel token of Kubernetes API requests: fired from any thread, it
 * wakes sleeping retries (a condition variable) and running transfers
 * (their multi handles) at once. */
#include "client/cancel.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

struct ms_kube_cancel {
    atomic_bool fired;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    ms_kube_cancel_waiter *waiters;
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
    for (ms_kube_cancel_waiter *w = c->waiters; w; w = w->next) curl_multi_wakeup(w->multi);
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

void ms_kube_cancel_register(ms_kube_cancel *c, ms_kube_cancel_waiter *w) {
    if (!c) return;
    pthread_mutex_lock(&c->mu);
    w->next = c->waiters;
    c->waiters = w;
    pthread_mutex_unlock(&c->mu);
}

void ms_kube_cancel_unregister(ms_kube_cancel *c, ms_kube_cancel_waiter *w) {
    if (!c) return;
    pthread_mutex_lock(&c->mu);
    for (ms_kube_cancel_waiter **p = &c->waiters; *p; p = &(*p)->next)
        if (*p == w) {
            *p = w->next;
            break;
        }
    pthread_mutex_unlock(&c->mu);
}
