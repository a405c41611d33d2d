/* The open-addressing map from 64-bit keys to pointers. */
#include "base/map.h"

#include <stdlib.h>
#include <string.h>

enum { SLOT_EMPTY = 0, SLOT_USED = 1, SLOT_DELETED = 2 };

/* Keys are often small dense ids: mix them so that linear probing spreads. */
static size_t mix(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return (size_t)k;
}

uint64_t ms_hash_bytes(const void *p, size_t len) {
    /* FNV-1a, then a final mix: short keys (UIDs, names) hash well enough. */
    const unsigned char *s = p;
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < len; i++) {
        h ^= s[i];
        h *= 0x100000001b3ULL;
    }
    return (uint64_t)mix(h);
}

void ms_map_init(ms_map *m) {
    memset(m, 0, sizeof *m);
}

void ms_map_free(ms_map *m) {
    free(m->keys);
    free(m->vals);
    free(m->used);
    memset(m, 0, sizeof *m);
}

static size_t lookup(const ms_map *m, uint64_t key, bool *found) {
    size_t mask = m->cap - 1;
    size_t first_free = (size_t)-1;
    for (size_t i = mix(key) & mask;; i = (i + 1) & mask) {
        if (m->used[i] == SLOT_EMPTY) {
            *found = false;
            return first_free != (size_t)-1 ? first_free : i;
        }
        if (m->used[i] == SLOT_DELETED) {
            if (first_free == (size_t)-1) first_free = i;
        } else if (m->keys[i] == key) {
            *found = true;
            return i;
        }
    }
}

static int resize(ms_map *m, size_t cap) {
    ms_map n = {0};
    n.cap = cap;
    n.keys = malloc(cap * sizeof *n.keys);
    n.vals = malloc(cap * sizeof *n.vals);
    n.used = calloc(cap, 1);
    if (!n.keys || !n.vals || !n.used) {
        free(n.keys);
        free(n.vals);
        free(n.used);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (m->used[i] != SLOT_USED) continue;
        bool found;
        size_t j = lookup(&n, m->keys[i], &found);
        n.keys[j] = m->keys[i];
        n.vals[j] = m->vals[i];
        n.used[j] = SLOT_USED;
        n.len++;
    }
    ms_map_free(m);
    *m = n;
    return 0;
}

void *ms_map_get(const ms_map *m, uint64_t key) {
    if (m->len == 0) return NULL;
    bool found;
    size_t i = lookup(m, key, &found);
    return found ? m->vals[i] : NULL;
}

bool ms_map_has(const ms_map *m, uint64_t key) {
    if (m->len == 0) return false;
    bool found;
    lookup(m, key, &found);
    return found;
}

int ms_map_put(ms_map *m, uint64_t key, void *val) {
    if (m->cap == 0 || (m->len + m->tombstones + 1) * 4 > m->cap * 3) {
        size_t cap = m->cap ? m->cap : 16;
        while ((m->len + 1) * 4 > cap * 3 / 2) cap *= 2;   /* room to grow after cleanup */
        if (resize(m, cap) != 0) return -1;
    }
    bool found;
    size_t i = lookup(m, key, &found);
    if (!found) {
        if (m->used[i] == SLOT_DELETED) m->tombstones--;
        m->keys[i] = key;
        m->used[i] = SLOT_USED;
        m->len++;
    }
    m->vals[i] = val;
    return 0;
}

void *ms_map_del(ms_map *m, uint64_t key) {
    if (m->len == 0) return NULL;
    bool found;
    size_t i = lookup(m, key, &found);
    if (!found) return NULL;
    void *v = m->vals[i];
    m->used[i] = SLOT_DELETED;
    m->len--;
    m->tombstones++;
    return v;
}

void ms_map_clear(ms_map *m) {
    if (m->len == 0 && m->tombstones == 0) return;
    memset(m->used, 0, m->cap);
    m->len = 0;
    m->tombstones = 0;
}

bool ms_map_next(const ms_map *m, size_t *it, uint64_t *key, void **val) {
    for (size_t i = *it; i < m->cap; i++) {
        if (m->used[i] == SLOT_USED) {
            if (key) *key = m->keys[i];
            if (val) *val = m->vals[i];
            *it = i + 1;
            return true;
        }
    }
    *it = m->cap;
    return false;
}
