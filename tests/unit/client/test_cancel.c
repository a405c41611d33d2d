/* The cancel token (core/client/cancel.c): sticky once fired, and a
 * sleep ends as soon as it fires. Cancelling transfers is tested with
 * the client. */
#include "testutil.h"

#include <pthread.h>

#include "fake_http.h"
#include "client/kube_client.h"

static void *fire_later(void *arg) {
    fh_sleep(0.05);
    ms_kube_cancel_fire(arg);
    return NULL;
}

static void test_sleep_woken(void **state) {
    (void)state;
    ms_kube_cancel *c = ms_kube_cancel_new();
    assert_false(ms_kube_cancel_fired(c));
    assert_false(ms_kube_cancel_sleep(c, 0.01));
    pthread_t t;
    pthread_create(&t, NULL, fire_later, c);
    double t0 = fh_now();
    assert_true(ms_kube_cancel_sleep(c, 10));
    assert_true(fh_now() - t0 < 1);
    pthread_join(t, NULL);
    /* sticky: later sleeps end at once */
    assert_true(ms_kube_cancel_fired(c));
    assert_true(ms_kube_cancel_sleep(c, 10));
    assert_true(ms_kube_cancel_sleep(c, 0));
    ms_kube_cancel_free(c);
}

static void test_no_token(void **state) {
    (void)state;
    assert_false(ms_kube_cancel_fired(NULL));
    assert_false(ms_kube_cancel_sleep(NULL, 0.01));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sleep_woken),
        cmocka_unit_test(test_no_token),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
