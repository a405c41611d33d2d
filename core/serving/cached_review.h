/* What the delegated authenticator and authorizer share: a review object
 * POSTed to the API server (TokenReview, SubjectAccessReview), its answers
 * remembered for a while in an expiring cache, and a count of the reviews
 * sent (the tests and the metrics read it). The caller owns the meaning of
 * keys and values and decides what is cached and for how long.
 *
 * Thread-safe, as both callers are: the HTTPS connection threads share one. */
#ifndef MOONSCHED_CACHED_REVIEW_H
#define MOONSCHED_CACHED_REVIEW_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "base/clock.h"
#include "base/expiring_cache.h"
#include "client/kube_client.h"
#include "moonsched/error.h"

typedef struct ms_cached_review {
    ms_kube_client *client;        /* borrowed */
    ms_expiring_cache *cache;
    double timeout;                /* per review, seconds */
    ms_kube_cancel *cancel;        /* may be NULL */
    ms_clock_fn clock;
    void *clock_ctx;
    atomic_uint_fast64_t reviews;
} ms_cached_review;

/* timeout 0: 10 s; clock NULL: monotonic. MS_ENOMEM when the cache cannot
 * be made (nothing is then held). */
ms_rc ms_cached_review_init(ms_cached_review *c, ms_kube_client *client, uint32_t cache_size, double timeout,
                            ms_kube_cancel *cancel, ms_clock_fn clock, void *clock_ctx);
void ms_cached_review_destroy(ms_cached_review *c);

double ms_cached_review_now(const ms_cached_review *c);
/* The cached answer (the caller frees it), or NULL. */
char *ms_cached_review_get(ms_cached_review *c, const void *key, size_t klen, double now, size_t *vlen);
void ms_cached_review_put(ms_cached_review *c, const void *key, size_t klen, const void *value, size_t vlen,
                          double now, double ttl);

/* POSTs body to path and counts the review. MS_OK with *resp whatever its
 * status (the caller frees it); otherwise the client's error. */
ms_rc ms_cached_review_post(ms_cached_review *c, const char *path, const char *body, size_t len,
                            ms_kube_response *resp, ms_error *err);
/* MS_OK for a 200 or 201; otherwise MS_EIO, "KIND: HTTP STATUS: message". */
ms_rc ms_cached_review_status(const char *kind, const ms_kube_response *resp, ms_error *err);

uint64_t ms_cached_review_count(ms_cached_review *c);

#endif
