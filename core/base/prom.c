/* Prometheus text exposition helpers. See base/prom.h. */
#include "base/prom.h"

void ms_prom_observe(ms_prom_histogram *h, const ms_prom_bounds *b, double v) {
    uint32_t i = 0;
    while (i < b->n && v > b->le[i]) i++;
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

void ms_prom_put_histogram(ms_buf *b, const char *name, const char *labels, const ms_prom_histogram *h,
                           const ms_prom_bounds *bounds) {
    const char *sep = labels[0] ? "," : "";
    uint64_t cum = 0;
    for (uint32_t i = 0; i < bounds->n; i++) {
        cum += h->buckets[i];
        ms_buf_printf(b, "%s_bucket{%s%sle=\"%g\"} %llu\n", name, labels, sep, bounds->le[i],
                      (unsigned long long)cum);
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
