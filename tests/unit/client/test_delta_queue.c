#include "testutil.h"

#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "client/delta_queue.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Objects are counters: the test checks that every reference comes back. */
typedef struct counted {
    atomic_int refs;
    int producer;
    int seq;
} counted;

static void counted_unref(void *o) { atomic_fetch_sub(&((counted *)o)->refs, 1); }

static ms_delta delta_of(counted *c, ms_delta_type t) {
    ms_delta d = {.type = (uint8_t)t, .kind = MS_KIND_OTHER, .obj = c, .unref = counted_unref};
    return d;
}

static bool readable(int fd) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    return poll(&p, 1, 0) == 1;
}

static void test_fifo_fd_and_timeout(void **state) {
    (void)state;
    ms_delta_queue *q = ms_delta_queue_new();
    assert_non_null(q);
    int fd = ms_delta_queue_fd(q);
    assert_false(readable(fd));
    ms_delta out[8];
    double t0 = now_s();
    assert_int_equal(ms_delta_queue_pop(q, out, 8, 0.05), 0);
    assert_true(now_s() - t0 >= 0.045);
    assert_int_equal(ms_delta_queue_pop(q, out, 8, 0), 0);

    counted c[5] = {0};
    for (int i = 0; i < 5; i++) {
        atomic_init(&c[i].refs, 1);
        c[i].seq = i;
        ms_delta d = delta_of(&c[i], i == 4 ? MS_DELTA_DELETE : MS_DELTA_ADD);
        assert_int_equal(ms_delta_queue_push(q, &d), MS_OK);
    }
    ms_delta synced = {.type = MS_DELTA_SYNCED, .kind = MS_KIND_POD};
    assert_int_equal(ms_delta_queue_push(q, &synced), MS_OK);
    assert_true(readable(fd));
    assert_int_equal(ms_delta_queue_len(q), 6);
    assert_int_equal(ms_delta_queue_pop(q, out, 4, -1), 4);
    for (int i = 0; i < 4; i++) assert_ptr_equal(out[i].obj, &c[i]);
    assert_true(readable(fd));   /* still two left */
    assert_int_equal(ms_delta_queue_pop(q, out + 4, 4, 0), 2);
    assert_int_equal(out[4].type, MS_DELTA_DELETE);
    assert_int_equal(out[5].type, MS_DELTA_SYNCED);
    assert_null(out[5].obj);
    assert_false(readable(fd));
    for (int i = 0; i < 6; i++) ms_delta_release(&out[i]);
    for (int i = 0; i < 5; i++) assert_int_equal(atomic_load(&c[i].refs), 0);
    assert_string_equal(ms_delta_type_name(MS_DELTA_SYNCED), "synced");
    assert_string_equal(ms_object_kind_name(MS_KIND_NODE), "Node");
    ms_delta_queue_free(q);
}

static void test_free_and_close_release_references(void **state) {
    (void)state;
    ms_delta_queue *q = ms_delta_queue_new();
    counted c[3] = {0};
    for (int i = 0; i < 3; i++) atomic_init(&c[i].refs, 1);
    ms_delta d[2] = {delta_of(&c[0], MS_DELTA_ADD), delta_of(&c[1], MS_DELTA_UPDATE)};
    assert_int_equal(ms_delta_queue_push_many(q, d, 2), MS_OK);
    ms_delta_queue_close(q);
    assert_true(readable(ms_delta_queue_fd(q)));
    ms_delta late = delta_of(&c[2], MS_DELTA_ADD);
    assert_int_equal(ms_delta_queue_push(q, &late), MS_ESTATE);
    assert_int_equal(atomic_load(&c[2].refs), 0);   /* refused: released */
    ms_delta out[4];
    assert_int_equal(ms_delta_queue_pop(q, out, 1, -1), 1);   /* drains after close */
    ms_delta_release(&out[0]);
    assert_int_equal(ms_delta_queue_pop(q, out, 4, -1), 1);
    ms_delta_release(&out[0]);
    double t0 = now_s();
    assert_int_equal(ms_delta_queue_pop(q, out, 4, -1), 0);   /* closed and empty: at once */
    assert_true(now_s() - t0 < 2.0);   /* the alternative is never */
    assert_true(readable(ms_delta_queue_fd(q)));
    ms_delta_queue_free(q);

    q = ms_delta_queue_new();
    atomic_init(&c[0].refs, 1);
    d[0] = delta_of(&c[0], MS_DELTA_ADD);
    ms_delta_queue_push(q, &d[0]);
    ms_delta_queue_free(q);   /* queued deltas are released */
    assert_int_equal(atomic_load(&c[0].refs), 0);
}

#define PRODUCERS 4
#define PER_PRODUCER 20000

typedef struct prod_arg {
    ms_delta_queue *q;
    counted *objs;
    int id;
} prod_arg;

static void *producer(void *arg) {
    prod_arg *a = arg;
    for (int i = 0; i < PER_PRODUCER;) {
        /* mix single pushes and pages */
        int n = i % 7 == 0 ? 1 : (PER_PRODUCER - i < 50 ? PER_PRODUCER - i : 50);
        ms_delta d[50];
        for (int k = 0; k < n; k++) {
            counted *c = &a->objs[i + k];
            c->producer = a->id;
            c->seq = i + k;
            atomic_init(&c->refs, 1);
            d[k] = delta_of(c, MS_DELTA_ADD);
        }
        assert_int_equal(ms_delta_queue_push_many(a->q, d, (size_t)n), MS_OK);
        i += n;
    }
    return NULL;
}

/* Every delta comes back once, each producer's in its order (what an
 * informer's object relies on), and the consumer is never left asleep with
 * deltas queued: it waits on the eventfd as the scheduler loop does
 * (poll_fd), or blocks in the pop as the taint eviction controller's
 * tests do. A lost wake-up shows as a 60 s wait with deltas left. The rate
 * is printed for comparison across changes, never checked. */
static void producers_consumer(bool poll_fd) {
    ms_delta_queue *q = ms_delta_queue_new();
    counted *objs = calloc(PRODUCERS * PER_PRODUCER, sizeof *objs);
    pthread_t t[PRODUCERS];
    prod_arg args[PRODUCERS];
    double t0 = now_s();
    for (int i = 0; i < PRODUCERS; i++) {
        args[i] = (prod_arg){q, objs + i * PER_PRODUCER, i};
        pthread_create(&t[i], NULL, producer, &args[i]);
    }
    int next[PRODUCERS] = {0};
    int total = 0;
    ms_delta out[256];
    while (total < PRODUCERS * PER_PRODUCER) {
        size_t n;
        if (poll_fd) {
            struct pollfd p = {.fd = ms_delta_queue_fd(q), .events = POLLIN};
            assert_int_equal(poll(&p, 1, 60000), 1);
            n = ms_delta_queue_pop(q, out, 256, 0);
        } else {
            n = ms_delta_queue_pop(q, out, 256, 60);
        }
        assert_true(n > 0);
        for (size_t i = 0; i < n; i++) {
            counted *c = out[i].obj;
            assert_int_equal(c->seq, next[c->producer]);
            next[c->producer]++;
            ms_delta_release(&out[i]);
        }
        total += (int)n;
    }
    double took = now_s() - t0;
    for (int i = 0; i < PRODUCERS; i++) pthread_join(t[i], NULL);
    print_message("delta queue, %d producers, consumer %s: %.0f deltas/s\n", PRODUCERS,
                  poll_fd ? "on the fd" : "in a blocking pop", took > 0 ? total / took : 0);
    assert_int_equal(ms_delta_queue_len(q), 0);
    for (int i = 0; i < PRODUCERS * PER_PRODUCER; i++) assert_int_equal(atomic_load(&objs[i].refs), 0);
    free(objs);
    ms_delta_queue_free(q);
}

static void test_producers_consumer_on_fd(void **state) {
    (void)state;
    producers_consumer(true);
}

static void test_producers_consumer_blocking(void **state) {
    (void)state;
    producers_consumer(false);
}

static void *late_push(void *arg) {
    struct timespec ts = {0, 50 * 1000 * 1000};
    nanosleep(&ts, NULL);
    ms_delta d = {.type = MS_DELTA_SYNCED, .kind = MS_KIND_NODE};
    ms_delta_queue_push(arg, &d);
    return NULL;
}

static void test_blocking_pop_wakes(void **state) {
    (void)state;
    ms_delta_queue *q = ms_delta_queue_new();
    pthread_t t;
    pthread_create(&t, NULL, late_push, q);
    ms_delta out[2];
    double t0 = now_s();
    assert_int_equal(ms_delta_queue_pop(q, out, 2, 10), 1);
    double waited = now_s() - t0;
    /* Woken by the push, not by the 10 s timeout it rules out: the bound
     * sits just under that, so a loaded machine cannot fail it. */
    assert_true(waited >= 0.04 && waited < 9.5);
    assert_int_equal(out[0].kind, MS_KIND_NODE);
    pthread_join(t, NULL);
    ms_delta_queue_free(q);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fifo_fd_and_timeout),
        cmocka_unit_test(test_free_and_close_release_references),
        cmocka_unit_test(test_producers_consumer_on_fd),
        cmocka_unit_test(test_producers_consumer_blocking),
        cmocka_unit_test(test_blocking_pop_wakes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
