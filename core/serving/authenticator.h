/* Delegated authentication of the HTTPS endpoint, as kube-scheduler's
 * (k8s.io/apiserver's DelegatingAuthenticationOptions with its
 * defaults): a bearer token is reviewed by the API server (TokenReview,
 * authentication.k8s.io/v1; v1beta1 for good once v1 answers 404), and
 * the answer is cached for cache_ttl (10 s, --authentication-token-
 * webhook-cache-ttl), authenticated or not. A
 * review that fails (no answer, an HTTP error, a timeout) or whose
 * status carries an error ("invalid bearer token") is not cached:
 * upstream's webhook returns those as errors, and errors are not cached.
 * A request without a bearer token is anonymous: system:anonymous in the
 * group system:unauthenticated. A user from a token gets the group
 * system:authenticated unless it has it or system:unauthenticated
 * (upstream's AuthenticatedGroupAdder).
 *
 * Tokens are not kept: the cache is keyed by an HMAC-SHA256 of the token
 * under a key drawn at start (upstream keys its cache the same way).
 *
 * Thread-safe: the HTTPS server's connection threads call it at once; a
 * review blocks the calling thread for at most `timeout`. */
#ifndef MOONSCHED_SERVING_AUTHENTICATOR_H
#define MOONSCHED_SERVING_AUTHENTICATOR_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/rate_limiter.h"
#include "client/kube_client.h"
#include "moonsched/error.h"
#include "moonsched/log.h"

typedef struct ms_authenticator ms_authenticator;

typedef struct ms_authenticator_options {
    ms_kube_client *client;        /* the API server that reviews tokens; borrowed */
    double cache_ttl;              /* seconds; 0: 10; negative: nothing cached */
    uint32_t cache_size;           /* tokens remembered; 0: 4096 */
    double timeout;                /* per review, seconds; 0: 10 */
    ms_kube_cancel *cancel;        /* fired at shutdown: reviews end at once; may be NULL */
    ms_clock_fn clock;             /* for the cache; NULL: monotonic */
    void *clock_ctx;
    const ms_logger *log;          /* NULL: ms_log_default */
} ms_authenticator_options;

ms_rc ms_authenticator_new(const ms_authenticator_options *o, ms_authenticator **out, ms_error *err);
void ms_authenticator_free(ms_authenticator *a);

/* The user behind a request's Authorization header (NULL: none). MS_OK
 * with *user, a TokenReview status.user object ("username", "uid",
 * "groups", "extra"; the caller frees it with cJSON_Delete): anonymous
 * without a bearer token. Otherwise the request is unauthorized (401):
 * MS_EINVAL when the server says the token is not valid, MS_EIO when it
 * could not be asked, MS_ESTATE when cancelled, MS_ENOMEM; err says why. */
ms_rc ms_authenticator_authenticate(ms_authenticator *a, const char *authorization, cJSON **user,
                                    ms_error *err);
/* Whether the header has a bearer token (else the request is anonymous). */
bool ms_authenticator_has_bearer(const char *authorization);
/* Whether the header has a bearer token whose answer is cached: no
 * review would be sent for it now. */
bool ms_authenticator_answer_cached(ms_authenticator *a, const char *authorization);
/* upstream's AuthenticatedGroupAdder: system:authenticated added to the
 * user's groups unless it is there or system:unauthenticated is. */
void ms_authenticated_group_add(cJSON *user);
/* TokenReviews sent (for tests and logs). */
uint64_t ms_authenticator_reviews(ms_authenticator *a);

#define MS_USER_ANONYMOUS "system:anonymous"
#define MS_GROUP_UNAUTHENTICATED "system:unauthenticated"
#define MS_GROUP_AUTHENTICATED "system:authenticated"

#endif
