/* Error values: formatting, prefixing and the names of the codes. */
#include "moonsched/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

ms_rc ms_error_set(ms_error *err, ms_rc rc, const char *fmt, ...) {
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->rc = rc;
    }
    return rc;
}

void ms_error_prefix(ms_error *err, const char *fmt, ...) {
    if (!err) return;
    char prefix[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    /* Truncation keeps the prefix: it says which file or object failed. */
    size_t plen = strlen(prefix);
    if (plen + 2 >= sizeof err->msg) plen = sizeof err->msg - 3;
    size_t room = sizeof err->msg - plen - 3;
    size_t olen = strnlen(err->msg, sizeof err->msg - 1);
    if (olen > room) olen = room;
    memmove(err->msg + plen + 2, err->msg, olen);
    memcpy(err->msg, prefix, plen);
    err->msg[plen] = ':';
    err->msg[plen + 1] = ' ';
    err->msg[plen + 2 + olen] = '\0';
}

const char *ms_rc_str(ms_rc rc) {
    switch (rc) {
    case MS_OK: return "ok";
    case MS_EINVAL: return "invalid input";
    case MS_ENOMEM: return "out of memory";
    case MS_ENOENT: return "not found";
    case MS_EEXIST: return "already exists";
    case MS_EIO: return "i/o error";
    case MS_ESTATE: return "invalid state";
    }
    return "unknown error";
}
