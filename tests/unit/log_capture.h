/* A logger whose lines are kept in memory, for tests that check what was
 * logged (from any thread). Include after "testutil.h".
 *
 *   log_capture lg; log_capture_init(&lg);
 *   ms_logger log = log_capture_logger(&lg, MS_LOG_INFO);
 *   ... assert_true(log_capture_has(&lg, "msg=\"listed\""));
 *   log_capture_free(&lg); */
#ifndef MOONSCHED_TEST_LOG_CAPTURE_H
#define MOONSCHED_TEST_LOG_CAPTURE_H

#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include "moonsched/log.h"

typedef struct log_capture {
    pthread_mutex_t mu;
    char text[16384];   /* lines beyond are dropped */
} log_capture;

static inline void log_capture_sink(void *ctx, ms_log_level level, const char *line, size_t len) {
    (void)level;
    log_capture *l = ctx;
    pthread_mutex_lock(&l->mu);
    size_t have = strlen(l->text);
    if (have + len + 2 < sizeof l->text) {
        memcpy(l->text + have, line, len);
        l->text[have + len] = '\n';
        l->text[have + len + 1] = '\0';
    }
    pthread_mutex_unlock(&l->mu);
}

static inline void log_capture_init(log_capture *l) {
    pthread_mutex_init(&l->mu, NULL);
    l->text[0] = '\0';
}

static inline void log_capture_free(log_capture *l) { pthread_mutex_destroy(&l->mu); }

static inline ms_logger log_capture_logger(log_capture *l, ms_log_level level) {
    return (ms_logger){.level = level, .sink = log_capture_sink, .ctx = l};
}

static inline bool log_capture_has(log_capture *l, const char *s) {
    pthread_mutex_lock(&l->mu);
    bool found = strstr(l->text, s) != NULL;
    pthread_mutex_unlock(&l->mu);
    return found;
}

/* Waits up to 5 s for s to be logged. */
static inline bool log_capture_wait(log_capture *l, const char *s) {
    for (int i = 0; i < 500; i++) {
        if (log_capture_has(l, s)) return true;
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    return false;
}

#endif
