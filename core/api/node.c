/* Node lifetime: allocation and reference counting. */
#include "moonsched/node.h"

#include <stdlib.h>

ms_node *ms_node_alloc(void) {
    ms_node *n = calloc(1, sizeof *n);
    if (!n) return NULL;
    atomic_init(&n->refs, 1);
    /* The arena holds what is not interned (conditions, taints, images,
     * resource lists, uid): 64 bytes for a bare node, 400 for a kubelet's
     * with three taints and two images, 2.2 KiB with 50 images. A 2048-byte
     * first block left most of it unused on every node; 512 holds the
     * common node in one block and the rest grow by doubling. */
    ms_arena_init(&n->arena, 512);
    return n;
}

void ms_node_unref(ms_node *n) {
    if (!n) return;
    if (atomic_fetch_sub_explicit(&n->refs, 1, memory_order_acq_rel) != 1) return;
    ms_arena_free(&n->arena);
    free(n);
}
