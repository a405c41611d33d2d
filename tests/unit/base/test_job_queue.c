#include "testutil.h"

#include <pthread.h>
#include <unistd.h>

#include "base/job_queue.h"

typedef struct item {
    ms_job link;
    int id;
} item;

static item *mk(int id) {
    item *it = calloc(1, sizeof *it);
    it->id = id;
    return it;
}

static int pop_id(ms_job_queue *q) {
    item *it = (item *)ms_job_queue_pop_wait(q);
    assert_non_null(it);
    int id = it->id;
    free(it);
    return id;
}

static int freed;
static void free_item(ms_job *j) {
    freed++;
    free(j);
}

/* Each lane in order; every urgent job before any ordinary one. */
static void test_order_and_urgent_lane(void **state) {
    (void)state;
    ms_job_queue q;
    ms_job_queue_init(&q);
    assert_true(ms_job_queue_push(&q, &mk(1)->link, false));    /* was empty: wake the consumer */
    assert_false(ms_job_queue_push(&q, &mk(2)->link, false));
    assert_false(ms_job_queue_push(&q, &mk(10)->link, true));
    assert_false(ms_job_queue_push(&q, &mk(3)->link, false));
    assert_false(ms_job_queue_push(&q, &mk(11)->link, true));
    assert_int_equal(ms_job_queue_len(&q), 5);
    int want[] = {10, 11, 1, 2, 3};
    for (int i = 0; i < 5; i++) assert_int_equal(pop_id(&q), want[i]);
    assert_int_equal(ms_job_queue_len(&q), 0);
    /* an urgent job alone is also a first one */
    assert_true(ms_job_queue_push(&q, &mk(12)->link, true));
    assert_int_equal(pop_id(&q), 12);
    ms_job_queue_destroy(&q, free_item);
}

/* take_all: the whole list at once, urgent ones first, queue empty after. */
static void test_take_all(void **state) {
    (void)state;
    ms_job_queue q;
    ms_job_queue_init(&q);
    assert_null(ms_job_queue_take_all(&q));
    ms_job_queue_push(&q, &mk(1)->link, false);
    ms_job_queue_push(&q, &mk(2)->link, false);
    ms_job_queue_push(&q, &mk(10)->link, true);
    ms_job *j = ms_job_queue_take_all(&q);
    int want[] = {10, 1, 2}, n = 0;
    while (j) {
        ms_job *next = j->next;
        assert_true(n < 3);
        assert_int_equal(((item *)j)->id, want[n++]);
        free(j);
        j = next;
    }
    assert_int_equal(n, 3);
    assert_int_equal(ms_job_queue_len(&q), 0);
    /* the lanes start again empty */
    assert_true(ms_job_queue_push(&q, &mk(4)->link, false));
    assert_int_equal(pop_id(&q), 4);
    ms_job_queue_destroy(&q, free_item);
}

/* Closing hands out what was queued, then NULL; destroy frees the rest. */
static void test_close_and_destroy(void **state) {
    (void)state;
    ms_job_queue q;
    ms_job_queue_init(&q);
    ms_job_queue_push(&q, &mk(1)->link, false);
    ms_job_queue_push(&q, &mk(2)->link, true);
    ms_job_queue_close(&q);
    assert_int_equal(pop_id(&q), 2);
    assert_int_equal(pop_id(&q), 1);
    assert_null(ms_job_queue_pop_wait(&q));
    ms_job_queue_push(&q, &mk(3)->link, false);
    ms_job_queue_push(&q, &mk(4)->link, true);
    freed = 0;
    ms_job_queue_destroy(&q, free_item);
    assert_int_equal(freed, 2);
}

static void *consumer(void *arg) {
    ms_job_queue *q = arg;
    intptr_t sum = 0;
    ms_job *j;
    while ((j = ms_job_queue_pop_wait(q))) {
        sum += ((item *)j)->id;
        free(j);
    }
    return (void *)sum;
}

/* pop_wait blocks until a job or the close comes from another thread. */
static void test_pop_waits(void **state) {
    (void)state;
    ms_job_queue q;
    ms_job_queue_init(&q);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, consumer, &q), 0);
    usleep(20000);
    for (int i = 1; i <= 100; i++) ms_job_queue_push(&q, &mk(i)->link, i % 3 == 0);
    ms_job_queue_close(&q);
    void *sum;
    pthread_join(t, &sum);
    assert_int_equal((intptr_t)sum, 5050);
    ms_job_queue_destroy(&q, free_item);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_and_urgent_lane),
        cmocka_unit_test(test_take_all),
        cmocka_unit_test(test_close_and_destroy),
        cmocka_unit_test(test_pop_waits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
