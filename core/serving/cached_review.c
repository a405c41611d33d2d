/* The cached review. See serving/cached_review.h. */
#include "serving/cached_review.h"

ms_rc ms_cached_review_init(ms_cached_review *c, ms_kube_client *client, uint32_t cache_size, double timeout,
                            ms_kube_cancel *cancel, ms_clock_fn clock, void *clock_ctx) {
    c->cache = ms_expiring_cache_new(cache_size);
    if (!c->cache) return MS_ENOMEM;
    c->client = client;
    c->timeout = timeout > 0 ? timeout : 10;
    c->cancel = cancel;
    c->clock = clock ? clock : ms_monotonic_now;
    c->clock_ctx = clock_ctx;
    atomic_init(&c->reviews, 0);
    return MS_OK;
}

void ms_cached_review_destroy(ms_cached_review *c) {
    ms_expiring_cache_free(c->cache);
    c->cache = NULL;
}

double ms_cached_review_now(const ms_cached_review *c) { return c->clock(c->clock_ctx); }

char *ms_cached_review_get(ms_cached_review *c, const void *key, size_t klen, double now, size_t *vlen) {
    return ms_expiring_cache_get(c->cache, key, klen, now, vlen);
}

void ms_cached_review_put(ms_cached_review *c, const void *key, size_t klen, const void *value, size_t vlen,
                          double now, double ttl) {
    ms_expiring_cache_put(c->cache, key, klen, value, vlen, now, ttl);
}

ms_rc ms_cached_review_post(ms_cached_review *c, const char *path, const char *body, size_t len,
                            ms_kube_response *resp, ms_error *err) {
    ms_kube_request rq = {.method = "POST", .path = path, .body = body, .body_len = len,
                          .timeout = c->timeout, .cancel = c->cancel};
    atomic_fetch_add(&c->reviews, 1);
    return ms_kube_do(c->client, &rq, resp, err);
}

ms_rc ms_cached_review_status(const char *kind, const ms_kube_response *resp, ms_error *err) {
    if (resp->status == 200 || resp->status == 201) return MS_OK;
    char msg[256];
    ms_kube_status_message(resp, msg, sizeof msg);
    return ms_error_set(err, MS_EIO, "%s: HTTP %ld: %s", kind, resp->status, msg);
}

uint64_t ms_cached_review_count(ms_cached_review *c) { return atomic_load(&c->reviews); }
