#include "testutil.h"

#include <pthread.h>

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
    assert_true(ms_kube_cancel_sleep(k.c, 10));
    ms_kube_cancel_free(k.c);

    /* a cancel also ends a sleep early */
    k.c = ms_kube_cancel_new();
    k.delay = 0.05;
    pthread_create(&t, NULL, fire_later, &k);
    t0 = fh_now();
    assert_true(ms_kube_cancel_sleep(k.c, 10));
    assert_true(fh_now() - t0 < 1);
    pthread_join(t, NULL);
    ms_kube_cancel_free(k.c);
    assert_false(ms_kube_cancel_sleep(NULL, 0.01));
    stop(f);
}

static double fake_now(void *ctx) { return *(double *)ctx; }

static void write_token(const char *path, const char *tok) {
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fprintf(fp, "%s\n", tok);
    fclose(fp);
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
    s.status_for_token = 401;
    assert_int_equal(ms_kube_get(c, "/token", &r, &err), MS_OK);
    assert_int_equal(r.status, 401);
    ms_kube_response_free(&r);
    s.status_for_token = 0;
    assert_int_equal(ms_kube_get(c, "/token", &r, &err), MS_OK);
    ms_kube_response_free(&r);
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

typedef struct answers {
    pthread_mutex_t mu;
    int n;
    ms_rc rc[16];
    long status[16];
    uint32_t attempts[16];
    char body[16][64];
} answers;

typedef struct asked {
    answers *a;
    int i;
} asked;

static void on_answer(void *ctx, ms_rc rc, ms_kube_response *resp, const ms_error *err) {
    asked *q = ctx;
    answers *a = q->a;
    if (rc == MS_OK) assert_null(err);
    else assert_non_null(err);
    pthread_mutex_lock(&a->mu);
    a->rc[q->i] = rc;
    a->status[q->i] = resp->status;
    a->attempts[q->i] = resp->attempts;
    snprintf(a->body[q->i], sizeof a->body[0], "%s", resp->body ? resp->body : "");
    a->n++;
    pthread_mutex_unlock(&a->mu);
    ms_kube_response_free(resp);
}

static void wait_answers(ms_kube_async *as, answers *a, int n) {
    for (int k = 0; k < 500; k++) {
        pthread_mutex_lock(&a->mu);
        int got = a->n;
        pthread_mutex_unlock(&a->mu);
        if (got >= n) break;
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    assert_int_equal(ms_kube_async_pending(as), 0);
    assert_int_equal(a->n, n);
}

static void test_async(void **state) {
    (void)state;
    fixture *f = start(0, 0, 0);
    ms_kube_async *as;
    ms_error err = {0};
    assert_int_equal(ms_kube_async_new(f->c, 4, &as, &err), MS_OK);
    answers a = {.mu = PTHREAD_MUTEX_INITIALIZER};
    asked q[16];
    char bodies[8][32];
    ms_kube_request rq[16];
    int n = 0;
    for (; n < 8; n++) {   /* more than the 4 in flight: the rest wait */
        snprintf(bodies[n], sizeof bodies[n], "{\"i\":%d}", n);
        rq[n] = (ms_kube_request){.method = "POST", .path = "/echo", .body = bodies[n],
                                  .body_len = strlen(bodies[n])};
    }
    rq[n++] = (ms_kube_request){.method = "GET", .path = "/retry"};       /* 429 + Retry-After: retried */
    rq[n++] = (ms_kube_request){.method = "POST", .path = "/busy-post", .body = "{}", .body_len = 2};
    rq[n++] = (ms_kube_request){.method = "GET", .path = "/nope"};
    for (int i = 0; i < n; i++) {
        q[i] = (asked){&a, i};
        assert_int_equal(ms_kube_async_submit(as, &rq[i], on_answer, &q[i]), MS_OK);
    }
    wait_answers(as, &a, n);
    for (int i = 0; i < 8; i++) {
        char want[64];
        snprintf(want, sizeof want, "POST {\"i\":%d}", i);
        assert_int_equal(a.rc[i], MS_OK);
        assert_int_equal(a.status[i], 201);
        assert_string_equal(a.body[i], want);
    }
    assert_int_equal(a.status[8], 200);
    assert_int_equal(a.attempts[8], 2);
    assert_int_equal(a.status[9], 503);    /* a POST is not retried without Retry-After */
    assert_int_equal(a.attempts[9], 1);
    assert_int_equal(atomic_load(&f->s.post_hits), 1);
    assert_int_equal(a.status[10], 404);
    /* cleartext HTTP/1.1: a few connections, each reused */
    assert_true(fh_nconns(f->srv) <= 4);
    ms_kube_client_stats st;
    ms_kube_client_stats_get(f->c, &st);
    assert_int_equal(st.requests, 12);
    assert_int_equal(st.retries, 1);
    char h[256];
    assert_string_equal(fh_header(&f->srv->reqs[0], "Authorization", h, sizeof h), "Bearer abc");

    /* a request that gets no answer is dropped when the engine stops */
    a.n = 0;
    rq[0] = (ms_kube_request){.method = "GET", .path = "/stream-hold"};
    q[0] = (asked){&a, 0};
    assert_int_equal(ms_kube_async_submit(as, &rq[0], on_answer, &q[0]), MS_OK);
    double t0 = fh_now();
    ms_kube_async_free(as, 0.2);
    assert_true(fh_now() - t0 >= 0.15);
    assert_int_equal(a.n, 1);
    assert_int_equal(a.rc[0], MS_ESTATE);
    stop(f);

    /* the client's rate limit holds for asynchronous requests too */
    f = start(20, 1, 0);
    assert_int_equal(ms_kube_async_new(f->c, 8, &as, &err), MS_OK);
    memset(&a, 0, sizeof a);
    pthread_mutex_init(&a.mu, NULL);
    t0 = fh_now();
    for (int i = 0; i < 5; i++) {
        rq[i] = (ms_kube_request){.method = "GET", .path = "/api/v1/nodes"};
        q[i] = (asked){&a, i};
        assert_int_equal(ms_kube_async_submit(as, &rq[i], on_answer, &q[i]), MS_OK);
    }
    wait_answers(as, &a, 5);
    assert_true(fh_now() - t0 >= 0.19);   /* 4 waits of 1/20 s */
    for (int i = 0; i < 5; i++) assert_int_equal(a.status[i], 200);
    ms_kube_async_free(as, 0);
    stop(f);
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
        cmocka_unit_test(test_helpers),
        cmocka_unit_test(test_async),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
