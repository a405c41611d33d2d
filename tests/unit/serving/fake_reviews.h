/* A fake API server that answers TokenReviews and SubjectAccessReviews
 * (for the authenticator, authorizer and secure serving tests).
 * Tokens: "good" (alice, groups devs, uid and extra), "sa" (a service
 * account already in system:authenticated), "nomsg" (not authenticated,
 * no error), "bad" (not authenticated: "invalid bearer token"), "boom"
 * (HTTP 500). Access: alice may get /metrics (verb get); /reason is denied with a
 * reason; /err answers 500; /both says allowed and denied; anything else
 * is denied. no_v1: authentication.k8s.io/v1 answers 404. */
#ifndef MOONSCHED_TEST_FAKE_REVIEWS_H
#define MOONSCHED_TEST_FAKE_REVIEWS_H

#include <cjson/cJSON.h>
#include <stdatomic.h>

#include "fake_http.h"
#include "client/kube_client.h"

typedef struct fake_reviews {
    atomic_bool no_v1;
    atomic_int token_reviews, access_reviews;
} fake_reviews;

static FH_UNUSED bool fr_token(int fd, const cJSON *spec) {
    const cJSON *t = cJSON_GetObjectItem(spec, "token");
    const char *tok = cJSON_IsString(t) ? t->valuestring : "";
    if (strcmp(tok, "good") == 0)
        return fh_reply(fd, 201, NULL,
                        "{\"kind\":\"TokenReview\",\"status\":{\"authenticated\":true,\"user\":{\"username\":"
                        "\"alice\",\"uid\":\"u-1\",\"groups\":[\"devs\"],\"extra\":{\"scopes\":[\"a\"]}}}}");
    if (strcmp(tok, "sa") == 0)
        return fh_reply(fd, 201, NULL,
                        "{\"kind\":\"TokenReview\",\"status\":{\"authenticated\":true,\"user\":{\"username\":"
                        "\"system:serviceaccount:ns:sa\",\"groups\":[\"system:serviceaccounts\","
                        "\"system:authenticated\"]}}}");
    if (strcmp(tok, "nomsg") == 0)
        return fh_reply(fd, 201, NULL, "{\"kind\":\"TokenReview\",\"status\":{\"user\":{}}}");
    if (strcmp(tok, "boom") == 0) return fh_reply(fd, 500, NULL, "{\"kind\":\"Status\",\"message\":\"etcd down\"}");
    return fh_reply(fd, 201, NULL,
                    "{\"kind\":\"TokenReview\",\"status\":{\"user\":{},\"error\":\"invalid bearer token\"}}");
}

static FH_UNUSED bool fr_access(int fd, const cJSON *spec) {
    const cJSON *na = cJSON_GetObjectItem(spec, "nonResourceAttributes");
    const cJSON *p = cJSON_GetObjectItem(na, "path"), *u = cJSON_GetObjectItem(spec, "user");
    const cJSON *v = cJSON_GetObjectItem(na, "verb");
    const char *path = cJSON_IsString(p) ? p->valuestring : "", *user = cJSON_IsString(u) ? u->valuestring : "";
    if (strcmp(path, "/err") == 0) return fh_reply(fd, 500, NULL, "{\"kind\":\"Status\",\"message\":\"no etcd\"}");
    if (strcmp(path, "/both") == 0)
        return fh_reply(fd, 201, NULL, "{\"status\":{\"allowed\":true,\"denied\":true}}");
    if (strcmp(path, "/reason") == 0)
        return fh_reply(fd, 201, NULL, "{\"status\":{\"allowed\":false,\"reason\":\"no way\"}}");
    if (strcmp(user, "alice") == 0 && strcmp(path, "/metrics") == 0 && cJSON_IsString(v) &&
        strcmp(v->valuestring, "get") == 0)
        return fh_reply(fd, 201, NULL, "{\"status\":{\"allowed\":true}}");
    return fh_reply(fd, 201, NULL, "{\"status\":{\"allowed\":false}}");
}

static FH_UNUSED bool fr_handler(fake_http *srv, int fd, const fh_request *req, void *ctx) {
    (void)srv;
    fake_reviews *f = ctx;
    cJSON *body = cJSON_Parse(req->body ? req->body : "");
    const cJSON *spec = cJSON_GetObjectItem(body, "spec");
    bool ok;
    if (strstr(req->path, "/tokenreviews")) {
        atomic_fetch_add(&f->token_reviews, 1);
        ok = atomic_load(&f->no_v1) && strstr(req->path, "/v1/") ? fh_reply(fd, 404, NULL, "{}")
                                                                 : fr_token(fd, spec);
    } else if (strstr(req->path, "/subjectaccessreviews")) {
        atomic_fetch_add(&f->access_reviews, 1);
        ok = fr_access(fd, spec);
    } else {
        ok = fh_reply(fd, 404, NULL, "{}");
    }
    cJSON_Delete(body);
    return ok;
}

/* The fake server and a client of it. */
static FH_UNUSED fake_http *fr_start(fake_reviews *f, ms_kubeconfig *kc, ms_kube_client **c) {
    static const ms_logger quiet = {.level = -1};
    fake_http *srv = fh_start(fr_handler, f);
    kc->server = strdup(srv->url);
    ms_kube_client_options co = {.config = kc, .max_retries = -1, .log = &quiet};
    ms_error err = {0};
    if (ms_kube_client_new(&co, c, &err) != MS_OK) fail_msg("client: %s", err.msg);
    return srv;
}

static FH_UNUSED void fr_stop(fake_http *srv, ms_kubeconfig *kc, ms_kube_client *c) {
    ms_kube_client_free(c);
    fh_stop(srv);
    ms_kubeconfig_free(kc);
}

#endif
