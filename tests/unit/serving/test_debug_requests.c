/* The scheduler thread's mailbox (core/serving/debug_requests.c): a request
 * asked from another thread is answered by the thread that serves, an
 * unanswered one times out with 503 (its late answer freed by the server
 * side), and closing answers the waiting ones at once. */
#include "testutil.h"

#include <poll.h>
#include <pthread.h>
#include <string.h>

#include "serving/debug_requests.h"

typedef struct asker {
    ms_debug_requests *q;
    double timeout;
    ms_http_answer a;
} asker;

static void *ask(void *arg) {
    asker *k = arg;
    ms_debug_requests_ask(k->q, MS_DEBUG_EXPLAIN, "default/web-1", k->timeout, &k->a);
    return NULL;
}

static void answer(void *ctx, ms_debug_kind kind, const char *arg, ms_http_answer *out, ms_debug_later *later) {
    (void)later;
    int *calls = ctx;
    (*calls)++;
    assert_int_equal(kind, MS_DEBUG_EXPLAIN);
    out->status = 200;
    out->body = strdup(arg);
}

static bool readable(int fd, int ms) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    return poll(&p, 1, ms) == 1;
}

/* k's question, asked from a thread of its own that waits for the answer. */
static pthread_t start_asking(asker *k) {
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, ask, k), 0);
    return t;
}

/* ... and once the serving side's fd says it is there. */
static pthread_t asked(asker *k) {
    pthread_t t = start_asking(k);
    assert_true(readable(ms_debug_requests_fd(k->q), 5000));
    return t;
}

static void test_answered_by_the_serving_thread(void **state) {
    (void)state;
    ms_debug_requests *q = ms_debug_requests_new();
    assert_non_null(q);
    asker k = {.q = q, .timeout = 10};
    pthread_t t = asked(&k);
    int calls = 0;
    ms_debug_requests_serve(q, answer, &calls);
    pthread_join(t, NULL);
    assert_int_equal(calls, 1);
    assert_int_equal(k.a.status, 200);
    assert_string_equal(k.a.body, "default/web-1");
    free(k.a.body);
    ms_debug_requests_close(q);
    ms_debug_requests_free(q);
}

static void test_timeout_then_late_answer(void **state) {
    (void)state;
    ms_debug_requests *q = ms_debug_requests_new();
    asker k = {.q = q, .timeout = 0.05};
    pthread_t t = start_asking(&k);
    pthread_join(t, NULL);
    assert_int_equal(k.a.status, 503);
    assert_string_equal(k.a.body, "the scheduler did not answer in time\n");
    free(k.a.body);
    /* the abandoned request is still answered, then freed (ASan checks) */
    int calls = 0;
    ms_debug_requests_serve(q, answer, &calls);
    assert_int_equal(calls, 1);
    ms_debug_requests_close(q);
    ms_debug_requests_free(q);
}

static void test_close_answers_waiting_ones(void **state) {
    (void)state;
    ms_debug_requests *q = ms_debug_requests_new();
    asker k = {.q = q, .timeout = 30};
    pthread_t t = asked(&k);
    ms_debug_requests_close(q);
    pthread_join(t, NULL);
    assert_int_equal(k.a.status, 503);
    assert_string_equal(k.a.body, "the scheduler is stopping\n");
    free(k.a.body);
    /* after the close: refused at once */
    ms_http_answer a = {0};
    ms_debug_requests_ask(q, MS_DEBUG_EXPLAIN, "x/y", 30, &a);
    assert_int_equal(a.status, 503);
    free(a.body);
    ms_debug_requests_free(q);
}

/* Work left to the asking thread: done there when it waited, only freed
 * when it gave up. */
static void finish(void *ctx, ms_http_answer *out) {
    int *finished = ctx;
    (*finished)++;
    if (!out) return;
    out->status = 201;
    free(out->body);
    out->body = strdup("written by the asker");
}

static void answer_later(void *ctx, ms_debug_kind kind, const char *arg, ms_http_answer *out,
                         ms_debug_later *later) {
    (void)kind;
    (void)arg;
    (void)out;
    *later = (ms_debug_later){finish, ctx};
}

static void test_later(void **state) {
    (void)state;
    ms_debug_requests *q = ms_debug_requests_new();
    asker k = {.q = q, .timeout = 10};
    pthread_t t = asked(&k);
    int finished = 0;
    ms_debug_requests_serve(q, answer_later, &finished);
    pthread_join(t, NULL);
    assert_int_equal(finished, 1);
    assert_int_equal(k.a.status, 201);
    assert_string_equal(k.a.body, "written by the asker");
    free(k.a.body);

    k.timeout = 0.05;   /* gone before the answer: the work is only released */
    t = start_asking(&k);
    pthread_join(t, NULL);
    free(k.a.body);
    ms_debug_requests_serve(q, answer_later, &finished);
    assert_int_equal(finished, 2);
    ms_debug_requests_close(q);
    ms_debug_requests_free(q);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_answered_by_the_serving_thread),
        cmocka_unit_test(test_timeout_then_late_answer),
        cmocka_unit_test(test_close_answers_waiting_ones),
        cmocka_unit_test(test_later),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
