/* resource.Quantity parsing and rounding, with upstream's exact rules. */
#include "base/quantity.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FORMAT_WRONG \
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
#define SUFFIX_WRONG "unable to parse quantity's suffix"

/* The scanned parts of a quantity: sign, digits before and after the
 * point, and the suffix text (upstream's parseQuantityString). */
typedef struct scanned {
    bool negative;
    const char *num;
    size_t nnum;
    const char *denom;
    size_t ndenom;
    const char *suffix;
    size_t nsuffix;
} scanned;

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static bool scan(const char *s, size_t end, scanned *q) {
    size_t pos = 0;
    memset(q, 0, sizeof *q);
    if (pos < end && (s[0] == '-' || s[0] == '+')) {
        q->negative = s[0] == '-';
        pos++;
    }
    while (pos < end && s[pos] == '0') pos++;
    if (pos >= end) return true;   /* only a sign and zeros: zero */
    size_t start = pos;
    while (pos < end && is_digit(s[pos])) pos++;
    q->num = s + start;
    q->nnum = pos - start;
    if (pos < end && s[pos] == '.') {
        pos++;
        start = pos;
        while (pos < end && is_digit(s[pos])) pos++;
        q->denom = s + start;
        q->ndenom = pos - start;
    }
    size_t suffix_start = pos;
    while (pos < end && strchr("eEinumkKMGTP", s[pos]) && s[pos]) pos++;
    if (pos < end && (s[pos] == '-' || s[pos] == '+')) pos++;
    while (pos < end && is_digit(s[pos])) pos++;
    if (pos < end) return false;
    q->suffix = s + suffix_start;
    q->nsuffix = end - suffix_start;
    return true;
}

/* Suffix -> multiplier 10^dec_exp * 2^bin_exp (upstream's suffixer). */
static bool interpret_suffix(const char *sfx, size_t n, int32_t *dec_exp, int32_t *bin_exp) {
    static const struct { const char *text; int32_t dec, bin; } table[] = {
        {"", 0, 0}, {"n", -9, 0}, {"u", -6, 0}, {"m", -3, 0}, {"k", 3, 0}, {"M", 6, 0},
        {"G", 9, 0}, {"T", 12, 0}, {"P", 15, 0}, {"E", 18, 0}, {"Ki", 0, 10}, {"Mi", 0, 20},
        {"Gi", 0, 30}, {"Ti", 0, 40}, {"Pi", 0, 50}, {"Ei", 0, 60},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (strlen(table[i].text) == n && memcmp(table[i].text, sfx, n) == 0) {
            *dec_exp = table[i].dec;
            *bin_exp = table[i].bin;
            return true;
        }
    }
    if (n > 1 && (sfx[0] == 'e' || sfx[0] == 'E')) {
        /* strconv.ParseInt(rest, 10, 64), then int32() as upstream does. */
        size_t i = 1;
        bool neg = false;
        if (sfx[i] == '+' || sfx[i] == '-') neg = sfx[i++] == '-';
        if (i == n) return false;
        unsigned __int128 v = 0;
        for (; i < n; i++) {
            if (!is_digit(sfx[i])) return false;
            v = v * 10 + (unsigned)(sfx[i] - '0');
            if (v > (unsigned __int128)INT64_MAX + (neg ? 1 : 0)) return false;
        }
        int64_t e = neg ? (int64_t)(-(__int128)v) : (int64_t)v;
        *dec_exp = (int32_t)(uint32_t)(uint64_t)e;
        *bin_exp = 0;
        return true;
    }
    return false;
}

/* scaled_ceil for up to 18 digits and a binary exponent up to 60 (every
 * suffix): digits * 2^bin fits in 128 bits, so the decimal exponent is one
 * multiplication or one division. Decoding a node parses several
 * quantities; the digit-by-digit doubling below costs thousands of
 * instructions for "32Gi". */
#define FAST_MAX_DIGITS 18
#define FAST_MAX_BIN 60

static int64_t scaled_ceil_fast(const char *digits, size_t n, int32_t bin, int64_t exp) {
    uint64_t d = 0;
    for (size_t i = 0; i < n; i++) d = d * 10 + (uint64_t)(digits[i] - '0');
    if (d == 0) return 0;
    unsigned __int128 v = (unsigned __int128)d << bin;   /* < 2^120 */
    if (exp >= 0) {
        /* 2^120 < 10^37: anything scaled by more is past INT64_MAX. */
        for (int64_t i = 0; i < exp; i++) {
            if (v > INT64_MAX) return INT64_MAX;
            v *= 10;
        }
        return v > INT64_MAX ? INT64_MAX : (int64_t)v;
    }
    /* A positive amount below one unit rounds up to one. */
    if (exp < -38) return 1;
    unsigned __int128 p = 1;
    for (int64_t i = 0; i < -exp; i++) p *= 10;
    unsigned __int128 q = v / p;
    if (v % p) q++;
    return q > INT64_MAX ? INT64_MAX : (int64_t)q;
}

/* ceil(digits * 2^bin * 10^exp) with saturation at INT64_MAX, for a
 * non-negative decimal digit string. Exact for any length. */
static int64_t scaled_ceil(const char *digits, size_t n, int32_t bin, int64_t exp) {
    if (n <= FAST_MAX_DIGITS && bin >= 0 && bin <= FAST_MAX_BIN)
        return scaled_ceil_fast(digits, n, bin, exp);
    /* Decimal digits, most significant first, multiplied by 2^bin in place. */
    size_t cap = n + 20;
    unsigned char *d = malloc(cap);
    if (!d) return INT64_MAX;   /* saturate rather than under-report */
    size_t len = 0;
    for (size_t i = 0; i < n; i++) d[len++] = (unsigned char)(digits[i] - '0');
    for (int32_t k = 0; k < bin; k++) {
        unsigned carry = 0;
        for (size_t i = len; i-- > 0;) {
            unsigned x = d[i] * 2u + carry;
            d[i] = (unsigned char)(x % 10);
            carry = x / 10;
        }
        if (carry) {
            memmove(d + 1, d, len);
            d[0] = (unsigned char)carry;
            len++;
        }
    }
    size_t lead = 0;
    while (lead < len && d[lead] == 0) lead++;
    if (lead == len) {
        free(d);
        return 0;
    }
    /* Integer part: the first len-lead+exp significant digits. */
    int64_t sig = (int64_t)(len - lead);
    int64_t int_digits = sig + exp;
    int64_t result;
    if (int_digits > 19) {
        result = INT64_MAX;
    } else if (int_digits <= 0) {
        result = 1;   /* a positive amount below one unit rounds up to one */
    } else {
        unsigned __int128 v = 0;
        for (int64_t i = 0; i < int_digits; i++) {
            unsigned digit = (int64_t)i < sig ? d[lead + (size_t)i] : 0;
            v = v * 10 + digit;
        }
        bool frac = false;
        for (int64_t i = int_digits; i < sig; i++)
            if (d[lead + (size_t)i]) frac = true;
        if (frac) v++;
        result = v > INT64_MAX ? INT64_MAX : (int64_t)v;
    }
    free(d);
    return result;
}

ms_rc ms_quantity_parse(const char *s, size_t len, ms_quantity *out, ms_error *err) {
    out->value = out->milli = 0;
    if (len == 0) return ms_error_set(err, MS_EINVAL, FORMAT_WRONG);
    scanned q;
    if (!scan(s, len, &q)) return ms_error_set(err, MS_EINVAL, FORMAT_WRONG);
    int32_t dec = 0, bin = 0;
    if (!interpret_suffix(q.suffix ? q.suffix : "", q.nsuffix, &dec, &bin))
        return ms_error_set(err, MS_EINVAL, SUFFIX_WRONG);
    if (q.nnum + q.ndenom == 0) return MS_OK;

    /* The digits num||denom, with the point moved into the exponent. */
    char stack[64];
    size_t n = q.nnum + q.ndenom;
    char *digits = n <= sizeof stack ? stack : malloc(n);
    if (!digits) return ms_error_set(err, MS_ENOMEM, "out of memory");
    memcpy(digits, q.num, q.nnum);
    if (q.ndenom) memcpy(digits + q.nnum, q.denom, q.ndenom);
    int64_t exp = (int64_t)dec - (int64_t)q.ndenom;
    int64_t value = scaled_ceil(digits, n, bin, exp);
    int64_t milli = scaled_ceil(digits, n, bin, exp + 3);
    if (digits != stack) free(digits);
    /* Rounding is away from zero for negative amounts too, as upstream's
     * RoundUp; saturation is symmetric. */
    out->value = q.negative ? (value == INT64_MAX ? INT64_MIN : -value) : value;
    out->milli = q.negative ? (milli == INT64_MAX ? INT64_MIN : -milli) : milli;
    return MS_OK;
}

ms_rc ms_quantity_parse_cstr(const char *s, ms_quantity *out, ms_error *err) {
    return ms_quantity_parse(s, strlen(s), out, err);
}

int ms_format_milli(char *buf, size_t n, int64_t milli) {
    if (milli % 1000 == 0) return snprintf(buf, n, "%lld", (long long)(milli / 1000));
    return snprintf(buf, n, "%lldm", (long long)milli);
}

int ms_format_bytes(char *buf, size_t n, int64_t bytes) {
    static const char *const units[] = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    if (bytes == 0) return snprintf(buf, n, "0");
    int unit = -1;
    int64_t v = bytes;
    while (unit < 5 && v % 1024 == 0) {
        v /= 1024;
        unit++;
    }
    if (unit < 0) return snprintf(buf, n, "%lld", (long long)bytes);
    return snprintf(buf, n, "%lld%s", (long long)v, units[unit]);
}
