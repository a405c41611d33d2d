/* Token bucket for client-side request throttling. */
#include "base/rate_limiter.h"

#include <pthread.h>
#include <stdlib.h>

#include "base/clock.h"

struct ms_rate_limiter {
    pthread_mutex_t mu;
    double qps;
    double burst;
    double tokens;     /* may go negative: tokens promised to waiting callers */
    double last;       /* clock reading when tokens was last brought up to date */
    ms_clock_fn clock;
    void *clock_ctx;
};

double ms_monotonic_now(void *ctx) {
    (void)ctx;
    return ms_clock_monotonic();
}

ms_rate_limiter *ms_rate_limiter_new(double qps, int32_t burst, ms_clock_fn clock, void *clock_ctx) {
    ms_rate_limiter *rl = calloc(1, sizeof *rl);
    if (!rl) return NULL;
    pthread_mutex_init(&rl->mu, NULL);
    rl->qps = qps;
    rl->burst = burst < 1 ? 1 : burst;
    rl->tokens = rl->burst;
    rl->clock = clock ? clock : ms_monotonic_now;
    rl->clock_ctx = clock_ctx;
    rl->last = rl->clock(rl->clock_ctx);
    return rl;
}

void ms_rate_limiter_free(ms_rate_limiter *rl) {
    if (!rl) return;
    pthread_mutex_destroy(&rl->mu);
    free(rl);
}

static void refill(ms_rate_limiter *rl, double now) {
    if (now > rl->last) {
        rl->tokens += (now - rl->last) * rl->qps;
        if (rl->tokens > rl->burst) rl->tokens = rl->burst;
        rl->last = now;
    }
}

double ms_rate_limiter_reserve(ms_rate_limiter *rl) {
    if (!rl || rl->qps <= 0) return 0;
    pthread_mutex_lock(&rl->mu);
    refill(rl, rl->clock(rl->clock_ctx));
    rl->tokens -= 1;
    double wait = rl->tokens < 0 ? -rl->tokens / rl->qps : 0;
    pthread_mutex_unlock(&rl->mu);
    return wait;
}

double ms_rate_limiter_tokens(ms_rate_limiter *rl) {
    if (!rl || rl->qps <= 0) return 0;
    pthread_mutex_lock(&rl->mu);
    refill(rl, rl->clock(rl->clock_ctx));
    double t = rl->tokens;
    pthread_mutex_unlock(&rl->mu);
    return t;
}
