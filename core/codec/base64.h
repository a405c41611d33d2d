/* Base64, the one reader and writer of Go []byte fields written as text. */
#ifndef MOONSCHED_CODEC_BASE64_H
#define MOONSCHED_CODEC_BASE64_H

#include <stddef.h>

#include "moonsched/error.h"

/* Base64 (standard alphabet, padding; CR and LF ignored, as Go's decoder
 * does). *out is malloc'd and NUL-terminated. On error *bad_at is the input
 * offset of the first bad byte. */
ms_rc ms_base64_decode(const char *in, size_t len, char **out, size_t *outlen, size_t *bad_at);

/* len bytes as base64 (standard alphabet, padded), malloc'd and
 * NUL-terminated; NULL when out of memory. */
char *ms_base64_encode(const void *in, size_t len);

#endif
