/* Newline-delimited framing for watch streams. */
#include "base/line_splitter.h"

#include <stdlib.h>
#include <string.h>

#define DEFAULT_MAX_LINE ((size_t)64 << 20)

void ms_line_splitter_init(ms_line_splitter *s, size_t max_line) {
    memset(s, 0, sizeof *s);
    s->max_line = max_line ? max_line : DEFAULT_MAX_LINE;
}

void ms_line_splitter_reset(ms_line_splitter *s) { ms_buf_reset(&s->line); }

void ms_line_splitter_free(ms_line_splitter *s) {
    ms_buf_free(&s->line);
}

static int append(ms_line_splitter *s, const char *data, size_t n) {
    if (s->line.len + n > s->max_line) return -1;
    ms_buf_append(&s->line, data, n);
    return s->line.failed ? -1 : 0;
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
        int r = deliver(s->line.data, s->line.len, fn, ctx);
        ms_buf_reset(&s->line);
        if (r != 0) return r;
    }
    return 0;
}
