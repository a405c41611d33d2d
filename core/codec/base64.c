/* Base64 as Go's encoding/base64 StdEncoding reads it in kubeconfig and
 * extender TLS data. */
#include "codec/base64.h"

#include <stdint.h>
#include <stdlib.h>

static int b64_value(unsigned char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

ms_rc ms_base64_decode(const char *in, size_t len, char **out, size_t *outlen, size_t *bad_at) {
    *out = NULL;
    *outlen = 0;
    char *buf = malloc(len / 4 * 3 + 4);
    if (!buf) return MS_ENOMEM;
    size_t n = 0, quad = 0, pad = 0;
    uint32_t acc = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)in[i];
        if (c == '\n' || c == '\r') continue;
        if (c == '=') {
            /* Padding only completes the last quantum: "xx==" or "xxx=". */
            if (quad < 2) goto bad;
            pad++;
            quad++;
            acc <<= 6;
            if (quad == 4) {
                buf[n++] = (char)(acc >> 16);
                if (pad == 1) buf[n++] = (char)(acc >> 8);
                quad = 0;
                acc = 0;
            }
            continue;
        }
        int v = b64_value(c);
        if (v < 0 || pad) goto bad;
        acc = acc << 6 | (uint32_t)v;
        if (++quad == 4) {
            buf[n++] = (char)(acc >> 16);
            buf[n++] = (char)(acc >> 8);
            buf[n++] = (char)acc;
            quad = 0;
            acc = 0;
        }
        continue;
    bad:
        *bad_at = i;
        free(buf);
        return MS_EINVAL;
    }
    if (quad != 0) {
        *bad_at = len;
        free(buf);
        return MS_EINVAL;
    }
    buf[n] = '\0';
    *out = buf;
    *outlen = n;
    return MS_OK;
}

char *ms_base64_encode(const void *in, size_t len) {
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const unsigned char *p = in;
    char *out = malloc((len + 2) / 3 * 4 + 1);
    if (!out) return NULL;
    size_t n = 0;
    for (size_t i = 0; i < len; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < len) v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < len) v |= p[i + 2];
        out[n++] = alphabet[v >> 18 & 63];
        out[n++] = alphabet[v >> 12 & 63];
        out[n++] = i + 1 < len ? alphabet[v >> 6 & 63] : '=';
        out[n++] = i + 2 < len ? alphabet[v & 63] : '=';
    }
    out[n] = '\0';
    return out;
}
