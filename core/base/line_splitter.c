/* Newline-delimited framing for watch streams. */
#include "base/line_splitter.h"

#include <stdlib.h>
#include <string.h>

#define DEFAULT_MAX_LINE ((size_t)64 << 20)

void ms_line_splitter_init(ms_line_splitter *s, size_t max_line) {
    memset(s, 0, sizeof *s);
    s->max_line = max_line ? max_line : DEFAULT_MAX_LINE;
}

void ms_line_splitter_reset(ms_line_splitter *s) { s->len = 0; }

void ms_line_splitter_free(ms_line_splitter *s) {
    free(s->buf);
    s->buf = NULL;
    s->len = s->cap = 0;
}

static int append(ms_line_splitter *s, const char *data, size_t n) {
    if (s->len + n > s->max_line) return -1;
    if (s->len + n + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : 4096;
        while (cap < s->len + n + 1) cap *= 2;
        char *nb = realloc(s->buf, cap);
        if (!nb) return -1;
        s->buf = nb;
        s->cap = cap;
    }
    memcpy(s->buf + s->len, data, n);
    s->len += n;
    s->buf[s->len] = '\0';
    return 0;
}

static int deliver(char *line, size_t len, ms_line_fn fn, void *ctx) {
    if (len && line[len - 1] == '\r') len--;
    if (!len) return 0;
    line[len] = '\0';
    return fn(ctx, line, len);
}

int ms_line_splitter_feed(ms_line_splitter *s, const char *data, size_t n, ms_line_fn fn, void *ctx) {
    while (n) {
        const char *nl = memchr(data, '\n', n);
        if (!nl) return append(s, data, n);
        size_t take = (size_t)(nl - data);
        if (append(s, data, take) != 0) return -1;
        data = nl + 1;
        n -= take + 1;
        /* Copied even when nothing was pending: the callback gets a
         * writable, NUL-terminated line, and the chunk stays untouched. */
        size_t len = s->len;
        s->len = 0;
        int r = deliver(s->buf, len, fn, ctx);
        if (r != 0) return r;
    }
    return 0;
}
