/* Prometheus text exposition (format 0.0.4): the histogram with fixed
 * bounds, the HELP/TYPE header and label escaping that every owner of
 * metrics renders with (the collectors of every layer's metric set, the
 * scheduler thread for the ones it records).
 * Not thread-safe: each owner keeps its histograms to itself. */
#ifndef MOONSCHED_BASE_PROM_H
#define MOONSCHED_BASE_PROM_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

/* The most bounds any family uses (upstream's ExponentialBuckets(.., 20)). */
#define MS_PROM_MAX_BUCKETS 20

typedef struct ms_prom_bounds {
    const double *le;
    uint32_t n;
} ms_prom_bounds;

typedef struct ms_prom_histogram {
    uint64_t buckets[MS_PROM_MAX_BUCKETS + 1];   /* per bound, not cumulative; last: +Inf */
    uint64_t count;
    double sum;
} ms_prom_histogram;

void ms_prom_observe(ms_prom_histogram *h, const ms_prom_bounds *b, double v);
/* Adds h's observations to into (same bounds). */
void ms_prom_merge(ms_prom_histogram *into, const ms_prom_histogram *h);

/* "# HELP name help\n# TYPE name type\n". */
void ms_prom_header(ms_buf *b, const char *name, const char *type, const char *help);
/* v as Go's strconv.FormatFloat(v, 'g', -1, 64) writes it, as upstream's
 * le labels are: the shortest digits that read back as v, in exponent
 * form below 1e-4 and from 1e6 ("1e-05", "1.5000000000000002e-05",
 * "0.0001", "16.384", "64"). */
void ms_prom_format_float(double v, char *buf, size_t n);
/* name_bucket{labels,le=...}, name_sum, name_count; labels: "" or
 * `a="x",b="y"` already escaped. */
void ms_prom_put_histogram(ms_buf *b, const char *name, const char *labels, const ms_prom_histogram *h,
                           const ms_prom_bounds *bounds);
/* A label value as the text format wants it (\\, \" and \n escaped), into
 * buf (truncated to n); returns buf. */
const char *ms_prom_escape(const char *s, char *buf, size_t n);

#endif
