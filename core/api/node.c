/* Node lifetime: allocation and reference counting. */
#include "moonsched/node.h"

#include <stdlib.h>

ms_node *ms_node_alloc(void) {
    ms_node *n = calloc(1, sizeof *n);
    if (!n) return NULL;
    atomic_init(&n->refs, 1);
    ms_arena_init(&n->arena, 2048);
    return n;
}

void ms_node_unref(ms_node *n) {
    if (!n) return;
    if (atomic_fetch_sub_explicit(&n->refs, 1, memory_order_acq_rel) != 1) return;
    ms_arena_free(&n->arena);
    free(n);
}
