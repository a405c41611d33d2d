/* resource.Quantity parsing on arbitrary bytes. Beyond not crashing, checks
 * what Value() and MilliValue() must satisfy: the same sign, milli within
 * one unit of value*1000 (both round away from zero), and that formatting
 * either one and parsing it again gives it back. */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "moonsched/error.h"
#include "base/quantity.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) \
    do { \
        if (!(c)) __builtin_trap(); \
    } while (0)

static int sign(int64_t v) { return (v > 0) - (v < 0); }

static bool saturated(int64_t v) { return v == INT64_MAX || v == INT64_MIN; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ms_quantity q;
    ms_error err = {0};
    ms_rc rc = ms_quantity_parse((const char *)data, size, &q, &err);
    if (rc != MS_OK) {
        CHECK(rc == MS_EINVAL && err.msg[0] != '\0');
        CHECK(q.value == 0 && q.milli == 0);
        return 0;
    }
    CHECK(sign(q.value) == sign(q.milli));
    if (!saturated(q.milli)) {
        /* ceil(x) - 1 < x <= ceil(x), scaled by 1000, mirrored for x < 0. */
        CHECK(q.value >= -(INT64_MAX / 1000) - 1 && q.value <= INT64_MAX / 1000 + 1);
        if (q.value > 0) CHECK(q.milli <= q.value * 1000 && q.milli > (q.value - 1) * 1000);
        if (q.value < 0) CHECK(q.milli >= q.value * 1000 && q.milli < (q.value + 1) * 1000);
    }
    if (saturated(q.value)) CHECK(q.milli == q.value);

    char buf[64];
    ms_quantity back;
    int n = ms_format_milli(buf, sizeof buf, q.milli);
    CHECK(n > 0 && (size_t)n < sizeof buf);
    CHECK(ms_quantity_parse(buf, (size_t)n, &back, &err) == MS_OK);
    CHECK(back.milli == q.milli);

    n = ms_format_bytes(buf, sizeof buf, q.value);
    CHECK(n > 0 && (size_t)n < sizeof buf);
    CHECK(ms_quantity_parse(buf, (size_t)n, &back, &err) == MS_OK);
    CHECK(back.value == q.value);
    if (!saturated(q.value) && q.value >= -(INT64_MAX / 1000) && q.value <= INT64_MAX / 1000)
        CHECK(back.milli == q.value * 1000);

    /* A NUL-terminated copy parses the same through the C-string entry. */
    if (size < 256 && !memchr(data, '\0', size)) {
        char text[256];
        memcpy(text, data, size);
        text[size] = '\0';
        ms_quantity again;
        CHECK(ms_quantity_parse_cstr(text, &again, &err) == MS_OK);
        CHECK(again.value == q.value && again.milli == q.milli);
    }
    return 0;
}
