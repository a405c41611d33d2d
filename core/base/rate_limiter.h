/* Client-side rate limiting of API requests: a token bucket with
 * clientConnection's qps and burst (client-go's token-bucket limiter). The
 * bucket starts full; each request takes a token, tokens come back at qps
 * per second up to burst. Thread-safe. */
#ifndef MOONSCHED_RATE_LIMITER_H
#define MOONSCHED_RATE_LIMITER_H

#include <stdint.h>

typedef struct ms_rate_limiter ms_rate_limiter;

/* Seconds on a monotonic clock; tests inject their own. */
typedef double (*ms_clock_fn)(void *ctx);
double ms_monotonic_now(void *ctx);

/* qps <= 0: no limit. burst < 1 counts as 1. clock NULL: ms_monotonic_now.
 * NULL when out of memory. */
ms_rate_limiter *ms_rate_limiter_new(double qps, int32_t burst, ms_clock_fn clock, void *clock_ctx);
void ms_rate_limiter_free(ms_rate_limiter *rl);

/* Takes a token and returns how long the caller must wait before using it
 * (0 when one was available). Tokens taken ahead of time are owed: a burst
 * of callers gets increasing delays, 1/qps apart. */
double ms_rate_limiter_reserve(ms_rate_limiter *rl);

/* Tokens available now; negative when owed to waiting callers. */
double ms_rate_limiter_tokens(ms_rate_limiter *rl);

#endif
