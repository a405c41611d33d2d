/* The binary min-heap with positions kept in its elements. */
#include "base/heap.h"

#include "base/array.h"

#include <stdlib.h>
#include <string.h>

static int32_t *index_of(const ms_heap *h, const void *e) {
    return (int32_t *)((char *)(uintptr_t)e + h->index_offset);
}

static void place(ms_heap *h, uint32_t i, void *e) {
    h->items[i] = e;
    *index_of(h, e) = (int32_t)i;
}

static bool less_at(const ms_heap *h, uint32_t i, uint32_t j) {
    return h->less(h->ctx, h->items[i], h->items[j]);
}

/* Moves the element at i towards the root; true when it moved. */
static bool sift_up(ms_heap *h, uint32_t i) {
    void *e = h->items[i];
    uint32_t start = i;
    while (i > 0) {
        uint32_t parent = (i - 1) / 2;
        if (!h->less(h->ctx, e, h->items[parent])) break;
        place(h, i, h->items[parent]);
        i = parent;
    }
    place(h, i, e);
    return i != start;
}

/* Floyd's variant: the hole goes down to a leaf along the smaller children
 * (one comparison per level), then the element rises from there. A pop
 * moves the last element, which nearly always belongs near the bottom, so
 * this takes about half the comparisons of the textbook loop; with the
 * queue's orders (total: ties end on insertion order) the pop order is
 * the same. */
static void sift_down(ms_heap *h, uint32_t i) {
    void *e = h->items[i];
    uint32_t start = i;
    for (;;) {
        uint32_t child = 2 * i + 1;
        if (child >= h->len) break;
        if (child + 1 < h->len && less_at(h, child + 1, child)) child++;
        place(h, i, h->items[child]);
        i = child;
    }
    while (i > start) {
        uint32_t parent = (i - 1) / 2;
        if (!h->less(h->ctx, e, h->items[parent])) break;
        place(h, i, h->items[parent]);
        i = parent;
    }
    place(h, i, e);
}

void ms_heap_init(ms_heap *h, ms_heap_less_fn less, void *ctx, size_t index_offset) {
    memset(h, 0, sizeof *h);
    h->less = less;
    h->ctx = ctx;
    h->index_offset = index_offset;
}

void ms_heap_free(ms_heap *h) {
    free(h->items);
    h->items = NULL;
    h->len = h->cap = 0;
}

ms_rc ms_heap_reserve(ms_heap *h, uint32_t n) {
    return ms_array_grow((void **)&h->items, &h->cap, n, sizeof *h->items) ? MS_OK : MS_ENOMEM;
}

ms_rc ms_heap_push(ms_heap *h, void *e) {
    if (h->len == h->cap) {
        if (h->len == UINT32_MAX) return MS_ENOMEM;
        ms_rc rc = ms_heap_reserve(h, h->len + 1);
        if (rc != MS_OK) return rc;
    }
    place(h, h->len++, e);
    sift_up(h, h->len - 1);
    return MS_OK;
}

/* Takes the element at i out, filling the hole with the last element. */
static void remove_at(ms_heap *h, uint32_t i) {
    void *e = h->items[i];
    *index_of(h, e) = -1;
    uint32_t last = --h->len;
    if (i == last) return;
    place(h, i, h->items[last]);
    if (!sift_up(h, i)) sift_down(h, i);
}

void *ms_heap_pop(ms_heap *h) {
    if (h->len == 0) return NULL;
    void *e = h->items[0];
    remove_at(h, 0);
    return e;
}

bool ms_heap_contains(const ms_heap *h, const void *e) {
    int32_t i = *index_of(h, e);
    return i >= 0 && (uint32_t)i < h->len && h->items[i] == e;
}

bool ms_heap_remove(ms_heap *h, void *e) {
    if (!ms_heap_contains(h, e)) return false;
    remove_at(h, (uint32_t)*index_of(h, e));
    return true;
}

bool ms_heap_fix(ms_heap *h, void *e) {
    if (!ms_heap_contains(h, e)) return false;
    uint32_t i = (uint32_t)*index_of(h, e);
    if (!sift_up(h, i)) sift_down(h, i);
    return true;
}

void ms_heap_reorder(ms_heap *h) {
    /* Each element joins the heap formed by those before it. */
    for (uint32_t i = 1; i < h->len; i++) sift_up(h, i);
}
