/* The string interner: ids for strings, looked up without a lock on the hot path. */
#include "moonsched/intern.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/map.h"
#include "moonsched/arena.h"

/* Entries live in fixed-size chunks reached through a table that never
 * moves, so that readers on other threads can resolve an id without a lock
 * while a writer appends. */
#define CHUNK_BITS 12
#define CHUNK_SIZE (1u << CHUNK_BITS)
#define MAX_CHUNKS (1u << 16)

/* refs of a string interned for good (ms_intern): never released. */
#define PINNED UINT32_MAX
/* A released id waits behind this many others before it is handed out
 * again: a reader that kept an id without a reference past the object it
 * came from still reads the old text for a while, not another string. */
#define REUSE_AFTER 1024u

typedef struct intern_entry {
    _Atomic(const char *) s;
    uint32_t len;
    uint32_t hash;
    uint32_t refs;           /* PINNED, counted references, or 0: free */
    uint32_t next_free;      /* the free list's next id, while free */
    bool owned;              /* s was malloc'd (counted entries), not arena text */
} intern_entry;

struct ms_interner {
    pthread_mutex_t lock;
    intern_entry **chunks;   /* MAX_CHUNKS slots */
    _Atomic uint32_t count;  /* ids handed out, including the reserved 0 */
    uint32_t live;           /* ids in the table */
    /* Released ids, oldest first (reused from the head). */
    uint32_t free_head, free_tail, nfree;
    /* Open addressing: hash << 32 | id, or 0. The hash beside the id lets
     * a probe skip other strings without reading their entries (a load of
     * 200,000 pod names otherwise misses the cache on every probe). */
    uint64_t *slots;
    uint32_t nslots;         /* power of two */
    ms_arena text;
};

static intern_entry *entry_at(const ms_interner *in, uint32_t id) {
    return &in->chunks[id >> CHUNK_BITS][id & (CHUNK_SIZE - 1)];
}

static const char *text_of(const intern_entry *e) {
    return atomic_load_explicit(&e->s, memory_order_acquire);
}

static uint32_t hash32(const char *s, size_t len) {
    uint64_t h = ms_hash_bytes(s, len);
    return (uint32_t)(h ^ (h >> 32));
}

static uint32_t slot_id(uint64_t slot) { return (uint32_t)slot; }

static uint64_t make_slot(uint32_t h, uint32_t id) { return (uint64_t)h << 32 | id; }

static uint32_t find_slot(const ms_interner *in, const char *s, size_t len, uint32_t h) {
    uint32_t mask = in->nslots - 1;
    for (uint32_t i = h & mask;; i = (i + 1) & mask) {
        uint64_t slot = in->slots[i];
        if (slot == 0) return i;
        if ((uint32_t)(slot >> 32) != h) continue;
        const intern_entry *e = entry_at(in, slot_id(slot));
        if (e->len == len && memcmp(text_of(e), s, len) == 0) return i;
    }
}

static int rehash(ms_interner *in) {
    uint32_t n = in->nslots * 2;
    uint64_t *slots = calloc(n, sizeof *slots);
    if (!slots) return -1;
    uint32_t count = atomic_load_explicit(&in->count, memory_order_relaxed);
    for (uint32_t id = 1; id < count; id++) {
        const intern_entry *e = entry_at(in, id);
        if (e->refs == 0) continue;
        uint32_t i = e->hash & (n - 1);
        while (slots[i]) i = (i + 1) & (n - 1);
        slots[i] = make_slot(e->hash, id);
    }
    free(in->slots);
    in->slots = slots;
    in->nslots = n;
    return 0;
}

/* Takes id's slot out of the table, moving later slots of the same probe
 * run back so that every remaining string is still found (linear probing
 * without tombstones). */
static void unlink_slot(ms_interner *in, uint32_t id, uint32_t h) {
    uint32_t mask = in->nslots - 1, i = h & mask;
    while (slot_id(in->slots[i]) != id) i = (i + 1) & mask;
    for (uint32_t j = (i + 1) & mask; in->slots[j]; j = (j + 1) & mask) {
        uint32_t home = (uint32_t)(in->slots[j] >> 32) & mask;
        /* j's string may move to i only if i lies between its home and j */
        bool movable = i <= j ? (home <= i || home > j) : (home <= i && home > j);
        if (movable) {
            in->slots[i] = in->slots[j];
            i = j;
        }
    }
    in->slots[i] = 0;
}

/* An id for a new entry: the oldest released one once enough wait, else
 * the next never used; MS_STR_NONE when ids run out. Caller holds the lock. */
static uint32_t take_id(ms_interner *in) {
    if (in->nfree > REUSE_AFTER) {
        uint32_t id = in->free_head;
        intern_entry *e = entry_at(in, id);
        in->free_head = e->next_free;
        in->nfree--;
        if (e->owned) free((char *)text_of(e));
        return id;
    }
    uint32_t id = atomic_load_explicit(&in->count, memory_order_relaxed);
    uint32_t c = id >> CHUNK_BITS;
    if (c >= MAX_CHUNKS) return MS_STR_NONE;
    if (!in->chunks[c] && !(in->chunks[c] = calloc(CHUNK_SIZE, sizeof(intern_entry)))) return MS_STR_NONE;
    return id;
}

/* A new entry with refs references; caller holds the lock. */
static ms_str append(ms_interner *in, const char *s, size_t len, uint32_t h, uint32_t refs) {
    char *copy;
    if (refs == PINNED) {
        copy = ms_arena_strndup(&in->text, s, len);
    } else if ((copy = malloc(len + 1))) {
        memcpy(copy, s, len);
        copy[len] = '\0';
    }
    if (!copy) return MS_STR_NONE;
    uint32_t id = take_id(in);
    if (id == MS_STR_NONE) {
        if (refs != PINNED) free(copy);
        return MS_STR_NONE;
    }
    intern_entry *e = entry_at(in, id);
    e->len = (uint32_t)len;
    e->hash = h;
    e->refs = refs;
    e->owned = refs != PINNED;
    atomic_store_explicit(&e->s, copy, memory_order_release);
    if (id == atomic_load_explicit(&in->count, memory_order_relaxed))
        atomic_store_explicit(&in->count, id + 1, memory_order_release);
    in->live++;
    return id;
}

ms_interner *ms_interner_new(void) {
    ms_interner *in = calloc(1, sizeof *in);
    if (!in) return NULL;
    in->chunks = calloc(MAX_CHUNKS, sizeof *in->chunks);
    in->nslots = 1024;
    in->slots = calloc(in->nslots, sizeof *in->slots);
    if (!in->chunks || !in->slots) {
        free(in->chunks);
        free(in->slots);
        free(in);
        return NULL;
    }
    pthread_mutex_init(&in->lock, NULL);
    ms_arena_init(&in->text, 16384);
    in->count = 1;   /* id 0: absent */
    if (ms_intern(in, "", 0) != MS_STR_EMPTY) {
        ms_interner_free(in);
        return NULL;
    }
    return in;
}

void ms_interner_free(ms_interner *in) {
    if (!in) return;
    uint32_t count = atomic_load_explicit(&in->count, memory_order_relaxed);
    for (uint32_t id = 1; id < count; id++)
        if (entry_at(in, id)->owned) free((char *)text_of(entry_at(in, id)));
    for (uint32_t c = 0; c < MAX_CHUNKS && in->chunks[c]; c++) free(in->chunks[c]);
    free(in->chunks);
    free(in->slots);
    ms_arena_free(&in->text);
    pthread_mutex_destroy(&in->lock);
    free(in);
}

/* Finds or adds s; refs is PINNED (for good) or 1 (one counted reference). */
static ms_str intern(ms_interner *in, const char *s, size_t len, uint32_t refs) {
    if (len > UINT32_MAX - 1) return MS_STR_NONE;
    uint32_t h = hash32(s, len);
    pthread_mutex_lock(&in->lock);
    /* Keep the load under 3/4 so probing stays short and always ends. */
    if ((uint64_t)in->live * 4 > (uint64_t)in->nslots * 3 && rehash(in) != 0 &&
        (uint64_t)in->live * 8 > (uint64_t)in->nslots * 7) {
        pthread_mutex_unlock(&in->lock);
        return MS_STR_NONE;
    }
    uint32_t slot = find_slot(in, s, len, h);
    ms_str id = slot_id(in->slots[slot]);
    if (id == 0) {
        id = append(in, s, len, h, refs);
        if (id != MS_STR_NONE) in->slots[slot] = make_slot(h, id);
    } else {
        intern_entry *e = entry_at(in, id);
        if (refs == PINNED) e->refs = PINNED;
        else if (e->refs != PINNED) e->refs++;
    }
    pthread_mutex_unlock(&in->lock);
    return id;
}

ms_str ms_intern(ms_interner *in, const char *s, size_t len) {
    return intern(in, s, len, PINNED);
}

ms_str ms_intern_cstr(ms_interner *in, const char *s) {
    return ms_intern(in, s, strlen(s));
}

ms_str ms_intern_counted(ms_interner *in, const char *s, size_t len) {
    return intern(in, s, len, 1);
}

void ms_str_retain(ms_interner *in, ms_str id) {
    if (id == MS_STR_NONE) return;
    pthread_mutex_lock(&in->lock);
    intern_entry *e = entry_at(in, id);
    if (e->refs != PINNED && e->refs != 0) e->refs++;
    pthread_mutex_unlock(&in->lock);
}

void ms_str_release(ms_interner *in, ms_str id) {
    if (id == MS_STR_NONE) return;
    pthread_mutex_lock(&in->lock);
    intern_entry *e = entry_at(in, id);
    if (e->refs != PINNED && e->refs != 0 && --e->refs == 0) {
        unlink_slot(in, id, e->hash);
        in->live--;
        e->next_free = 0;
        if (in->nfree++) entry_at(in, in->free_tail)->next_free = id;
        else in->free_head = id;
        in->free_tail = id;
    }
    pthread_mutex_unlock(&in->lock);
}

ms_str ms_intern_find(ms_interner *in, const char *s, size_t len) {
    uint32_t h = hash32(s, len);
    pthread_mutex_lock(&in->lock);
    ms_str id = slot_id(in->slots[find_slot(in, s, len, h)]);
    pthread_mutex_unlock(&in->lock);
    return id;
}

const char *ms_str_get(const ms_interner *in, ms_str id) {
    if (id == MS_STR_NONE || id >= atomic_load_explicit(&in->count, memory_order_acquire)) return "";
    return text_of(entry_at(in, id));
}

size_t ms_str_len(const ms_interner *in, ms_str id) {
    if (id == MS_STR_NONE || id >= atomic_load_explicit(&in->count, memory_order_acquire)) return 0;
    return entry_at(in, id)->len;
}

uint32_t ms_interner_count(const ms_interner *in) {
    return atomic_load_explicit(&in->count, memory_order_acquire) - 1;
}

uint32_t ms_interner_live(ms_interner *in) {
    pthread_mutex_lock(&in->lock);
    uint32_t n = in->live;
    pthread_mutex_unlock(&in->lock);
    return n;
}
