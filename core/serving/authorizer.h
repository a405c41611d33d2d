/* Delegated authorization of the HTTPS endpoint, as kube-scheduler's
 * (k8s.io/apiserver's DelegatingAuthorizationOptions): paths that are
 * always allowed (/healthz, /livez, /readyz; a trailing '*' matches a
 * prefix, as upstream's path authorizer), else a SubjectAccessReview
 * (authorization.k8s.io/v1) for the non-resource verb (the request's
 * method in lower case) on the path, asked of the API server. Answers
 * are cached (allowed 10 s, denied 10 s, keyed by the review's spec as
 * upstream keys its cache); a review that fails is not cached.
 *
 * Thread-safe; a review blocks the calling thread for at most `timeout`. */
#ifndef MOONSCHED_SERVING_AUTHORIZER_H
#define MOONSCHED_SERVING_AUTHORIZER_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "base/rate_limiter.h"
#include "client/kube_client.h"
#include "moonsched/error.h"
#include "moonsched/log.h"

typedef struct ms_authorizer ms_authorizer;

typedef struct ms_authorizer_options {
    ms_kube_client *client;        /* the API server that reviews access; borrowed */
    /* Allowed without a review (copied); NULL: MS_ALWAYS_ALLOW_PATHS. */
    const char *const *always_allow_paths;
    uint32_t nalways_allow_paths;
    double allow_ttl, deny_ttl;    /* seconds; 0: 10 each */
    uint32_t cache_size;           /* answers remembered; 0: 8192, as upstream */
    double timeout;                /* per review, seconds; 0: 10 */
    ms_kube_cancel *cancel;        /* fired at shutdown; may be NULL */
    ms_clock_fn clock;             /* for the cache; NULL: monotonic */
    void *clock_ctx;
    const ms_logger *log;          /* NULL: ms_log_default */
} ms_authorizer_options;

#define MS_ALWAYS_ALLOW_PATHS {"/healthz", "/livez", "/readyz"}

typedef enum ms_authz_decision {
    MS_AUTHZ_ALLOW = 0,
    MS_AUTHZ_DENY,                 /* 403 */
    MS_AUTHZ_ERROR,                /* the review failed: 500 */
} ms_authz_decision;

ms_rc ms_authorizer_new(const ms_authorizer_options *o, ms_authorizer **out, ms_error *err);
void ms_authorizer_free(ms_authorizer *a);

/* May `user` (an authenticator's user object) do `verb` on `path`? On
 * MS_AUTHZ_DENY, reason is the review's status.reason (often empty); on
 * MS_AUTHZ_ERROR, why the review failed. */
ms_authz_decision ms_authorizer_authorize(ms_authorizer *a, const cJSON *user, const char *verb,
                                          const char *path, char *reason, size_t n);
/* SubjectAccessReviews sent (for tests and logs). */
uint64_t ms_authorizer_reviews(ms_authorizer *a);

#endif
