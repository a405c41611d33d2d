/* The string builder every encoder uses (Prometheus text, JSON bodies, the
 * Lua cdef, HTTP bodies). */
#include "base/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool ms_buf_reserve(ms_buf *b, size_t more) {
    if (b->failed) return false;
    if (more > (size_t)-1 / 2 - b->len) goto fail;
    size_t need = b->len + more + 1;
    if (need <= b->cap) return true;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need) cap *= 2;
    char *p = realloc(b->data, cap);
    if (!p) goto fail;
    b->data = p;
    b->cap = cap;
    return true;
fail:
    b->failed = true;
    return false;
}

void ms_buf_append(ms_buf *b, const void *s, size_t n) {
    if (!ms_buf_reserve(b, n)) return;
    if (n) memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = 0;
}

void ms_buf_puts(ms_buf *b, const char *s) { ms_buf_append(b, s, strlen(s)); }

void ms_buf_putc(ms_buf *b, char c) { ms_buf_append(b, &c, 1); }

void ms_buf_vprintf(ms_buf *b, const char *fmt, va_list ap) {
    if (b->failed) return;
    va_list again;
    va_copy(again, ap);
    size_t room = b->cap > b->len ? b->cap - b->len : 0;
    int n = vsnprintf(room ? b->data + b->len : NULL, room, fmt, ap);
    if (n < 0) {
        b->failed = true;
    } else if ((size_t)n >= room) {
        if (ms_buf_reserve(b, (size_t)n)) {
            vsnprintf(b->data + b->len, (size_t)n + 1, fmt, again);
            b->len += (size_t)n;
        }
    } else {
        b->len += (size_t)n;
    }
    va_end(again);
}

void ms_buf_printf(ms_buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    ms_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

void ms_buf_reset(ms_buf *b) {
    b->len = 0;
    b->failed = false;
    if (b->data) b->data[0] = 0;
}

char *ms_buf_take(ms_buf *b) {
    if (b->failed) {
        ms_buf_free(b);
        return NULL;
    }
    char *s = b->data ? b->data : calloc(1, 1);
    *b = (ms_buf){0};
    return s;
}

void ms_buf_free(ms_buf *b) {
    free(b->data);
    *b = (ms_buf){0};
}
