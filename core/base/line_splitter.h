/* Splits a byte stream into lines as it arrives: a watch sends one JSON
 * event per line, and the network delivers chunks that may end anywhere
 * (inside a line, or after several). */
#ifndef MOONSCHED_LINE_SPLITTER_H
#define MOONSCHED_LINE_SPLITTER_H

#include <stddef.h>

#include "base/buf.h"
#include "moonsched/error.h"

/* Called once per complete line, without its "\n" (nor a "\r" before it),
 * NUL-terminated; the buffer may be modified and is valid only during the
 * call. Empty lines are skipped. A non-zero return stops the stream:
 * ms_line_splitter_feed returns that value and drops the rest of the chunk. */
typedef int (*ms_line_fn)(void *ctx, char *line, size_t len);

typedef struct ms_line_splitter {
    ms_buf line;        /* the incomplete last line */
    size_t max_line;    /* longer lines are an error */
} ms_line_splitter;

/* max_line 0: 64 MiB. */
void ms_line_splitter_init(ms_line_splitter *s, size_t max_line);
/* 0 when every complete line was delivered, the callback's non-zero value
 * when it stopped, or -1 when a line exceeds max_line or memory runs out. */
int ms_line_splitter_feed(ms_line_splitter *s, const char *data, size_t n, ms_line_fn fn, void *ctx);
/* Bytes held for an incomplete line (a stream that ends with pending bytes
 * was cut short). */
static inline size_t ms_line_splitter_pending(const ms_line_splitter *s) { return s->line.len; }
void ms_line_splitter_reset(ms_line_splitter *s);
void ms_line_splitter_free(ms_line_splitter *s);

#endif
