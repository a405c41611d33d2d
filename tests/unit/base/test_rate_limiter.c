#include "testutil.h"

#include <math.h>
#include <pthread.h>

#include "base/rate_limiter.h"

static double fake_now(void *ctx) { return *(double *)ctx; }

#define assert_near(a, b) assert_true(fabs((a) - (b)) < 1e-9)

static void test_burst_then_rate(void **state) {
    (void)state;
    double now = 100;
    ms_rate_limiter *rl = ms_rate_limiter_new(5, 3, fake_now, &now);
    /* the bucket starts full: burst requests go at once */
    for (int i = 0; i < 3; i++) assert_near(ms_rate_limiter_reserve(rl), 0);
    /* then one every 1/qps, each later caller waiting longer */
    assert_near(ms_rate_limiter_reserve(rl), 0.2);
    assert_near(ms_rate_limiter_reserve(rl), 0.4);
    assert_near(ms_rate_limiter_tokens(rl), -2);
    /* after the owed tokens come back, the bucket refills up to burst only */
    now += 0.4;
    assert_near(ms_rate_limiter_tokens(rl), 0);
    now += 10;
    assert_near(ms_rate_limiter_tokens(rl), 3);
    for (int i = 0; i < 3; i++) assert_near(ms_rate_limiter_reserve(rl), 0);
    assert_near(ms_rate_limiter_reserve(rl), 0.2);
    ms_rate_limiter_free(rl);
}

static void test_upstream_defaults(void **state) {
    (void)state;
    /* kube-scheduler's clientConnection default: qps 50, burst 100 */
    double now = 0;
    ms_rate_limiter *rl = ms_rate_limiter_new(50, 100, fake_now, &now);
    double last = 0;
    for (int i = 0; i < 150; i++) last = ms_rate_limiter_reserve(rl);
    assert_near(last, 1.0);   /* the 150th request waits 50 tokens at 50/s */
    /* a steady 50/s stream after that needs no extra wait */
    now = 1.0;
    assert_near(ms_rate_limiter_reserve(rl), 0.02);
    ms_rate_limiter_free(rl);
}

static void test_unlimited_and_small_burst(void **state) {
    (void)state;
    double now = 0;
    ms_rate_limiter *rl = ms_rate_limiter_new(0, 0, fake_now, &now);
    for (int i = 0; i < 1000; i++) assert_near(ms_rate_limiter_reserve(rl), 0);
    ms_rate_limiter_free(rl);
    assert_near(ms_rate_limiter_reserve(NULL), 0);
    rl = ms_rate_limiter_new(2, 0, fake_now, &now);   /* burst 0 counts as 1 */
    assert_near(ms_rate_limiter_reserve(rl), 0);
    assert_near(ms_rate_limiter_reserve(rl), 0.5);
    /* fractional refill */
    now = 0.75;
    assert_near(ms_rate_limiter_tokens(rl), 0.5);
    ms_rate_limiter_free(rl);
}

typedef struct shared {
    ms_rate_limiter *rl;
    double max_wait[4];
} shared;

static shared g_shared;

static void *taker(void *arg) {
    int id = (int)(intptr_t)arg;
    for (int i = 0; i < 1000; i++) {
        double w = ms_rate_limiter_reserve(g_shared.rl);
        if (w > g_shared.max_wait[id]) g_shared.max_wait[id] = w;
    }
    return NULL;
}

static void test_threads_share_one_bucket(void **state) {
    (void)state;
    static double now = 0;   /* frozen: no refill */
    g_shared.rl = ms_rate_limiter_new(1000, 10, fake_now, &now);
    pthread_t t[4];
    for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, taker, (void *)(intptr_t)i);
    for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
    /* 4000 reservations, 10 free: the last owes 3990 tokens at 1000/s */
    double max = 0;
    for (int i = 0; i < 4; i++) max = fmax(max, g_shared.max_wait[i]);
    assert_true(fabs(max - 3.990) < 1e-6);
    assert_true(fabs(ms_rate_limiter_tokens(g_shared.rl) + 3990) < 1e-6);
    ms_rate_limiter_free(g_shared.rl);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_burst_then_rate),
        cmocka_unit_test(test_upstream_defaults),
        cmocka_unit_test(test_unlimited_and_small_burst),
        cmocka_unit_test(test_threads_share_one_bucket),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
