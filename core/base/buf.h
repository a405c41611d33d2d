/* A growable byte buffer: the one string builder of the tree. Appends never
 * fail loudly: the first allocation failure marks the buffer failed, later
 * appends do nothing, and the caller checks `failed` once at the end. The
 * content is always NUL-terminated once anything was appended. */
#ifndef MOONSCHED_BASE_BUF_H
#define MOONSCHED_BASE_BUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct ms_buf {
    char *data;
    size_t len, cap;
    bool failed;
} ms_buf;

/* Room for `more` bytes plus the terminating NUL; false once failed. */
bool ms_buf_reserve(ms_buf *b, size_t more);
void ms_buf_append(ms_buf *b, const void *s, size_t n);
void ms_buf_puts(ms_buf *b, const char *s);
void ms_buf_putc(ms_buf *b, char c);
void ms_buf_printf(ms_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ms_buf_vprintf(ms_buf *b, const char *fmt, va_list ap);
/* Empties the buffer, keeping its memory (and clearing `failed`). */
void ms_buf_reset(ms_buf *b);
/* Hands the heap string to the caller ("" when empty; NULL if failed) and
 * leaves the buffer empty. */
char *ms_buf_take(ms_buf *b);
void ms_buf_free(ms_buf *b);

#endif
