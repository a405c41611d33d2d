/* Failed authentications per source, in fixed windows. See
 * serving/auth_failures.h. */
#include "serving/auth_failures.h"

#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/expiring_cache.h"

struct ms_auth_failures {
    pthread_mutex_t mu;            /* a lookup and its update together */
    ms_expiring_cache *cache;      /* source -> window */
    uint32_t max;
    double window;
};

typedef struct window {
    double start;
    uint32_t failures;
} window;

ms_auth_failures *ms_auth_failures_new(uint32_t max, double window_s, uint32_t sources) {
    ms_auth_failures *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    f->cache = ms_expiring_cache_new(sources ? sources : 1024);
    if (!f->cache) {
        free(f);
        return NULL;
    }
    pthread_mutex_init(&f->mu, NULL);
    f->max = max ? max : MS_AUTH_FAILURES_MAX;
    f->window = window_s > 0 ? window_s : MS_AUTH_FAILURES_WINDOW;
    return f;
}

void ms_auth_failures_free(ms_auth_failures *f) {
    if (!f) return;
    ms_expiring_cache_free(f->cache);
    pthread_mutex_destroy(&f->mu);
    free(f);
}

/* The source's key: 4 bytes of IPv4, 8 of IPv6 (its /64); 0 for others. */
static size_t source_key(const struct sockaddr *peer, unsigned char key[8]) {
    if (!peer) return 0;
    if (peer->sa_family == AF_INET) {
        memcpy(key, &((const struct sockaddr_in *)(const void *)peer)->sin_addr, 4);
        return 4;
    }
    if (peer->sa_family != AF_INET6) return 0;
    const struct in6_addr *a = &((const struct sockaddr_in6 *)(const void *)peer)->sin6_addr;
    if (IN6_IS_ADDR_V4MAPPED(a)) {
        memcpy(key, a->s6_addr + 12, 4);
        return 4;
    }
    memcpy(key, a->s6_addr, 8);
    return 8;
}

/* The source's window, or false when it has none at `now`. */
static bool get_window(ms_auth_failures *f, const unsigned char *key, size_t klen, double now, window *w) {
    size_t vlen = 0;
    char *v = ms_expiring_cache_get(f->cache, key, klen, now, &vlen);
    bool have = v && vlen == sizeof *w;
    if (have) memcpy(w, v, sizeof *w);
    free(v);
    return have;
}

bool ms_auth_failures_allowed(ms_auth_failures *f, const struct sockaddr *peer, double now) {
    unsigned char key[8];
    size_t klen = source_key(peer, key);
    if (!klen) return true;
    window w;
    pthread_mutex_lock(&f->mu);
    bool allowed = !get_window(f, key, klen, now, &w) || w.failures < f->max;
    pthread_mutex_unlock(&f->mu);
    return allowed;
}

void ms_auth_failures_add(ms_auth_failures *f, const struct sockaddr *peer, double now) {
    unsigned char key[8];
    size_t klen = source_key(peer, key);
    if (!klen) return;
    window w;
    pthread_mutex_lock(&f->mu);
    if (get_window(f, key, klen, now, &w)) w.failures++;
    else w = (window){.start = now, .failures = 1};
    /* (out of memory: the failure goes uncounted) */
    ms_expiring_cache_put(f->cache, key, klen, &w, sizeof w, now, w.start + f->window - now);
    pthread_mutex_unlock(&f->mu);
}
