#include "client/backoff.h"

void ms_backoff_init(ms_backoff *b, double initial, double max, double reset) {
    b->initial = initial > 0 ? initial : 0.8;
    b->max = max > 0 ? max : 30;
    b->reset = reset > 0 ? reset : 120;
    b->base = 0;
    b->last = 0;
}

double ms_backoff_next(ms_backoff *b, double now, double retry_after, double jitter) {
    if (retry_after > 0) return retry_after < b->max ? retry_after : b->max;
    if (b->base == 0 || now - b->last >= b->reset)
        b->base = b->initial;
    else
        b->base = b->base * 2 > b->max ? b->max : b->base * 2;
    b->last = now;
    if (jitter < 0) jitter = 0;
    if (jitter >= 1) jitter = 1;
    return b->base * (1 + 0.25 * jitter);
}

void ms_backoff_reset(ms_backoff *b) { b->base = 0; }
