/* The metrics registry. See base/metrics_registry.h. */
#include <stdlib.h>

#include "base/array.h"
#include "base/metrics_registry.h"

typedef struct collector {
    ms_metrics_collector collect;
    void *ctx;
} collector;

struct ms_metrics_registry {
    collector *collectors;
    uint32_t n, cap;
};

ms_metrics_registry *ms_metrics_registry_new(void) { return calloc(1, sizeof(ms_metrics_registry)); }

void ms_metrics_registry_free(ms_metrics_registry *r) {
    if (!r) return;
    free(r->collectors);
    free(r);
}

bool ms_metrics_registry_add(ms_metrics_registry *r, ms_metrics_collector collect, void *ctx) {
    if (!ms_array_grow((void **)&r->collectors, &r->cap, r->n + 1, sizeof *r->collectors)) return false;
    r->collectors[r->n++] = (collector){collect, ctx};
    return true;
}

char *ms_metrics_registry_render(const ms_metrics_registry *r, size_t *len) {
    ms_buf b = {0};
    /* a scrape of `run` is about 16 KiB before the plugins' families */
    if (!ms_buf_reserve(&b, 16384)) return NULL;
    b.data[0] = 0;   /* reserving does not terminate: no collector may write */
    for (uint32_t i = 0; i < r->n; i++) r->collectors[i].collect(r->collectors[i].ctx, &b);
    if (b.failed) {
        ms_buf_free(&b);
        return NULL;
    }
    if (len) *len = b.len;
    return ms_buf_take(&b);
}
