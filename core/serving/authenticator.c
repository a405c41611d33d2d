/* Delegated authentication: bearer tokens reviewed by the API server,
 * answers cached. See serving/authenticator.h. */
#include "serving/authenticator.h"

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "codec/json_reader.h"
#include "moonsched/decode.h"
#include "serving/cached_review.h"

struct ms_authenticator {
    ms_cached_review rv;           /* keyed by the token's HMAC; "" for not authenticated */
    double ttl;
    const ms_logger *log;
    uint8_t key[32];               /* HMAC key of the cache's keys */
    atomic_bool v1beta1;           /* authentication.k8s.io/v1 answered 404 */
};

ms_rc ms_authenticator_new(const ms_authenticator_options *o, ms_authenticator **out, ms_error *err) {
    *out = NULL;
    ms_authenticator *a = calloc(1, sizeof *a);
    if (!a) return ms_error_set(err, MS_ENOMEM, "out of memory");
    a->ttl = o->cache_ttl == 0 ? 10 : o->cache_ttl;
    a->log = o->log ? o->log : &ms_log_default;
    if (ms_cached_review_init(&a->rv, o->client, o->cache_size ? o->cache_size : 4096, o->timeout, o->cancel,
                              o->clock, o->clock_ctx) != MS_OK) {
        free(a);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    if (gnutls_rnd(GNUTLS_RND_KEY, a->key, sizeof a->key) != 0) {
        ms_authenticator_free(a);
        return ms_error_set(err, MS_EIO, "cannot draw a random key");
    }
    *out = a;
    return MS_OK;
}

void ms_authenticator_free(ms_authenticator *a) {
    if (!a) return;
    ms_cached_review_destroy(&a->rv);
    free(a);
}

uint64_t ms_authenticator_reviews(ms_authenticator *a) { return ms_cached_review_count(&a->rv); }

/* The token of "Bearer TOKEN" (upstream's bearertoken authenticator: the
 * header trimmed, split on spaces, the scheme in any case); NULL when
 * there is none, or it is empty. */
static const char *bearer_token(const char *h, size_t *len) {
    if (!h) return NULL;
    while (*h == ' ' || *h == '\t') h++;
    const char *sp = strchr(h, ' ');
    if (!sp || (size_t)(sp - h) != 6 || strncasecmp(h, "bearer", 6) != 0) return NULL;
    const char *t = sp + 1;
    size_t n = strcspn(t, " \t\r\n");
    *len = n;
    return n ? t : NULL;
}

static cJSON *anonymous(void) {
    cJSON *u = cJSON_CreateObject();
    cJSON *g = u ? cJSON_AddArrayToObject(u, "groups") : NULL;
    if (!g || !cJSON_AddStringToObject(u, "username", MS_USER_ANONYMOUS)) {
        cJSON_Delete(u);
        return NULL;
    }
    cJSON_AddItemToArray(g, cJSON_CreateString(MS_GROUP_UNAUTHENTICATED));
    return u;
}

void ms_authenticated_group_add(cJSON *user) {
    cJSON *g = cJSON_GetObjectItemCaseSensitive(user, "groups");
    if (!cJSON_IsArray(g)) {
        cJSON_DeleteItemFromObjectCaseSensitive(user, "groups");
        g = cJSON_AddArrayToObject(user, "groups");
        if (!g) return;
    }
    const cJSON *it;
    cJSON_ArrayForEach(it, g) {
        if (cJSON_IsString(it) && (strcmp(it->valuestring, MS_GROUP_AUTHENTICATED) == 0 ||
                                   strcmp(it->valuestring, MS_GROUP_UNAUTHENTICATED) == 0))
            return;
    }
    cJSON_AddItemToArray(g, cJSON_CreateString(MS_GROUP_AUTHENTICATED));
}

static char *review_body(const char *token, size_t len, bool beta) {
    cJSON *r = cJSON_CreateObject(), *spec;
    char *t = strndup(token, len), *s = NULL;
    if (r && t && cJSON_AddStringToObject(r, "kind", "TokenReview") &&
        cJSON_AddStringToObject(r, "apiVersion",
                                beta ? "authentication.k8s.io/v1beta1" : "authentication.k8s.io/v1") &&
        (spec = cJSON_AddObjectToObject(r, "spec")) && cJSON_AddStringToObject(spec, "token", t))
        s = cJSON_PrintUnformatted(r);
    free(t);
    cJSON_Delete(r);
    return s;
}

/* POSTs the review, on v1beta1 once v1 is not served (decided once, as
 * the PDB informer decides its version). */
static ms_rc post_review(ms_authenticator *a, const char *token, size_t len, ms_kube_response *resp,
                         ms_error *err) {
    for (;;) {
        bool beta = atomic_load(&a->v1beta1);
        char *body = review_body(token, len, beta);
        if (!body) return ms_error_set(err, MS_ENOMEM, "out of memory");
        ms_rc rc = ms_cached_review_post(&a->rv,
                                         beta ? "/apis/authentication.k8s.io/v1beta1/tokenreviews?timeout=10s"
                                              : "/apis/authentication.k8s.io/v1/tokenreviews?timeout=10s",
                                         body, strlen(body), resp, err);
        free(body);
        if (rc != MS_OK || resp->status != 404 || beta) return rc;
        ms_log(a->log, MS_LOG_INFO, "resource not served (404); trying the other version", "resource",
               "/apis/authentication.k8s.io/v1/tokenreviews", "next",
               "/apis/authentication.k8s.io/v1beta1/tokenreviews", NULL);
        atomic_store(&a->v1beta1, true);
        ms_kube_response_free(resp);
    }
}

/* The answer's status: authenticated (with its user, *user) or not
 * (*user NULL). MS_EINVAL for an answer that is not a TokenReview, or a
 * status with an error (upstream's webhook returns it as an error). */
static ms_rc read_status(const ms_kube_response *resp, cJSON **user, ms_error *err) {
    *user = NULL;
    cJSON *root = NULL;
    ms_rc rc = ms_json_parse(resp->body ? resp->body : "", resp->len, &root, err);
    if (rc != MS_OK) {
        ms_error_prefix(err, "TokenReview answer");
        return MS_EINVAL;
    }
    ms_json_reader r;
    ms_json_reader_init(&r, &ms_json_object_wording, err);
    r.subject = "TokenReview";
    const cJSON *st = ms_json_get(root, "status"), *u = NULL;
    const char *error = NULL;
    bool ok = false;
    size_t at = ms_json_push(&r, "status");
    if ((rc = ms_json_expect(&r, NULL, st, MS_JSON_OBJECT)) == MS_OK &&
        (rc = ms_json_bool(&r, "authenticated", ms_json_get(st, "authenticated"), &ok)) == MS_OK &&
        (rc = ms_json_string(&r, "error", ms_json_get(st, "error"), &error)) == MS_OK)
        rc = ms_json_expect(&r, "user", u = ms_json_get(st, "user"), MS_JSON_OBJECT);
    ms_json_pop(&r, at);
    if (rc == MS_OK && ok && u) {
        *user = cJSON_Duplicate(u, true);
        if (!*user) rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    } else if (rc == MS_OK && error && *error) {
        rc = ms_error_set(err, MS_EINVAL, "%s", error);
    }
    cJSON_Delete(root);
    return rc;
}

/* A review: MS_OK with *user NULL for a token the server does not
 * authenticate without saying why (cached as such). */
static ms_rc review(ms_authenticator *a, const char *token, size_t len, cJSON **user, ms_error *err) {
    ms_kube_response resp;
    ms_rc rc = post_review(a, token, len, &resp, err);
    if (rc == MS_OK) rc = ms_cached_review_status("TokenReview", &resp, err);
    if (rc == MS_OK) rc = read_status(&resp, user, err);
    ms_kube_response_free(&resp);
    return rc;
}

/* The cache's key of a token: its HMAC. */
static bool cache_key(const ms_authenticator *a, const char *token, size_t len, uint8_t key[32]) {
    return gnutls_hmac_fast(GNUTLS_MAC_SHA256, a->key, sizeof a->key, token, len, key) == 0;
}

bool ms_authenticator_has_bearer(const char *authorization) {
    size_t len;
    return bearer_token(authorization, &len) != NULL;
}

bool ms_authenticator_answer_cached(ms_authenticator *a, const char *authorization) {
    size_t len = 0, vlen = 0;
    const char *token = bearer_token(authorization, &len);
    uint8_t key[32];
    if (!token || !cache_key(a, token, len, key)) return false;
    char *cached = ms_cached_review_get(&a->rv, key, sizeof key, ms_cached_review_now(&a->rv), &vlen);
    free(cached);
    return cached != NULL;
}

ms_rc ms_authenticator_authenticate(ms_authenticator *a, const char *authorization, cJSON **user,
                                    ms_error *err) {
    *user = NULL;
    size_t len = 0;
    const char *token = bearer_token(authorization, &len);
    if (!token) {
        *user = anonymous();
        return *user ? MS_OK : ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    uint8_t key[32];
    if (!cache_key(a, token, len, key)) return ms_error_set(err, MS_EIO, "cannot hash the token");
    size_t vlen = 0;
    double now = ms_cached_review_now(&a->rv);
    char *cached = ms_cached_review_get(&a->rv, key, sizeof key, now, &vlen);
    ms_rc rc = MS_OK;
    if (cached) {
        /* "" is a token the server did not authenticate */
        if (vlen) *user = cJSON_Parse(cached);
        if (vlen && !*user) rc = ms_error_set(err, MS_ENOMEM, "out of memory");
        free(cached);
    } else {
        rc = review(a, token, len, user, err);
        if (rc == MS_OK) {
            char *text = *user ? cJSON_PrintUnformatted(*user) : NULL;
            if (a->ttl > 0 && (!*user || text)) ms_cached_review_put(&a->rv, key, sizeof key, text ? text : "",
                                                                   text ? strlen(text) : 0, now, a->ttl);
            free(text);
        }
    }
    if (rc == MS_OK && !*user) rc = ms_error_set(err, MS_EINVAL, "token not authenticated");
    if (rc != MS_OK) {
        cJSON_Delete(*user);
        *user = NULL;
        return rc;
    }
    ms_authenticated_group_add(*user);
    return MS_OK;
}
