/* A bounded cache whose entries expire: byte-string keys, byte-string
 * values (copied in and out), each with its own time to live, as
 * k8s.io/apimachinery's LRUExpireCache serves the delegated
 * authenticator's and authorizer's answers. When full, a new entry takes
 * the place of an expired one, else of the one closest to expiring.
 *
 * Thread-safe: one mutex, held for a lookup or an insert (the HTTPS
 * server's connection threads share one cache). */
#ifndef MOONSCHED_BASE_EXPIRING_CACHE_H
#define MOONSCHED_BASE_EXPIRING_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ms_expiring_cache ms_expiring_cache;

/* capacity: entries at most (>= 1). NULL when out of memory. */
ms_expiring_cache *ms_expiring_cache_new(uint32_t capacity);
void ms_expiring_cache_free(ms_expiring_cache *c);

/* Stores a copy of value under key until now + ttl (seconds, the
 * caller's clock), replacing what the key held. false: out of memory. */
bool ms_expiring_cache_put(ms_expiring_cache *c, const void *key, size_t klen, const void *value, size_t vlen,
                           double now, double ttl);
/* A malloc'd, NUL-terminated copy of the value and its length, or NULL
 * when absent, expired at `now`, or out of memory. */
char *ms_expiring_cache_get(ms_expiring_cache *c, const void *key, size_t klen, double now, size_t *vlen);
/* Entries held, expired ones included until replaced. */
uint32_t ms_expiring_cache_len(ms_expiring_cache *c);

#endif
