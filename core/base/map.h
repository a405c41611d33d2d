/* Open-addressing hash map from a 64-bit key to a pointer. Interned ids,
 * pairs of ids and hashed UIDs are all 64-bit keys. Not thread-safe: each map
 * has one owner. */
#ifndef MOONSCHED_MAP_H
#define MOONSCHED_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ms_map {
    uint64_t *keys;
    void **vals;
    uint8_t *used;      /* 0 empty, 1 used, 2 deleted */
    size_t cap;         /* power of two, or 0 */
    size_t len;
    size_t tombstones;
} ms_map;

void ms_map_init(ms_map *m);
void ms_map_free(ms_map *m);
/* NULL when absent. */
void *ms_map_get(const ms_map *m, uint64_t key);
bool ms_map_has(const ms_map *m, uint64_t key);
/* Inserts or replaces; returns -1 on out of memory. */
int ms_map_put(ms_map *m, uint64_t key, void *val);
/* Returns the removed value or NULL. */
void *ms_map_del(ms_map *m, uint64_t key);
/* Removes every entry and keeps the capacity: a map refilled once per
 * scheduling cycle allocates nothing once it has grown. */
void ms_map_clear(ms_map *m);

/* Iteration: for (size_t it = 0; ms_map_next(m, &it, &k, &v);) */
bool ms_map_next(const ms_map *m, size_t *it, uint64_t *key, void **val);

/* 64-bit hash of bytes (for UIDs and other non-interned strings). */
uint64_t ms_hash_bytes(const void *p, size_t len);

#endif
