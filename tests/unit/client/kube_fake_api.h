/* A fake Kubernetes API server and a client pointed at it, shared by the
 * blocking client's and the asynchronous engine's tests. */
#ifndef MOONSCHED_TEST_KUBE_FAKE_API_H
#define MOONSCHED_TEST_KUBE_FAKE_API_H

#include "fake_http.h"
#include "client/kube_client.h"

/* Retries and token re-reads log; the tests check behaviour, not lines. */
static const ms_logger quiet = {.level = -1};

typedef struct script {
    atomic_int retry_hits, flaky_hits, post_hits, token_hits;
    int status_for_token;
} script;

static bool handler(fake_http *srv, int fd, const fh_request *r, void *ctx) {
    script *s = ctx;
    const char *p = r->path;
    if (!strcmp(p, "/api/v1/nodes")) return fh_reply(fd, 200, NULL, "{\"kind\":\"NodeList\",\"items\":[]}");
    if (!strcmp(p, "/echo")) {
        /* the body comes back, with the method, to check what was sent */
        char buf[600];
        snprintf(buf, sizeof buf, "%s %s", r->method, r->body ? r->body : "");
        return fh_reply(fd, !strcmp(r->method, "POST") ? 201 : 200, NULL, buf);
    }
    if (!strcmp(p, "/retry")) {   /* 429 with Retry-After: 0, then OK */
        if (atomic_fetch_add(&s->retry_hits, 1) == 0)
            return fh_reply(fd, 429, "Retry-After: 0\r\n", "{\"kind\":\"Status\",\"code\":429}");
        return fh_reply(fd, 200, NULL, "done");
    }
    if (!strcmp(p, "/retry7")) return fh_reply(fd, 429, "Retry-After: 7\r\n", "{}");
    if (!strcmp(p, "/flaky")) {   /* 500 without Retry-After, then OK */
        if (atomic_fetch_add(&s->flaky_hits, 1) == 0) return fh_reply(fd, 500, NULL, "oops");
        return fh_reply(fd, 200, NULL, "fine");
    }
    if (!strcmp(p, "/busy-post")) {
        atomic_fetch_add(&s->post_hits, 1);
        return fh_reply(fd, 503, NULL, "{\"kind\":\"Status\",\"message\":\"busy\"}");
    }
    if (!strcmp(p, "/token")) {
        atomic_fetch_add(&s->token_hits, 1);
        return fh_reply(fd, s->status_for_token ? s->status_for_token : 200, NULL, "{}");
    }
    if (!strcmp(p, "/stream")) {
        fh_stream_begin(fd, 200);
        fh_stream_str(fd, "{\"a\":1}\n{\"b\"", 0.05);
        fh_stream_str(fd, ":2}\n\r\n{\"c\":3}", 0.05);
        fh_stream_str(fd, "\n", 0);
        return fh_stream_end(fd);
    }
    if (!strcmp(p, "/stream-cut")) {
        fh_stream_begin(fd, 200);
        fh_stream_str(fd, "{\"a\":1}\n{\"b\"", 0.05);
        return fh_stream_end(fd);
    }
    if (!strcmp(p, "/stream-forbidden"))
        return fh_reply(fd, 403, NULL,
                        "{\"kind\":\"Status\",\"status\":\"Failure\",\"message\":\"pods is forbidden: User \\\"x\\\" "
                        "cannot watch resource \\\"pods\\\"\",\"reason\":\"Forbidden\",\"code\":403}");
    if (!strcmp(p, "/stream-hold")) {
        fh_stream_begin(fd, 200);
        fh_stream_str(fd, "{\"first\":true}\n", 0);
        fh_stream_hold(srv, fd);
        return false;
    }
    return fh_reply(fd, 404, NULL, "{\"kind\":\"Status\",\"message\":\"not found\",\"code\":404}");
}

typedef struct fixture {
    script s;
    fake_http *srv;
    ms_kubeconfig kc;
    ms_kube_client *c;
} fixture;

static fixture *start(double qps, int32_t burst, int32_t max_retries) {
    fixture *f = calloc(1, sizeof *f);
    f->srv = fh_start(handler, &f->s);
    assert_non_null(f->srv);
    f->kc.server = strdup(f->srv->url);
    f->kc.token = strdup("abc");
    ms_kube_client_options o = {.config = &f->kc, .qps = qps, .burst = burst, .max_retries = max_retries, .log = &quiet};
    ms_error err = {0};
    if (ms_kube_client_new(&o, &f->c, &err) != MS_OK) fail_msg("client: %s", err.msg);
    return f;
}

static void stop(fixture *f) {
    ms_kube_client_free(f->c);
    fh_stop(f->srv);
    ms_kubeconfig_free(&f->kc);
    free(f);
}

#endif
