/* Go's %q for error messages, cut at MS_QUOTE_KEEP bytes. */
#include "base/quote.h"

#include <string.h>

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if none. */
static size_t utf8_len(const unsigned char *s, size_t n) {
    size_t len = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;
    if (!len || len > n) return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xc0) != 0x80) return 0;
    /* overlong 3- and 4-byte forms, surrogates, past U+10FFFF */
    if (len == 3 && s[0] == 0xe0 && s[1] < 0xa0) return 0;
    if (len == 3 && s[0] == 0xed && s[1] >= 0xa0) return 0;
    if (len == 4 && s[0] == 0xf0 && s[1] < 0x90) return 0;
    if (len == 4 && s[0] == 0xf4 && s[1] >= 0x90) return 0;
    return len;
}

static char *escape(char *o, unsigned char c) {
    static const char hex[] = "0123456789abcdef";
    const char *named = strchr("\a\b\f\n\r\t\v", c);
    *o++ = '\\';
    if (c && named) {
        *o++ = "abfnrtv"[named - "\a\b\f\n\r\t\v"];
        return o;
    }
    if (c == '"' || c == '\\') {
        *o++ = (char)c;
        return o;
    }
    *o++ = 'x';
    *o++ = hex[c >> 4];
    *o++ = hex[c & 15];
    return o;
}

const char *ms_quote_n(char out[MS_QUOTE_SIZE], const char *s, size_t n) {
    const unsigned char *p = (const unsigned char *)s;
    size_t keep = n > MS_QUOTE_KEEP ? MS_QUOTE_KEEP : n;
    char *o = out;
    *o++ = '"';
    for (size_t i = 0; i < keep;) {
        unsigned char c = p[i];
        if (c >= 0x80) {
            size_t len = utf8_len(p + i, keep - i);
            if (len) {
                memcpy(o, p + i, len);
                o += len;
                i += len;
                continue;
            }
        }
        if (c < 0x20 || c == 0x7f || c >= 0x80 || c == '"' || c == '\\') o = escape(o, c);
        else *o++ = (char)c;
        i++;
    }
    if (n > keep) {
        memcpy(o, "...", 3);
        o += 3;
    }
    *o++ = '"';
    *o = '\0';
    return out;
}

const char *ms_quote(char out[MS_QUOTE_SIZE], const char *s) {
    return ms_quote_n(out, s ? s : "", s ? strlen(s) : 0);
}
