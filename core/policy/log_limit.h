/* The rate limit on a policy's log lines (its call failures and its own
 * sched.log lines): per policy and message, a few lines per window, and a
 * ceiling over all messages, so that a hook failing on every node of
 * every cycle cannot flood the log. A line that goes out after some were
 * held back says how many. Thread-safe: a reload's init logs from the
 * watcher thread. */
#ifndef MOONSCHED_POLICY_LOG_LIMIT_H
#define MOONSCHED_POLICY_LOG_LIMIT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define MS_LOG_LIMIT_WINDOW 60.0   /* seconds */
#define MS_LOG_LIMIT_BURST 5       /* lines of one message per window */
#define MS_LOG_LIMIT_TOTAL 100     /* lines of all messages per window */
#define MS_LOG_LIMIT_SLOTS 64      /* messages followed at once */

typedef struct ms_log_limit_slot {
    uint64_t key;                  /* 0: free */
    double start, last;            /* the window's start, the last line seen */
    uint32_t lines;                /* that went out in the window */
    uint64_t held;                 /* held back since the last that went out */
} ms_log_limit_slot;

typedef struct ms_log_limit {
    pthread_mutex_t mu;
    double start;                  /* the window of the ceiling */
    uint32_t lines;
    ms_log_limit_slot slot[MS_LOG_LIMIT_SLOTS];
} ms_log_limit;

void ms_log_limit_init(ms_log_limit *l);
void ms_log_limit_destroy(ms_log_limit *l);

/* Whether a line of `policy` saying `msg` at `now` (seconds, monotonic)
 * goes out. When it does, *held is how many lines of the same policy and
 * message were held back since the last one that went out. A message
 * followed for the least time gives its slot up to a new one (its held
 * count is then lost). */
bool ms_log_limit_pass(ms_log_limit *l, const char *policy, const char *msg, double now,
                       uint64_t *held);

#endif
