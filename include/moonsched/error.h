/* Errors are values: library functions return an ms_rc and fill an ms_error. */
#ifndef MOONSCHED_ERROR_H
#define MOONSCHED_ERROR_H

#include <stddef.h>

#pragma GCC visibility push(default)

typedef enum ms_rc {
    MS_OK = 0,
    MS_EINVAL = -1,   /* malformed input: the message names object and field */
    MS_ENOMEM = -2,
    MS_ENOENT = -3,   /* no such object */
    MS_EEXIST = -4,   /* already present */
    MS_EIO = -5,      /* file or network failure */
    MS_ESTATE = -6,   /* operation not valid in the object's current state */
} ms_rc;

typedef struct ms_error {
    ms_rc rc;
    char msg[512];
} ms_error;

/* Formats into err (if non-NULL) and returns rc, so callers can write
 * `return ms_error_set(err, MS_EINVAL, "pod %s: ...", name);`. */
ms_rc ms_error_set(ms_error *err, ms_rc rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prepends "prefix: " to an existing message (for adding file/object context). */
void ms_error_prefix(ms_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

const char *ms_rc_str(ms_rc rc);

#pragma GCC visibility pop

#endif
