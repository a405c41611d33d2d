/* resource.Quantity, parsed with upstream's exact rules:
 *   <quantity> ::= <signedNumber><suffix>
 *   suffix: binary (Ki Mi Gi Ti Pi Ei), decimal (n u m "" k M G T P E),
 *           or decimal exponent (e<int> / E<int>).
 * Value() and MilliValue() round up (towards +inf) as upstream does and
 * saturate at INT64_MAX / INT64_MIN instead of overflowing. */
#ifndef MOONSCHED_QUANTITY_H
#define MOONSCHED_QUANTITY_H

#include <stddef.h>
#include <stdint.h>

#include "moonsched/error.h"

typedef struct ms_quantity {
    int64_t value;   /* Value(): ceil to a whole unit */
    int64_t milli;   /* MilliValue(): ceil to a thousandth */
} ms_quantity;

/* Parses exactly len bytes (no surrounding space allowed, as upstream).
 * On error returns MS_EINVAL and says why ("quantities must match the
 * regular expression ..." / "unable to parse quantity's suffix"). */
ms_rc ms_quantity_parse(const char *s, size_t len, ms_quantity *out, ms_error *err);
ms_rc ms_quantity_parse_cstr(const char *s, ms_quantity *out, ms_error *err);

/* Human output: 1500 -> "1500m", 2000 -> "2"; bytes: 1073741824 -> "1Gi",
 * 1500 -> "1500". Returns the number of bytes written (snprintf rules). */
int ms_format_milli(char *buf, size_t n, int64_t milli);
int ms_format_bytes(char *buf, size_t n, int64_t bytes);

#endif
