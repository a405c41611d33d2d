/* The asynchronous engine (core/client/kube_async.c) against the fake API
 * server: many requests over a few connections, retries, the rate limit,
 * and requests dropped at shutdown. */
#include "testutil.h"

#include <pthread.h>

#include "base/clock.h"
#include "kube_fake_api.h"

typedef struct answers {
    pthread_mutex_t mu;
    int n;
    ms_rc rc[16];
    long status[16];
    uint32_t attempts[16];
    double sent[16], at[16];       /* resp->sent, and when the answer came */
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
    a->sent[q->i] = resp->sent;
    a->at[q->i] = ms_clock_monotonic();
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
    double submitted = ms_clock_monotonic();
    for (int i = 0; i < n; i++) {
        q[i] = (asked){&a, i};
        assert_int_equal(ms_kube_async_submit(as, &rq[i], on_answer, &q[i]), MS_OK);
    }
    wait_answers(as, &a, n);
    /* when each answered attempt went on the wire: after its submission,
     * before its answer */
    for (int i = 0; i < n; i++) {
        assert_true(a.sent[i] >= submitted);
        assert_true(a.sent[i] <= a.at[i]);
    }
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
        cmocka_unit_test(test_async),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
