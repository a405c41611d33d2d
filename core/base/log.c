/* Structured log lines in logfmt or JSON. */
#include "moonsched/log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const ms_logger ms_log_default = {.level = MS_LOG_INFO, .json = false, .fd = 2};

static const char *const level_names[] = {"error", "warn", "info", "debug"};

const char *ms_log_level_name(ms_log_level level) {
    if ((unsigned)level < sizeof level_names / sizeof level_names[0]) return level_names[level];
    return "debug";
}

bool ms_log_enabled(const ms_logger *l, ms_log_level level) {
    if (!l) l = &ms_log_default;
    return (int)level <= l->level;
}

/* A line grows on the stack first; long values move it to the heap. */
typedef struct line {
    char *p;
    size_t len, cap;
    bool heap, failed;
    char stack[1024];
} line;

static void put(line *b, const char *s, size_t n) {
    if (b->failed) return;
    if (b->len + n + 2 > b->cap) {   /* room for '\n' and NUL */
        size_t cap = b->cap * 2;
        while (cap < b->len + n + 2) cap *= 2;
        char *np = b->heap ? realloc(b->p, cap) : malloc(cap);
        if (!np) {
            b->failed = true;
            return;
        }
        if (!b->heap) memcpy(np, b->p, b->len);
        b->p = np;
        b->cap = cap;
        b->heap = true;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

static void puts_(line *b, const char *s) { put(b, s, strlen(s)); }

static bool needs_quotes(const char *s) {
    if (!*s) return true;
    for (const unsigned char *c = (const unsigned char *)s; *c; c++)
        if (*c <= ' ' || *c == '=' || *c == '"' || *c == '\\' || *c == 0x7f) return true;
    return false;
}

/* Escapes for both formats: logfmt quoted values use JSON's escapes. */
static void put_escaped(line *b, const char *s) {
    const char *run = s;
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        const char *esc = NULL;
        char hex[8];
        switch (*c) {
        case '"': esc = "\\\""; break;
        case '\\': esc = "\\\\"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        case '\t': esc = "\\t"; break;
        default:
            if (*c < 0x20 || *c == 0x7f) {
                snprintf(hex, sizeof hex, "\\u%04x", *c);
                esc = hex;
            }
        }
        if (!esc) continue;
        put(b, run, (size_t)((const char *)c - run));
        puts_(b, esc);
        run = (const char *)c + 1;
    }
    puts_(b, run);
}

static void put_value(line *b, bool json, const char *v, bool always_quote) {
    if (json || always_quote || needs_quotes(v)) {
        put(b, "\"", 1);
        put_escaped(b, v);
        put(b, "\"", 1);
    } else {
        puts_(b, v);
    }
}

static void put_pair(line *b, bool json, const char *k, const char *v, bool quote) {
    if (json) {
        if (b->len > 1) put(b, ",", 1);
        put_value(b, true, k, true);
        put(b, ":", 1);
    } else {
        if (b->len) put(b, " ", 1);
        puts_(b, k);   /* keys are the caller's identifiers */
        put(b, "=", 1);
    }
    put_value(b, json, v ? v : "", quote);
}

static void timestamp(char *buf, size_t n) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    size_t len = strftime(buf, n, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf + len, n - len, ".%03ldZ", ts.tv_nsec / 1000000);
}

static void emit(const ms_logger *l, ms_log_level level, const char *s, size_t n) {
    if (l->sink) {
        l->sink(l->ctx, level, s, n);
        return;
    }
    /* One write per line; a short write (pipe full) finishes the line. */
    while (n) {
        ssize_t w = write(l->fd, s, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return;
        }
        s += w;
        n -= (size_t)w;
    }
}

void ms_log(const ms_logger *l, ms_log_level level, const char *msg, ...) {
    if (!l) l = &ms_log_default;
    if ((int)level > l->level) return;
    line b = {.cap = sizeof b.stack};
    b.p = b.stack;
    char ts[40];
    timestamp(ts, sizeof ts);
    if (l->json) put(&b, "{", 1);
    put_pair(&b, l->json, "ts", ts, false);
    put_pair(&b, l->json, "level", ms_log_level_name(level), false);
    put_pair(&b, l->json, "msg", msg ? msg : "", true);
    va_list ap;
    va_start(ap, msg);
    for (;;) {
        const char *k = va_arg(ap, const char *);
        if (!k) break;
        const char *v = va_arg(ap, const char *);
        put_pair(&b, l->json, k, v, false);
    }
    va_end(ap);
    if (l->json) put(&b, "}", 1);
    if (!b.failed) {
        if (l->sink) {
            b.p[b.len] = '\0';
            emit(l, level, b.p, b.len);
        } else {
            b.p[b.len] = '\n';
            emit(l, level, b.p, b.len + 1);
        }
    }
    if (b.heap) free(b.p);
}
