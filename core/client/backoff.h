/* The delay an informer waits after a failed LIST or WATCH. As client-go's
 * reflector: 0.8 s doubling to 30 s, up to 25% added so that informers that
 * failed together do not retry together, and a new spell from the initial
 * delay once no failure came for a quiet period (2 minutes). Two rules of
 * its own:
 *   - an answer that says when to come back (Retry-After: 429, or a 5xx
 *     the client gave up retrying) is waited for as it says, capped at the
 *     maximum; the exponential delay stays where it was, so a throttling
 *     server does not leave the informer slower after it is over;
 *   - recovery ends a spell (ms_backoff_reset): a watch that held is proof
 *     enough, where waiting for the quiet period would carry one bad
 *     spell's delay into the next, unrelated one. */
#ifndef MOONSCHED_CLIENT_BACKOFF_H
#define MOONSCHED_CLIENT_BACKOFF_H

typedef struct ms_backoff {
    double initial, max, reset;    /* seconds */
    double base;                   /* the last exponential delay; 0: none in this spell */
    double last;                   /* when it was given (monotonic seconds) */
} ms_backoff;

/* 0 for any of them: 0.8, 30, 120 s. */
void ms_backoff_init(ms_backoff *b, double initial, double max, double reset);

/* The delay after a failure at `now`. retry_after > 0: the server's
 * Retry-After, in seconds. jitter in [0, 1): the share of the 25% added
 * to an exponential delay. */
double ms_backoff_next(ms_backoff *b, double now, double retry_after, double jitter);

/* The next failure starts a new spell. */
void ms_backoff_reset(ms_backoff *b);

#endif
