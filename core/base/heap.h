/* A binary min-heap of pointers, generic over a less function. Each element
 * carries its own position (an int32_t at a fixed offset inside it, -1 when
 * not in a heap) so that removal and re-ordering of an arbitrary element are
 * O(log n) without a search. Mirrors upstream's internal/heap, minus the keys:
 * callers find elements themselves (the queue by uid) and pass them in. */
#ifndef MOONSCHED_HEAP_H
#define MOONSCHED_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "moonsched/error.h"

/* True when a must come out before b. */
typedef bool (*ms_heap_less_fn)(void *ctx, const void *a, const void *b);

typedef struct ms_heap {
    void **items;
    uint32_t len;
    uint32_t cap;
    ms_heap_less_fn less;
    void *ctx;
    size_t index_offset;           /* offsetof(element, its int32_t index field) */
} ms_heap;

void ms_heap_init(ms_heap *h, ms_heap_less_fn less, void *ctx, size_t index_offset);
void ms_heap_free(ms_heap *h);
/* Grows the backing array to hold at least n elements (MS_ENOMEM on failure). */
ms_rc ms_heap_reserve(ms_heap *h, uint32_t n);

/* Inserts e (not already in a heap). MS_ENOMEM leaves the heap unchanged. */
ms_rc ms_heap_push(ms_heap *h, void *e);
/* Smallest element, or NULL when empty. */
static inline void *ms_heap_peek(const ms_heap *h) { return h->len ? h->items[0] : NULL; }
/* Removes and returns the smallest element, or NULL when empty. */
void *ms_heap_pop(ms_heap *h);
/* Removes e from the heap; false when e is not in this heap. */
bool ms_heap_remove(ms_heap *h, void *e);
/* Restores order after e's key changed; false when e is not in this heap. */
bool ms_heap_fix(ms_heap *h, void *e);
bool ms_heap_contains(const ms_heap *h, const void *e);
/* Restores order after the less function itself changed. */
void ms_heap_reorder(ms_heap *h);
static inline uint32_t ms_heap_len(const ms_heap *h) { return h->len; }
/* Element at array position i < len (heap order, not sorted): for iteration. */
static inline void *ms_heap_at(const ms_heap *h, uint32_t i) { return h->items[i]; }

#endif
