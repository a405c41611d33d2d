/* The blocking Kubernetes API client (core/client/kube_client.c) against
 * a fake API server: keep-alive, retries, rate limit, streams, cancel,
 * token file reloads. */
#include "testutil.h"

#include <pthread.h>
#include <sys/stat.h>

#include "kube_fake_api.h"

static void test_requests_and_keepalive(void **state) {
    (void)state;
    fixture *f = start(0, 0, 0);
    ms_kube_response r;
    ms_error err = {0};
    assert_int_equal(ms_kube_get(f->c, "/api/v1/nodes", &r, &err), MS_OK);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "{\"kind\":\"NodeList\",\"items\":[]}");
    assert_int_equal(r.attempts, 1);
    ms_kube_response_free(&r);

    assert_int_equal(ms_kube_post(f->c, "/echo", "{\"x\":1}", &r, &err), MS_OK);
    assert_int_equal(r.status, 201);
    assert_string_equal(r.body, "POST {\"x\":1}");
    ms_kube_response_free(&r);
    assert_int_equal(ms_kube_patch(f->c, "/echo", NULL, "{\"y\":2}", &r, &err), MS_OK);
    assert_string_equal(r.body, "PATCH {\"y\":2}");
    ms_kube_response_free(&r);
    assert_int_equal(ms_kube_patch(f->c, "/echo", "application/merge-patch+json", "{}", &r, &err), MS_OK);
    ms_kube_response_free(&r);
    assert_int_equal(ms_kube_delete(f->c, "/echo", &r, &err), MS_OK);
    assert_string_equal(r.body, "DELETE ");
    ms_kube_response_free(&r);
    assert_int_equal(ms_kube_get(f->c, "/nope", &r, &err), MS_OK);
    assert_int_equal(r.status, 404);
    char msg[64];
    ms_kube_status_message(&r, msg, sizeof msg);
    assert_string_equal(msg, "not found");
    ms_kube_response_free(&r);

    /* six requests, one connection */
    assert_int_equal(fh_nconns(f->srv), 1);
    ms_kube_client_stats st;
    ms_kube_client_stats_get(f->c, &st);
    assert_int_equal(st.connections, 1);
    assert_int_equal(st.requests, 6);
    assert_int_equal(st.http2, 0);   /* cleartext: HTTP/1.1 */

    char h[256];
    const fh_request *q = &f->srv->reqs[0];
    assert_string_equal(fh_header(q, "Authorization", h, sizeof h), "Bearer abc");
    assert_string_equal(fh_header(q, "Accept", h, sizeof h), "application/json");
    assert_string_equal(fh_header(q, "User-Agent", h, sizeof h), "moonsched/0.1");
    assert_non_null(fh_header(q, "Accept-Encoding", h, sizeof h));   /* gzip accepted */
    assert_null(fh_header(q, "Content-Type", h, sizeof h));
    assert_string_equal(fh_header(&f->srv->reqs[1], "Content-Type", h, sizeof h), "application/json");
    assert_null(fh_header(&f->srv->reqs[1], "Expect", h, sizeof h));
    assert_string_equal(fh_header(&f->srv->reqs[2], "Content-Type", h, sizeof h),
                        "application/strategic-merge-patch+json");
    assert_string_equal(fh_header(&f->srv->reqs[3], "Content-Type", h, sizeof h), "application/merge-patch+json");
    assert_string_equal(f->srv->reqs[4].method, "DELETE");
    stop(f);
}

static void test_retries(void **state) {
    (void)state;
    fixture *f = start(0, 0, 0);
    ms_kube_response r;
    ms_error err = {0};
    /* 429 + Retry-After: retried, for any method */
    assert_int_equal(ms_kube_get(f->c, "/retry", &r, &err), MS_OK);
    assert_int_equal(r.status, 200);
    assert_int_equal(r.attempts, 2);
    ms_kube_response_free(&r);
    /* 500 without Retry-After: a GET is retried after a backoff */
    double t0 = fh_now();
    assert_int_equal(ms_kube_get(f->c, "/flaky", &r, &err), MS_OK);
    assert_int_equal(r.status, 200);
    assert_int_equal(r.attempts, 2);
    assert_true(fh_now() - t0 >= 0.45);
    ms_kube_response_free(&r);
    /* ... a POST is not: it may have been applied */
    assert_int_equal(ms_kube_post(f->c, "/busy-post", "{}", &r, &err), MS_OK);
    assert_int_equal(r.status, 503);
    assert_int_equal(r.attempts, 1);
    assert_int_equal(atomic_load(&f->s.post_hits), 1);
    ms_kube_response_free(&r);
    ms_kube_client_stats st;
    ms_kube_client_stats_get(f->c, &st);
    assert_int_equal(st.retries, 2);
    stop(f);

    /* retries off: the answer and its Retry-After come back as they are */
    f = start(0, 0, -1);
    assert_int_equal(ms_kube_get(f->c, "/retry7", &r, &err), MS_OK);
    assert_int_equal(r.status, 429);
    assert_true(r.retry_after == 7);
    assert_int_equal(r.attempts, 1);
    ms_kube_response_free(&r);
    stop(f);
}

static void test_transport_error(void **state) {
    (void)state;
    fake_http *srv = fh_start(handler, NULL);
    ms_kubeconfig kc = {.server = strdup(srv->url)};
    fh_stop(srv);   /* nothing listens there any more */
    ms_kube_client_options o = {.config = &kc, .max_retries = 1, .log = &quiet};
    ms_kube_client *c;
    ms_error err = {0};
    assert_int_equal(ms_kube_client_new(&o, &c, &err), MS_OK);
    ms_kube_response r;
    assert_int_equal(ms_kube_get(c, "/api/v1/pods", &r, &err), MS_EIO);
    assert_int_equal(r.attempts, 2);   /* one retry for a GET */
    assert_non_null(strstr(err.msg, "GET http://127.0.0.1:"));
    assert_non_null(strstr(err.msg, "/api/v1/pods: Couldn't connect to server"));
    ms_kube_response_free(&r);
    assert_int_equal(ms_kube_post(c, "/api/v1/pods", "{}", &r, &err), MS_EIO);
    assert_int_equal(r.attempts, 1);
    ms_kube_response_free(&r);
    ms_kube_client_free(c);
    ms_kubeconfig_free(&kc);
}

static void test_rate_limit(void **state) {
    (void)state;
    fixture *f = start(20, 1, 0);
    ms_kube_response r;
    ms_error err = {0};
    double t0 = fh_now();
    for (int i = 0; i < 5; i++) {
        assert_int_equal(ms_kube_get(f->c, "/api/v1/nodes", &r, &err), MS_OK);
        ms_kube_response_free(&r);
    }
    double took = fh_now() - t0;
    assert_true(took >= 0.19);   /* 4 waits of 1/20 s */
    ms_kube_client_stats st;
    ms_kube_client_stats_get(f->c, &st);
    assert_true(st.throttled >= 3);
    stop(f);
}

typedef struct lines {
    char v[8][64];
    int n;
    int stop_after;
} lines;

static int collect(void *ctx, char *line, size_t len) {
    lines *l = ctx;
    (void)len;
    if (l->n < 8) snprintf(l->v[l->n++], sizeof l->v[0], "%s", line);
    return l->stop_after && l->n >= l->stop_after;
}

static void test_stream(void **state) {
    (void)state;
    fixture *f = start(0, 0, 0);
    ms_kube_response r;
    ms_error err = {0};
    lines l = {0};
    ms_kube_request req = {.path = "/stream"};
    assert_int_equal(ms_kube_stream(f->c, &req, collect, &l, &r, &err), MS_OK);
    assert_int_equal(r.status, 200);
    assert_null(r.body);
    assert_int_equal(l.n, 3);
    assert_string_equal(l.v[0], "{\"a\":1}");
    assert_string_equal(l.v[1], "{\"b\":2}");
    assert_string_equal(l.v[2], "{\"c\":3}");
    ms_kube_response_free(&r);

    memset(&l, 0, sizeof l);
    req.path = "/stream-cut";
    assert_int_equal(ms_kube_stream(f->c, &req, collect, &l, &r, &err), MS_EIO);
    assert_non_null(strstr(err.msg, "the stream ended inside a line"));
    assert_int_equal(l.n, 1);
    ms_kube_response_free(&r);

    memset(&l, 0, sizeof l);
    req.path = "/stream-forbidden";
    assert_int_equal(ms_kube_stream(f->c, &req, collect, &l, &r, &err), MS_OK);
    assert_int_equal(r.status, 403);
    assert_int_equal(l.n, 0);
    char msg[200];
    ms_kube_status_message(&r, msg, sizeof msg);
    assert_string_equal(msg, "pods is forbidden: User \"x\" cannot watch resource \"pods\"");
    ms_kube_response_free(&r);

    /* the callback ends a stream the server would hold open */
    memset(&l, 0, sizeof l);
    l.stop_after = 1;
    req.path = "/stream-hold";
    double t0 = fh_now();
    assert_int_equal(ms_kube_stream(f->c, &req, collect, &l, &r, &err), MS_OK);
    assert_true(fh_now() - t0 < 1.0);
    assert_string_equal(l.v[0], "{\"first\":true}");
    ms_kube_response_free(&r);
    stop(f);
}

typedef struct canceller {
    ms_kube_cancel *c;
    double delay;
} canceller;

static void *fire_later(void *arg) {
    canceller *k = arg;
    fh_sleep(k->delay);
    ms_kube_cancel_fire(k->c);
    return NULL;
}

static void test_cancel(void **state) {
    (void)state;
    fixture *f = start(0, 0, 0);
    canceller k = {.c = ms_kube_cancel_new(), .delay = 0.1};
    pthread_t t;
    pthread_create(&t, NULL, fire_later, &k);
    lines l = {0};
    ms_kube_request req = {.path = "/stream-hold", .cancel = k.c};
    ms_kube_response r;
    ms_error err = {0};
    double t0 = fh_now();
    assert_int_equal(ms_kube_stream(f->c, &req, collect, &l, &r, &err), MS_ESTATE);
    double took = fh_now() - t0;
    pthread_join(t, NULL);
    assert_true(took >= 0.09 && took < 0.9);   /* woken at once, not at the 1 s poll timeout */
    assert_int_equal(l.n, 1);
    ms_kube_response_free(&r);
    /* sticky: later requests and sleeps end at once */
    assert_int_equal(ms_kube_do(f->c, &req, &r, &err), MS_ESTATE);
    ms_kube_response_free(&r);
    ms_kube_cancel_free(k.c);
    stop(f);
}

static double fake_now(void *ctx) { return *(double *)ctx; }

static void write_token(const char *path, const char *tok) {
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fprintf(fp, "%s\n", tok);
    fclose(fp);
}

/* One request the server refuses (401), then one it accepts. */
static void refused_then_accepted(ms_kube_client *c, script *s) {
    ms_kube_response r;
    ms_error err = {0};
    s->status_for_token = 401;
    assert_int_equal(ms_kube_get(c, "/token", &r, &err), MS_OK);
    assert_int_equal(r.status, 401);
    ms_kube_response_free(&r);
    s->status_for_token = 0;
    assert_int_equal(ms_kube_get(c, "/token", &r, &err), MS_OK);
    ms_kube_response_free(&r);
}

static void test_token_file_reload(void **state) {
    (void)state;
    script s = {0};
    fake_http *srv = fh_start(handler, &s);
    char tmpl[] = "/tmp/ms-token-XXXXXX";
    int fd = mkstemp(tmpl);
    assert_true(fd >= 0);
    close(fd);
    write_token(tmpl, "t1");
    ms_kubeconfig kc = {.server = strdup(srv->url), .token_file = strdup(tmpl)};
    double now = 1000;
    ms_kube_client_options o = {.config = &kc, .clock = fake_now, .clock_ctx = &now, .log = &quiet};
    ms_kube_client *c;
    ms_error err = {0};
    assert_int_equal(ms_kube_client_new(&o, &c, &err), MS_OK);
    ms_kube_response r;
    char h[64];
    assert_int_equal(ms_kube_get(c, "/token", &r, &err), MS_OK);
    ms_kube_response_free(&r);
    assert_string_equal(fh_header(&srv->reqs[0], "Authorization", h, sizeof h), "Bearer t1");
    write_token(tmpl, "t2");
    now += 30;   /* not due yet */
    assert_int_equal(ms_kube_get(c, "/token", &r, &err), MS_OK);
    ms_kube_response_free(&r);
    assert_string_equal(fh_header(&srv->reqs[1], "Authorization", h, sizeof h), "Bearer t1");
    now += 31;   /* a minute since the last read */
    assert_int_equal(ms_kube_get(c, "/token", &r, &err), MS_OK);
    ms_kube_response_free(&r);
    assert_string_equal(fh_header(&srv->reqs[2], "Authorization", h, sizeof h), "Bearer t2");
    /* a 401 makes the next request read the file again at once */
    write_token(tmpl, "t3");
    refused_then_accepted(c, &s);
    assert_string_equal(fh_header(&srv->reqs[4], "Authorization", h, sizeof h), "Bearer t3");
    /* an unreadable file keeps the last token */
    unlink(tmpl);
    now += 100;
    assert_int_equal(ms_kube_get(c, "/token", &r, &err), MS_OK);
    ms_kube_response_free(&r);
    assert_string_equal(fh_header(&srv->reqs[5], "Authorization", h, sizeof h), "Bearer t3");
    ms_kube_client_free(c);
    fh_stop(srv);
    ms_kubeconfig_free(&kc);

    /* a token file that cannot be read at start is an error */
    kc = (ms_kubeconfig){.server = strdup("https://x"), .token_file = strdup("/nonexistent/token")};
    o = (ms_kube_client_options){.config = &kc};
    assert_int_equal(ms_kube_client_new(&o, &c, &err), MS_EIO);
    assert_non_null(strstr(err.msg, "/nonexistent/token"));
    ms_kubeconfig_free(&kc);
}

static void test_helpers(void **state) {
    (void)state;
    char buf[64] = "/api/v1/pods?continue=";
    assert_true(ms_kube_query_escape(buf, sizeof buf, "eyJ2Ijo+/= x&y"));
    assert_string_equal(buf, "/api/v1/pods?continue=eyJ2Ijo%2B%2F%3D%20x%26y");
    char small[8] = "ab";
    assert_false(ms_kube_query_escape(small, sizeof small, "%%%"));
    assert_true(strlen(small) < sizeof small);
    char msg[16];
    ms_kube_response r = {.status = 500, .body = "plain\ntext that is long", .len = 23};
    ms_kube_status_message(&r, msg, sizeof msg);
    assert_string_equal(msg, "plain text that");
    r = (ms_kube_response){.status = 502};
    ms_kube_status_message(&r, msg, sizeof msg);
    assert_string_equal(msg, "HTTP 502 with a");
}

/* ---- asynchronous requests ---- */

/* A credential plugin's token on every request; a 401 makes the next
 * request run the plugin again; a failing plugin fails the request
 * before anything is sent, with the plugin's words. */
static void test_exec_plugin(void **state) {
    (void)state;
    script s = {0};
    fake_http *srv = fh_start(handler, &s);
    char dir[64];
    tu_mkdtemp(dir, sizeof dir, "ms-exec-client");
    char plugin[300], cfg[1024];
    snprintf(plugin, sizeof plugin, "%s/plug", dir);
    FILE *fp = fopen(plugin, "w");
    assert_non_null(fp);
    fprintf(fp, "#!/bin/sh\n"
                "[ -e %s/fail ] && { echo 'login expired: run sso login' >&2; exit 1; }\n"
                "n=$(cat %s/runs 2>/dev/null || echo 0); n=$((n+1)); echo $n >%s/runs\n"
                "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
                "\"status\":{\"token\":\"exec-'$n'\"}}'\n",
            dir, dir, dir);
    fclose(fp);
    assert_int_equal(chmod(plugin, 0755), 0);
    snprintf(cfg, sizeof cfg,
             "current-context: c\nclusters: [{name: k, cluster: {server: \"%s\"}}]\n"
             "users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: ./plug, "
             "interactiveMode: Never}}}]\ncontexts: [{name: c, context: {cluster: k, user: u}}]\n",
             srv->url);
    ms_kubeconfig kc;
    ms_error err = {0};
    assert_int_equal(ms_kubeconfig_load_buffer(&kc, cfg, strlen(cfg), dir, "mem", NULL, &err), MS_OK);
    ms_kube_client_options o = {.config = &kc, .log = &quiet};
    ms_kube_client *c;
    assert_int_equal(ms_kube_client_new(&o, &c, &err), MS_OK);
    ms_kube_response r;
    char h[64];
    assert_int_equal(ms_kube_get(c, "/token", &r, &err), MS_OK);
    ms_kube_response_free(&r);
    assert_int_equal(ms_kube_get(c, "/token", &r, &err), MS_OK);
    ms_kube_response_free(&r);
    assert_string_equal(fh_header(&srv->reqs[0], "Authorization", h, sizeof h), "Bearer exec-1");
    assert_string_equal(fh_header(&srv->reqs[1], "Authorization", h, sizeof h), "Bearer exec-1");   /* cached */
    refused_then_accepted(c, &s);
    assert_string_equal(fh_header(&srv->reqs[3], "Authorization", h, sizeof h), "Bearer exec-2");

    /* clients sharing the credentials: one run for both, and a 401 seen
     * by one renews them for the other */
    ms_exec_credential_options eo = {.config = &kc, .log = &quiet};
    ms_exec_credential *shared;
    assert_int_equal(ms_exec_credential_new(&eo, &shared, &err), MS_OK);
    ms_kube_client *c1, *c2;
    o.credentials = shared;
    assert_int_equal(ms_kube_client_new(&o, &c1, &err), MS_OK);
    assert_int_equal(ms_kube_client_new(&o, &c2, &err), MS_OK);
    ms_exec_credential_free(shared);   /* the clients hold it now */
    int base = srv->nreqs;
    assert_int_equal(ms_kube_get(c1, "/token", &r, &err), MS_OK);
    ms_kube_response_free(&r);
    assert_int_equal(ms_kube_get(c2, "/token", &r, &err), MS_OK);
    ms_kube_response_free(&r);
    assert_string_equal(fh_header(&srv->reqs[base], "Authorization", h, sizeof h), "Bearer exec-3");
    assert_string_equal(fh_header(&srv->reqs[base + 1], "Authorization", h, sizeof h), "Bearer exec-3");
    s.status_for_token = 401;
    assert_int_equal(ms_kube_get(c1, "/token", &r, &err), MS_OK);
    ms_kube_response_free(&r);
    s.status_for_token = 0;
    assert_int_equal(ms_kube_get(c2, "/token", &r, &err), MS_OK);
    ms_kube_response_free(&r);
    assert_string_equal(fh_header(&srv->reqs[base + 3], "Authorization", h, sizeof h), "Bearer exec-4");
    ms_kube_client_free(c1);
    ms_kube_client_free(c2);

    char path[300];
    snprintf(path, sizeof path, "%s/fail", dir);
    fclose(fopen(path, "w"));
    s.status_for_token = 401;   /* the plugin must run again, and now fails */
    assert_int_equal(ms_kube_get(c, "/token", &r, &err), MS_OK);
    ms_kube_response_free(&r);
    int sent = srv->nreqs;
    assert_int_equal(ms_kube_get(c, "/token", &r, &err), MS_EIO);
    ms_kube_response_free(&r);
    char want[600];
    snprintf(want, sizeof want, "GET /token: user u: getting credentials: exec: executable %s/./plug failed with exit "
             "code 1: login expired: run sso login", dir);
    assert_string_equal(err.msg, want);
    assert_int_equal(srv->nreqs, sent);   /* nothing sent without credentials */
    ms_kube_client_free(c);
    ms_kubeconfig_free(&kc);
    fh_stop(srv);
    tu_rmtree(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_requests_and_keepalive),
        cmocka_unit_test(test_retries),
        cmocka_unit_test(test_transport_error),
        cmocka_unit_test(test_rate_limit),
        cmocka_unit_test(test_stream),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_token_file_reload),
        cmocka_unit_test(test_exec_plugin),
        cmocka_unit_test(test_helpers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
