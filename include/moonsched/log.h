/* Structured logging: one line per event,
 *
 *   ts=2024-01-02T03:04:05.678Z level=info msg="watch closed" resource=pods rv=123
 *
 * or, with `json` set, {"ts":"...","level":"info","msg":"...","resource":"pods"}.
 * There is no global logger: a const ms_logger is passed to whatever logs.
 * A line is written with one write() so that lines from several threads do
 * not interleave. */
#ifndef MOONSCHED_LOG_H
#define MOONSCHED_LOG_H

#include <stdbool.h>
#include <stddef.h>

#pragma GCC visibility push(default)

typedef enum ms_log_level {
    MS_LOG_ERROR = 0,
    MS_LOG_WARN = 1,
    MS_LOG_INFO = 2,
    MS_LOG_DEBUG = 3,    /* per-request and per-event detail */
} ms_log_level;

typedef struct ms_logger {
    int level;           /* lines with a level above this are dropped */
    bool json;
    int fd;              /* where lines go when sink is NULL (2: stderr) */
    /* When set, receives each formatted line (no trailing newline) instead
     * of fd. Called from any thread that logs. */
    void (*sink)(void *ctx, ms_log_level level, const char *line, size_t len);
    void *ctx;
} ms_logger;

/* Info level, logfmt, stderr. */
extern const ms_logger ms_log_default;

/* A NULL logger means ms_log_default. */
bool ms_log_enabled(const ms_logger *l, ms_log_level level);

/* msg, then key and value strings in pairs, ending with NULL:
 *   ms_log(l, MS_LOG_WARN, "decode failed", "object", key, "error", err.msg, NULL);
 * A NULL value is written as an empty string. Values are quoted when they
 * need it (logfmt) and escaped. */
void ms_log(const ms_logger *l, ms_log_level level, const char *msg, ...)
    __attribute__((sentinel));

const char *ms_log_level_name(ms_log_level level);

#pragma GCC visibility pop

#endif
