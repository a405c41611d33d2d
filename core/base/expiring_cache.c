/* The bounded expiring cache: an array of entries and a map from the
 * key's hash to its slot. See base/expiring_cache.h. */
#include "base/expiring_cache.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/map.h"

typedef struct entry {
    uint64_t hash;
    void *key;
    size_t klen;
    char *value;
    size_t vlen;
    double expires;
    bool used;
} entry;

struct ms_expiring_cache {
    pthread_mutex_t mu;
    ms_map slots;                  /* hash -> slot index + 1 */
    entry *e;
    uint32_t cap, len;
};

ms_expiring_cache *ms_expiring_cache_new(uint32_t capacity) {
    ms_expiring_cache *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->cap = capacity ? capacity : 1;
    c->e = calloc(c->cap, sizeof *c->e);
    if (!c->e) {
        free(c);
        return NULL;
    }
    ms_map_init(&c->slots);
    pthread_mutex_init(&c->mu, NULL);
    return c;
}

static void entry_clear(entry *e) {
    free(e->key);
    free(e->value);
    memset(e, 0, sizeof *e);
}

void ms_expiring_cache_free(ms_expiring_cache *c) {
    if (!c) return;
    for (uint32_t i = 0; i < c->cap; i++) entry_clear(&c->e[i]);
    free(c->e);
    ms_map_free(&c->slots);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

/* The slot of key, or -1. */
static int64_t find(const ms_expiring_cache *c, uint64_t h, const void *key, size_t klen) {
    uintptr_t v = (uintptr_t)ms_map_get(&c->slots, h);
    if (!v) return -1;
    const entry *e = &c->e[v - 1];
    return e->klen == klen && memcmp(e->key, key, klen) == 0 ? (int64_t)(v - 1) : -1;
}

/* Where a new entry goes: the slot its hash already has (another key with
 * the same hash is replaced), a free one, an expired one, else the one
 * closest to expiring. */
static uint32_t slot_for(ms_expiring_cache *c, uint64_t h, double now) {
    uintptr_t v = (uintptr_t)ms_map_get(&c->slots, h);
    if (v) return (uint32_t)(v - 1);
    uint32_t best = 0;
    for (uint32_t i = 0; i < c->cap; i++) {
        if (!c->e[i].used || c->e[i].expires <= now) return i;
        if (c->e[i].expires < c->e[best].expires) best = i;
    }
    return best;
}

bool ms_expiring_cache_put(ms_expiring_cache *c, const void *key, size_t klen, const void *value, size_t vlen,
                           double now, double ttl) {
    void *k = malloc(klen ? klen : 1);
    char *val = malloc(vlen + 1);
    if (!k || !val) {
        free(k);
        free(val);
        return false;
    }
    memcpy(k, key, klen);
    memcpy(val, value, vlen);
    val[vlen] = 0;
    uint64_t h = ms_hash_bytes(key, klen);
    pthread_mutex_lock(&c->mu);
    uint32_t i = slot_for(c, h, now);
    entry *e = &c->e[i];
    if (e->used) {
        ms_map_del(&c->slots, e->hash);
        c->len--;
    }
    entry_clear(e);
    bool ok = ms_map_put(&c->slots, h, (void *)(uintptr_t)(i + 1)) == 0;
    if (ok) {
        *e = (entry){.hash = h, .key = k, .klen = klen, .value = val, .vlen = vlen, .expires = now + ttl,
                     .used = true};
        c->len++;
    }
    pthread_mutex_unlock(&c->mu);
    if (!ok) {
        free(k);
        free(val);
    }
    return ok;
}

char *ms_expiring_cache_get(ms_expiring_cache *c, const void *key, size_t klen, double now, size_t *vlen) {
    uint64_t h = ms_hash_bytes(key, klen);
    char *out = NULL;
    pthread_mutex_lock(&c->mu);
    int64_t i = find(c, h, key, klen);
    if (i >= 0 && c->e[i].expires > now) {
        const entry *e = &c->e[i];
        out = malloc(e->vlen + 1);
        if (out) {
            memcpy(out, e->value, e->vlen + 1);
            if (vlen) *vlen = e->vlen;
        }
    }
    pthread_mutex_unlock(&c->mu);
    return out;
}

uint32_t ms_expiring_cache_len(ms_expiring_cache *c) {
    pthread_mutex_lock(&c->mu);
    uint32_t n = c->len;
    pthread_mutex_unlock(&c->mu);
    return n;
}
