/* Structured log lines in logfmt or JSON. */
#include "moonsched/log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/clock.h"

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

static bool needs_quotes(const char *s) {
    if (!*s) return true;
    for (const unsigned char *c = (const unsigned char *)s; *c; c++)
        if (*c <= ' ' || *c == '=' || *c == '"' || *c == '\\' || *c == 0x7f) return true;
    return false;
}

/* Escapes for both formats: logfmt quoted values use JSON's escapes. */
static void put_escaped(ms_buf *b, const char *s) {
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
        ms_buf_append(b, run, (size_t)((const char *)c - run));
        ms_buf_puts(b, esc);
        run = (const char *)c + 1;
    }
    ms_buf_puts(b, run);
}

static void put_value(ms_buf *b, bool json, const char *v, bool always_quote) {
    if (json || always_quote || needs_quotes(v)) {
        ms_buf_putc(b, '"');
        put_escaped(b, v);
        ms_buf_putc(b, '"');
    } else {
        ms_buf_puts(b, v);
    }
}

static void put_pair(ms_buf *b, bool json, const char *k, const char *v, bool quote) {
    if (json) {
        if (b->len > 1) ms_buf_putc(b, ',');
        put_value(b, true, k, true);
        ms_buf_putc(b, ':');
    } else {
        if (b->len) ms_buf_putc(b, ' ');
        ms_buf_puts(b, k);   /* keys are the caller's identifiers */
        ms_buf_putc(b, '=');
    }
    put_value(b, json, v ? v : "", quote);
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
    ms_buf b = {0};
    char ts[MS_RFC3339_MAX];
    ms_time_rfc3339(ms_clock_wall(), 3, ts, sizeof ts);
    if (l->json) ms_buf_putc(&b, '{');
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
    if (l->json) ms_buf_putc(&b, '}');
    if (!l->sink) ms_buf_putc(&b, '\n');
    if (!b.failed) emit(l, level, b.data, b.len);
    ms_buf_free(&b);
}
