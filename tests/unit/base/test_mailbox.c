#include "testutil.h"

#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "base/mailbox.h"

typedef struct item {
    ms_job link;
    int id;
} item;

static item *mk(int id) {
    item *it = calloc(1, sizeof *it);
    it->id = id;
    return it;
}

static bool readable(const ms_mailbox *m, int timeout_ms) {
    struct pollfd p = {.fd = ms_mailbox_fd(m), .events = POLLIN};
    return poll(&p, 1, timeout_ms) == 1 && (p.revents & POLLIN);
}

static void free_item(ms_job *j) { free(j); }

/* Readable exactly while a post or a wake is pending; a take clears it. */
static void test_readiness_follows_posts(void **state) {
    (void)state;
    ms_mailbox m;
    assert_int_equal(ms_mailbox_init(&m), 0);
    assert_false(readable(&m, 0));
    ms_mailbox_post(&m, &mk(1)->link, false);
    ms_mailbox_post(&m, &mk(2)->link, true);
    assert_true(readable(&m, 0));
    ms_job *j = ms_mailbox_take_all(&m);
    assert_non_null(j);
    assert_int_equal(((item *)j)->id, 2);          /* urgent first */
    assert_int_equal(((item *)j->next)->id, 1);
    assert_null(j->next->next);
    free_item(j->next);
    free_item(j);
    assert_false(readable(&m, 0));
    assert_null(ms_mailbox_take_all(&m));

    ms_mailbox_wake(&m);
    assert_true(readable(&m, 0));
    ms_mailbox_drain(&m);
    assert_false(readable(&m, 0));
    ms_mailbox_destroy(&m, free_item);
}

/* Once closed the fd stays readable, so a consumer that polls sees the end;
 * destroy frees what was never taken. */
static void test_close_stays_readable(void **state) {
    (void)state;
    ms_mailbox m;
    assert_int_equal(ms_mailbox_init(&m), 0);
    ms_mailbox_post(&m, &mk(1)->link, false);
    assert_false(ms_mailbox_closed(&m));
    ms_mailbox_close(&m);
    assert_true(ms_mailbox_closed(&m));
    ms_job *j = ms_mailbox_take_all(&m);
    assert_non_null(j);
    free_item(j);
    assert_true(readable(&m, 0));
    ms_mailbox_post(&m, &mk(2)->link, false);
    ms_mailbox_destroy(&m, free_item);              /* ASan: item 2 is freed */
    assert_int_equal(ms_mailbox_fd(&m), -1);
}

enum { PRODUCERS = 4, PER_PRODUCER = 5000 };

typedef struct producer_arg {
    ms_mailbox *m;
    int base;
} producer_arg;

static void *producer(void *arg) {
    const producer_arg *p = arg;
    for (int i = 0; i < PER_PRODUCER; i++) ms_mailbox_post(p->m, &mk(p->base + i)->link, i % 7 == 0);
    return NULL;
}

/* Several threads post while one consumer polls the fd and takes: every job
 * arrives once, and no post is left without readiness (a lost wake-up would
 * leave the consumer waiting until the safety timeout). */
static void test_producers_and_poller(void **state) {
    (void)state;
    ms_mailbox m;
    assert_int_equal(ms_mailbox_init(&m), 0);
    pthread_t t[PRODUCERS];
    producer_arg args[PRODUCERS];
    for (int i = 0; i < PRODUCERS; i++) {
        args[i] = (producer_arg){.m = &m, .base = i * PER_PRODUCER};
        assert_int_equal(pthread_create(&t[i], NULL, producer, &args[i]), 0);
    }
    static bool seen[PRODUCERS * PER_PRODUCER];
    int got = 0, dup = 0;
    while (got < PRODUCERS * PER_PRODUCER) {
        if (!readable(&m, 60000)) break;
        for (ms_job *j = ms_mailbox_take_all(&m), *n; j; j = n) {
            n = j->next;
            int id = ((item *)j)->id;
            if (seen[id]) dup++;
            seen[id] = true;
            got++;
            free_item(j);
        }
    }
    for (int i = 0; i < PRODUCERS; i++) pthread_join(t[i], NULL);
    assert_int_equal(got, PRODUCERS * PER_PRODUCER);
    assert_int_equal(dup, 0);
    ms_mailbox_destroy(&m, free_item);
}

static void *post_later(void *arg) {
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    ms_mailbox_post(arg, &mk(7)->link, false);
    return NULL;
}

/* The timed wait answers whether the fd is readable and leaves it so; a
 * post from another thread ends a wait without limit. */
static void test_wait(void **state) {
    (void)state;
    ms_mailbox m;
    assert_int_equal(ms_mailbox_init(&m), 0);
    assert_false(ms_mailbox_wait(&m, 0));
    assert_false(ms_mailbox_wait(&m, 0.001));
    ms_mailbox_wake(&m);
    assert_true(ms_mailbox_wait(&m, 0));
    assert_true(ms_mailbox_wait(&m, -1));   /* readiness stays */
    ms_mailbox_drain(&m);
    assert_false(ms_mailbox_wait(&m, 0));

    pthread_t t;
    pthread_create(&t, NULL, post_later, &m);
    assert_true(ms_mailbox_wait(&m, -1));
    pthread_join(t, NULL);
    ms_job *j = ms_mailbox_take_all(&m);
    assert_int_equal(((item *)j)->id, 7);
    free_item(j);
    ms_mailbox_close(&m);
    assert_true(ms_mailbox_wait(&m, 0));
    ms_mailbox_destroy(&m, free_item);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_readiness_follows_posts),
        cmocka_unit_test(test_close_stays_readable),
        cmocka_unit_test(test_producers_and_poller),
        cmocka_unit_test(test_wait),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
