/* The bump allocator: blocks that double in size, freed or reset as a whole. */
#include "moonsched/arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct ms_arena_block {
    ms_arena_block *prev;
    size_t size;
    size_t used;
    _Alignas(16) unsigned char data[];
};

#define ARENA_ALIGN 16
#define ARENA_MAX_BLOCK (1u << 20)

void ms_arena_init(ms_arena *a, size_t first_block) {
    a->head = NULL;
    a->block_size = first_block ? first_block : 1024;
    a->total = 0;
}

static ms_arena_block *arena_grow(ms_arena *a, size_t need) {
    size_t size = a->block_size;
    while (size < need) size *= 2;
    ms_arena_block *b = malloc(sizeof *b + size);
    if (!b) return NULL;
    b->prev = a->head;
    b->size = size;
    b->used = 0;
    a->head = b;
    /* Grow geometrically so that big objects take few blocks, but cap the
     * step: a cycle arena must not balloon after one unusual pod. */
    if (a->block_size < ARENA_MAX_BLOCK) a->block_size *= 2;
    return b;
}

void *ms_arena_alloc(ms_arena *a, size_t size) {
    size_t rounded = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    if (rounded < size) return NULL;
    ms_arena_block *b = a->head;
    if (!b || b->size - b->used < rounded) {
        b = arena_grow(a, rounded ? rounded : ARENA_ALIGN);
        if (!b) return NULL;
    }
    void *p = b->data + b->used;
    b->used += rounded;
    a->total += rounded;
    memset(p, 0, size);
    return p;
}

char *ms_arena_strndup(ms_arena *a, const char *s, size_t len) {
    char *p = ms_arena_alloc(a, len + 1);
    if (!p) return NULL;
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

char *ms_arena_strdup(ms_arena *a, const char *s) {
    return ms_arena_strndup(a, s, strlen(s));
}

static void free_blocks(ms_arena_block *b) {
    while (b) {
        ms_arena_block *prev = b->prev;
        free(b);
        b = prev;
    }
}

void ms_arena_reset(ms_arena *a) {
    ms_arena_block *keep = a->head;
    if (!keep) return;
    /* Keep the newest (largest) block: the next cycle of the same shape then
     * allocates nothing. */
    free_blocks(keep->prev);
    keep->prev = NULL;
    keep->used = 0;
    a->head = keep;
    a->total = 0;
}

void ms_arena_free(ms_arena *a) {
    free_blocks(a->head);
    a->head = NULL;
    a->total = 0;
}
