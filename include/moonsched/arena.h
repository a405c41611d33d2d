/* Bump allocator: every decoded object owns one, a scheduling cycle owns one.
 * Freed (or reset) as a whole; individual allocations are never freed. */
#ifndef MOONSCHED_ARENA_H
#define MOONSCHED_ARENA_H

#include <stddef.h>

#pragma GCC visibility push(default)

typedef struct ms_arena_block ms_arena_block;

typedef struct ms_arena {
    ms_arena_block *head;   /* current block */
    size_t block_size;      /* size of the next block to allocate */
    size_t total;           /* bytes handed out, for accounting */
} ms_arena;

void ms_arena_init(ms_arena *a, size_t first_block);
/* 16-byte aligned; NULL only when malloc fails. Zeroed. */
void *ms_arena_alloc(ms_arena *a, size_t size);
char *ms_arena_strndup(ms_arena *a, const char *s, size_t len);
char *ms_arena_strdup(ms_arena *a, const char *s);
/* Keeps the first block, frees the others: reuse without malloc. */
void ms_arena_reset(ms_arena *a);
void ms_arena_free(ms_arena *a);

#define MS_ARENA_NEW(a, type, n) ((type *)ms_arena_alloc((a), sizeof(type) * (size_t)(n)))

#pragma GCC visibility pop

#endif
