/* The client's HTTP endpoint (core/client/http_endpoint.c) against the fake
 * HTTP server: calls made at once, one kept-alive connection across calls,
 * the headers and body sent, tlsConfig.serverName, and failures. */
#include "testutil.h"

#include <pthread.h>

#include "client/http_endpoint.h"
#include "fake_http.h"

/* /wait answers only once /go has come: calls made one after the other
 * would leave it unanswered (500 after 10 s). */
typedef struct gate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool go;
} gate;

static bool handler(fake_http *srv, int fd, const fh_request *r, void *ctx) {
    (void)srv;
    gate *g = ctx;
    if (strcmp(r->path, "/wait") == 0) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 10;
        pthread_mutex_lock(&g->mu);
        while (!g->go && pthread_cond_timedwait(&g->cv, &g->mu, &until) == 0) {}
        bool go = g->go;
        pthread_mutex_unlock(&g->mu);
        return fh_reply(fd, go ? 200 : 500, NULL, "{\"waited\":true}");
    }
    if (strcmp(r->path, "/go") == 0) {
        pthread_mutex_lock(&g->mu);
        g->go = true;
        pthread_cond_broadcast(&g->cv);
        pthread_mutex_unlock(&g->mu);
        return fh_reply(fd, 201, NULL, r->body);
    }
    return fh_reply(fd, 404, NULL, "");
}

typedef struct env {
    gate g;
    fake_http *srv;
    ms_http_endpoint *ep;
    ms_http_caller c;
    char url[2][128];
    ms_http_result ans[2];
} env;

static void env_start(env *e) {
    memset(e, 0, sizeof *e);
    pthread_mutex_init(&e->g.mu, NULL);
    pthread_cond_init(&e->g.cv, NULL);
    e->srv = fh_start(handler, &e->g);
    assert_non_null(e->srv);
    ms_error err;
    assert_int_equal(ms_http_endpoint_new(&e->ep, &err), MS_OK);
    e->c = ms_http_endpoint_caller(e->ep);
    snprintf(e->url[0], sizeof e->url[0], "%s/wait", e->srv->url);
    snprintf(e->url[1], sizeof e->url[1], "%s/go", e->srv->url);
}

static void env_stop(env *e) {
    for (int i = 0; i < 2; i++) ms_buf_free(&e->ans[i].body);
    ms_http_endpoint_free(e->ep);
    fh_stop(e->srv);
    pthread_cond_destroy(&e->g.cv);
    pthread_mutex_destroy(&e->g.mu);
}

static void test_calls_at_once(void **state) {
    (void)state;
    env e;
    env_start(&e);
    ms_http_call reqs[2] = {
        {.url = e.url[0], .body = "{}", .body_len = 2, .timeout = 30},
        {.url = e.url[1], .body = "{\"a\":1}", .body_len = 7, .timeout = 30},
    };
    e.c.call_many(e.c.ctx, reqs, e.ans, 2);
    assert_string_equal(e.ans[0].error, "");
    assert_int_equal(e.ans[0].status, 200);
    assert_int_equal(e.ans[1].status, 201);
    ms_buf_putc(&e.ans[1].body, '\0');
    assert_string_equal(e.ans[1].body.data, "{\"a\":1}");
    /* the request as Go's client sends it: a POST with a JSON body and no
     * Expect: 100-continue */
    const fh_request *r = e.srv->reqs[0].path[1] == 'g' ? &e.srv->reqs[0] : &e.srv->reqs[1];
    assert_string_equal(r->method, "POST");
    char v[128];
    assert_string_equal(fh_header(r, "Content-Type", v, sizeof v), "application/json");
    assert_null(fh_header(r, "Expect", v, sizeof v));
    env_stop(&e);
}

static void test_keep_alive(void **state) {
    (void)state;
    env e;
    env_start(&e);
    ms_http_call r = {.url = e.url[1], .body = "1", .body_len = 1};
    for (int i = 0; i < 3; i++) {
        ms_http_call_one(&e.c, &r, &e.ans[0]);
        assert_int_equal(e.ans[0].status, 201);
        assert_int_equal(e.ans[0].body.len, 1);   /* each call starts the body afresh */
    }
    assert_int_equal(fh_nreqs(e.srv), 3);
    assert_int_equal(fh_nconns(e.srv), 1);
    env_stop(&e);
}

static void test_server_name(void **state) {
    (void)state;
    env e;
    env_start(&e);
    ms_http_tls tls = {.server_name = "extender.test"};
    ms_http_call r = {.url = e.url[1], .tls = &tls};
    char why[256] = "";
    assert_true(e.c.check(e.c.ctx, &r, why, sizeof why));
    ms_http_call_one(&e.c, &r, &e.ans[0]);
    /* the connection went to the URL's address, under the other name */
    assert_int_equal(e.ans[0].status, 201);
    char v[128], want[64];
    snprintf(want, sizeof want, "extender.test:%d", e.srv->port);
    assert_string_equal(fh_header(&e.srv->reqs[0], "Host", v, sizeof v), want);
    ms_http_call bad = {.url = "not a url", .tls = &tls};
    assert_false(e.c.check(e.c.ctx, &bad, why, sizeof why));
    assert_string_equal(why, "cannot use \"extender.test\" with urlPrefix \"not a url\"");
    env_stop(&e);
}

static void test_failures(void **state) {
    (void)state;
    env e;
    env_start(&e);
    ms_http_call reqs[2] = {
        {.url = "http://127.0.0.1:1/x"},
        {.url = e.url[1], .failed = true},
    };
    e.c.call_many(e.c.ctx, reqs, e.ans, 2);
    assert_int_equal(e.ans[0].status, 0);
    assert_true(e.ans[0].error[0] != '\0');
    assert_int_equal(e.ans[1].status, 0);
    assert_string_equal(e.ans[1].error, "Out of memory");
    /* the request that could not be built was not sent */
    assert_int_equal(fh_nreqs(e.srv), 0);
    env_stop(&e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_calls_at_once),
        cmocka_unit_test(test_keep_alive),
        cmocka_unit_test(test_server_name),
        cmocka_unit_test(test_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
