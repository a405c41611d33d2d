/* libFuzzer target: bytes as a watch stream arrives. The first byte picks
 * the resource (pods, nodes, namespaces, PDBs), whether the decoder keeps
 * raw JSON, and how the rest is cut into chunks; the chunks go through the
 * line splitter and every line to the informer's watch-event handling, as
 * a running watch does. Every delta that comes out is checked and released;
 * stopping the informer frees the objects it remembers. Must never crash or
 * leak. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/line_splitter.h"
#include "client/delta_queue.h"
#include "client/informer_internal.h"
#include "moonsched/decode.h"
#include "moonsched/intern.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void discard(void *ctx, ms_log_level level, const char *line, size_t len) {
    (void)ctx;
    (void)level;
    (void)line;
    (void)len;
}

static int on_line(void *ctx, char *line, size_t len) {
    ms_informer_watch_line(ctx, line, len);
    return 0;   /* keep going after an ERROR event too: more code runs */
}

static void drain(ms_delta_queue *q, ms_object_kind kind) {
    ms_delta d[64];
    size_t n;
    while ((n = ms_delta_queue_pop(q, d, 64, 0)) > 0) {
        for (size_t i = 0; i < n; i++) {
            if (d[i].kind != kind || d[i].type > MS_DELTA_DELETE || !d[i].obj) abort();
            ms_delta_release(&d[i]);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const ms_informer_resource *const res[] = {&ms_informer_pods, &ms_informer_nodes,
                                                      &ms_informer_namespaces, &ms_informer_pdbs};
    static ms_delta_queue *q;   /* one eventfd for the whole run */
    if (!q && !(q = ms_delta_queue_new())) return 0;
    if (size < 1) return 0;
    uint8_t mode = data[0];
    data++;
    size--;

    ms_interner *in = ms_interner_new();
    if (!in) return 0;
    ms_decoder d;
    ms_decoder_init(&d, in);
    d.keep_raw = mode & 4;
    ms_logger log = {.level = MS_LOG_DEBUG, .sink = discard};
    ms_informer_options o = {.resource = res[mode & 3], .decode_ctx = &d, .queue = q, .log = &log, .seed = 1};
    ms_informer *inf = NULL;
    ms_error err;
    if (ms_informer_new_detached(&o, &inf, &err) != MS_OK) {
        ms_interner_free(in);
        return 0;
    }
    ms_line_splitter s;
    ms_line_splitter_init(&s, 1 << 16);
    /* chunk sizes 1..2^k from a small generator the first byte seeds */
    uint32_t max = 1u << ((mode >> 3) & 7) * 2, x = mode | 1u;
    for (size_t at = 0; at < size;) {
        x = x * 1103515245u + 12345u;
        size_t n = 1 + (x >> 8) % max;
        if (n > size - at) n = size - at;
        if (ms_line_splitter_feed(&s, (const char *)data + at, n, on_line, inf) < 0) break;
        at += n;
    }
    ms_line_splitter_free(&s);
    drain(q, (ms_object_kind)res[mode & 3]->kind);
    ms_informer_stop(inf);
    ms_interner_free(in);
    return 0;
}
