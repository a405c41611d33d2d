/* Delegated authorization: always-allowed paths, then SubjectAccessReviews
 * asked of the API server, answers cached. See serving/authorizer.h. */
#include "serving/authorizer.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "codec/json_reader.h"
#include "moonsched/decode.h"
#include "serving/cached_review.h"

struct ms_authorizer {
    ms_cached_review rv;           /* keyed by the review's spec; "1" or "0", then the reason */
    char **paths;
    uint32_t npaths;
    double allow_ttl, deny_ttl;
    const ms_logger *log;
};

ms_rc ms_authorizer_new(const ms_authorizer_options *o, ms_authorizer **out, ms_error *err) {
    static const char *const defaults[] = MS_ALWAYS_ALLOW_PATHS;
    *out = NULL;
    ms_authorizer *a = calloc(1, sizeof *a);
    if (!a) return ms_error_set(err, MS_ENOMEM, "out of memory");
    const char *const *paths = o->always_allow_paths ? o->always_allow_paths : defaults;
    uint32_t np = o->always_allow_paths ? o->nalways_allow_paths : sizeof defaults / sizeof defaults[0];
    a->paths = calloc(np ? np : 1, sizeof *a->paths);
    bool ok = a->paths && ms_cached_review_init(&a->rv, o->client, o->cache_size ? o->cache_size : 8192,
                                                o->timeout, o->cancel, o->clock, o->clock_ctx) == MS_OK;
    for (uint32_t i = 0; ok && i < np; i++) ok = (a->paths[a->npaths++] = strdup(paths[i])) != NULL;
    if (!ok) {
        ms_authorizer_free(a);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    a->allow_ttl = o->allow_ttl > 0 ? o->allow_ttl : 10;
    a->deny_ttl = o->deny_ttl > 0 ? o->deny_ttl : 10;
    a->log = o->log ? o->log : &ms_log_default;
    *out = a;
    return MS_OK;
}

void ms_authorizer_free(ms_authorizer *a) {
    if (!a) return;
    for (uint32_t i = 0; i < a->npaths; i++) free(a->paths[i]);
    free(a->paths);
    ms_cached_review_destroy(&a->rv);
    free(a);
}

uint64_t ms_authorizer_reviews(ms_authorizer *a) { return ms_cached_review_count(&a->rv); }

/* upstream's path authorizer: exact, or a prefix before a trailing '*' */
static bool always_allowed(const ms_authorizer *a, const char *path) {
    for (uint32_t i = 0; i < a->npaths; i++) {
        const char *p = a->paths[i];
        size_t n = strlen(p);
        if (n && p[n - 1] == '*' ? strncmp(path, p, n - 1) == 0 : strcmp(path, p) == 0) return true;
    }
    return false;
}

/* The review's spec, as upstream's webhook fills it from the user. */
static cJSON *review_spec(const cJSON *user, const char *verb, const char *path) {
    cJSON *spec = cJSON_CreateObject(), *na;
    if (!spec || !(na = cJSON_AddObjectToObject(spec, "nonResourceAttributes")) ||
        !cJSON_AddStringToObject(na, "path", path) || !cJSON_AddStringToObject(na, "verb", verb)) {
        cJSON_Delete(spec);
        return NULL;
    }
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(user, "username");
    const cJSON *groups = cJSON_GetObjectItemCaseSensitive(user, "groups");
    const cJSON *extra = cJSON_GetObjectItemCaseSensitive(user, "extra");
    const cJSON *uid = cJSON_GetObjectItemCaseSensitive(user, "uid");
    if (cJSON_IsString(name) && name->valuestring[0]) cJSON_AddStringToObject(spec, "user", name->valuestring);
    if (cJSON_IsArray(groups) && cJSON_GetArraySize(groups) > 0)
        cJSON_AddItemToObject(spec, "groups", cJSON_Duplicate(groups, true));
    if (cJSON_IsObject(extra) && extra->child) cJSON_AddItemToObject(spec, "extra", cJSON_Duplicate(extra, true));
    if (cJSON_IsString(uid) && uid->valuestring[0]) cJSON_AddStringToObject(spec, "uid", uid->valuestring);
    return spec;
}

/* The answer's status into a decision (upstream's webhook authorizer). */
static ms_authz_decision read_status(const ms_kube_response *resp, char *reason, size_t n) {
    ms_error e = {0};
    cJSON *root = NULL;
    if (ms_json_parse(resp->body ? resp->body : "", resp->len, &root, &e) != MS_OK) {
        snprintf(reason, n, "SubjectAccessReview answer: %s", e.msg);
        return MS_AUTHZ_ERROR;
    }
    ms_json_reader r;
    ms_json_reader_init(&r, &ms_json_object_wording, &e);
    r.subject = "SubjectAccessReview";
    const cJSON *st = ms_json_get(root, "status");
    bool allowed = false, denied = false;
    const char *why = "";
    size_t at = ms_json_push(&r, "status");
    ms_rc rc = ms_json_expect(&r, NULL, st, MS_JSON_OBJECT);
    if (rc == MS_OK) rc = ms_json_bool(&r, "allowed", ms_json_get(st, "allowed"), &allowed);
    if (rc == MS_OK) rc = ms_json_bool(&r, "denied", ms_json_get(st, "denied"), &denied);
    if (rc == MS_OK) rc = ms_json_string(&r, "reason", ms_json_get(st, "reason"), &why);
    ms_json_pop(&r, at);
    ms_authz_decision d = MS_AUTHZ_DENY;
    if (rc != MS_OK) {
        snprintf(reason, n, "%s", e.msg);
        d = MS_AUTHZ_ERROR;
    } else if (allowed && denied) {
        snprintf(reason, n, "webhook subject access review returned both allow and deny response");
        d = MS_AUTHZ_ERROR;
    } else {
        snprintf(reason, n, "%s", why);
        d = allowed ? MS_AUTHZ_ALLOW : MS_AUTHZ_DENY;
    }
    cJSON_Delete(root);
    return d;
}

static ms_authz_decision review(ms_authorizer *a, const char *spec, char *reason, size_t n) {
    ms_buf body = {0};
    ms_buf_printf(&body, "{\"kind\":\"SubjectAccessReview\",\"apiVersion\":\"authorization.k8s.io/v1\",\"spec\":%s}",
                  spec);
    if (body.failed) {
        snprintf(reason, n, "out of memory");
        return MS_AUTHZ_ERROR;
    }
    ms_kube_response resp;
    ms_error e = {0};
    ms_rc rc = ms_cached_review_post(&a->rv, "/apis/authorization.k8s.io/v1/subjectaccessreviews?timeout=10s",
                                     body.data, body.len, &resp, &e);
    ms_buf_free(&body);
    if (rc != MS_OK) {
        snprintf(reason, n, "%s", e.msg);
        return MS_AUTHZ_ERROR;
    }
    ms_authz_decision d = MS_AUTHZ_ERROR;
    if (ms_cached_review_status("SubjectAccessReview", &resp, &e) != MS_OK) snprintf(reason, n, "%s", e.msg);
    else d = read_status(&resp, reason, n);
    ms_kube_response_free(&resp);
    return d;
}

ms_authz_decision ms_authorizer_authorize(ms_authorizer *a, const cJSON *user, const char *verb,
                                          const char *path, char *reason, size_t n) {
    if (n) reason[0] = 0;
    if (always_allowed(a, path)) return MS_AUTHZ_ALLOW;
    cJSON *j = review_spec(user, verb, path);
    char *spec = j ? cJSON_PrintUnformatted(j) : NULL;
    cJSON_Delete(j);
    if (!spec) {
        snprintf(reason, n, "out of memory");
        return MS_AUTHZ_ERROR;
    }
    double now = ms_cached_review_now(&a->rv);
    size_t vlen = 0;
    char *cached = ms_cached_review_get(&a->rv, spec, strlen(spec), now, &vlen);
    ms_authz_decision d;
    if (cached && vlen) {
        d = cached[0] == '1' ? MS_AUTHZ_ALLOW : MS_AUTHZ_DENY;
        snprintf(reason, n, "%s", cached + 1);
    } else {
        d = review(a, spec, reason, n);
        if (d != MS_AUTHZ_ERROR) {
            ms_buf v = {0};
            ms_buf_printf(&v, "%c%s", d == MS_AUTHZ_ALLOW ? '1' : '0', reason);
            if (!v.failed)
                ms_cached_review_put(&a->rv, spec, strlen(spec), v.data, v.len, now,
                                     d == MS_AUTHZ_ALLOW ? a->allow_ttl : a->deny_ttl);
            ms_buf_free(&v);
        }
    }
    free(cached);
    free(spec);
    return d;
}
