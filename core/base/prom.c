/* Prometheus text exposition helpers. See base/prom.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/prom.h"

void ms_prom_observe(ms_prom_histogram *h, const ms_prom_bounds *b, double v) {
    /* the first bound >= v (binary search: 20 bounds, 5 steps) */
    uint32_t i = 0, hi = b->n;
    while (i < hi) {
        uint32_t mid = (i + hi) / 2;
        if (v > b->le[mid]) i = mid + 1;
        else hi = mid;
    }
    h->buckets[i]++;
    h->count++;
    h->sum += v;
}

void ms_prom_merge(ms_prom_histogram *into, const ms_prom_histogram *h) {
    for (uint32_t i = 0; i <= MS_PROM_MAX_BUCKETS; i++) into->buckets[i] += h->buckets[i];
    into->count += h->count;
    into->sum += h->sum;
}

void ms_prom_header(ms_buf *b, const char *name, const char *type, const char *help) {
    ms_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void ms_prom_format_float(double v, char *buf, size_t n) {
    /* the fewest significant digits that read back as v */
    int digits = 1;
    char e[40];
    for (; digits < 17; digits++) {
        snprintf(e, sizeof e, "%.*e", digits - 1, v);
        if (strtod(e, NULL) == v) break;
    }
    snprintf(e, sizeof e, "%.*e", digits - 1, v);
    const char *x = strchr(e, 'e');
    int exp = x ? atoi(x + 1) : 0;
    /* Go's 'g' with the shortest precision decides on 6 digits */
    if (exp < -4 || exp >= 6) snprintf(buf, n, "%s", e);
    else snprintf(buf, n, "%.*f", digits - 1 - exp > 0 ? digits - 1 - exp : 0, v);
}

void ms_prom_put_histogram(ms_buf *b, const char *name, const char *labels, const ms_prom_histogram *h,
                           const ms_prom_bounds *bounds) {
    const char *sep = labels[0] ? "," : "";
    uint64_t cum = 0;
    char le[40];
    for (uint32_t i = 0; i < bounds->n; i++) {
        cum += h->buckets[i];
        ms_prom_format_float(bounds->le[i], le, sizeof le);
        ms_buf_printf(b, "%s_bucket{%s%sle=\"%s\"} %llu\n", name, labels, sep, le, (unsigned long long)cum);
    }
    cum += h->buckets[bounds->n];
    ms_buf_printf(b, "%s_bucket{%s%sle=\"+Inf\"} %llu\n", name, labels, sep, (unsigned long long)cum);
    const char *open = labels[0] ? "{" : "", *close = labels[0] ? "}" : "";
    ms_buf_printf(b, "%s_sum%s%s%s %.9g\n", name, open, labels, close, h->sum);
    ms_buf_printf(b, "%s_count%s%s%s %llu\n", name, open, labels, close, (unsigned long long)h->count);
}

const char *ms_prom_escape(const char *s, char *buf, size_t n) {
    size_t k = 0;
    for (; *s && k + 2 < n; s++) {
        if (*s == '\\' || *s == '"') buf[k++] = '\\', buf[k++] = *s;
        else if (*s == '\n') buf[k++] = '\\', buf[k++] = 'n';
        else buf[k++] = *s;
    }
    buf[k] = 0;
    return buf;
}
