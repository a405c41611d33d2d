#include "testutil.h"

#include <pthread.h>

#include "moonsched/intern.h"

static void test_ids_are_stable_and_dense(void **state) {
    (void)state;
    ms_interner *in = ms_interner_new();
    assert_non_null(in);
    assert_int_equal(ms_intern_cstr(in, ""), MS_STR_EMPTY);
    ms_str a = ms_intern_cstr(in, "zone");
    ms_str b = ms_intern_cstr(in, "rack");
    assert_int_not_equal(a, b);
    assert_int_equal(ms_intern_cstr(in, "zone"), a);
    assert_int_equal(ms_intern(in, "zone-a", 4), a);
    assert_string_equal(ms_str_get(in, a), "zone");
    assert_int_equal(ms_str_len(in, b), 4);
    assert_string_equal(ms_str_get(in, MS_STR_NONE), "");
    assert_int_equal(ms_intern_find(in, "nope", 4), MS_STR_NONE);
    assert_int_equal(ms_intern_find(in, "rack", 4), b);
    assert_int_equal(ms_interner_count(in), 3);
    ms_interner_free(in);
}

static void test_many_strings_survive_growth(void **state) {
    (void)state;
    ms_interner *in = ms_interner_new();
    char buf[32];
    ms_str ids[20000];
    for (int i = 0; i < 20000; i++) {
        snprintf(buf, sizeof buf, "key-%d", i);
        ids[i] = ms_intern_cstr(in, buf);
        assert_int_not_equal(ids[i], MS_STR_NONE);
    }
    for (int i = 0; i < 20000; i++) {
        snprintf(buf, sizeof buf, "key-%d", i);
        assert_int_equal(ms_intern_cstr(in, buf), ids[i]);
        assert_string_equal(ms_str_get(in, ids[i]), buf);
    }
    /* embedded NUL bytes are part of the key */
    ms_str x = ms_intern(in, "a\0b", 3);
    ms_str y = ms_intern(in, "a\0c", 3);
    assert_int_not_equal(x, y);
    assert_int_equal(ms_str_len(in, x), 3);
    ms_interner_free(in);
}

struct worker { ms_interner *in; int base; ms_str ids[2000]; };

static void *intern_worker(void *p) {
    struct worker *w = p;
    char buf[32];
    for (int i = 0; i < 2000; i++) {
        snprintf(buf, sizeof buf, "shared-%d", (i + w->base) % 2000);
        w->ids[(i + w->base) % 2000] = ms_intern_cstr(w->in, buf);
    }
    return NULL;
}

static void test_concurrent_inserts_agree(void **state) {
    (void)state;
    ms_interner *in = ms_interner_new();
    struct worker w[4];
    pthread_t t[4];
    for (int i = 0; i < 4; i++) {
        w[i].in = in;
        w[i].base = i * 500;
        pthread_create(&t[i], NULL, intern_worker, &w[i]);
    }
    for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
    for (int k = 0; k < 2000; k++)
        for (int i = 1; i < 4; i++) assert_int_equal(w[i].ids[k], w[0].ids[k]);
    assert_int_equal(ms_interner_count(in), 2001);
    ms_interner_free(in);
}

/* Counted strings go with their last reference; their ids are reused, but
 * only after many other releases. */
static void test_counted_strings_are_released(void **state) {
    (void)state;
    ms_interner *in = ms_interner_new();
    ms_str pinned = ms_intern_cstr(in, "zone");
    ms_str a = ms_intern_counted(in, "pod-a", 5);
    assert_int_equal(ms_intern_counted(in, "pod-a", 5), a);   /* a second reference */
    ms_str_retain(in, a);                                       /* a third */
    ms_str_release(in, a);
    ms_str_release(in, a);
    assert_int_equal(ms_intern_find(in, "pod-a", 5), a);
    assert_int_equal(ms_interner_live(in), 3);
    ms_str_release(in, a);
    assert_int_equal(ms_intern_find(in, "pod-a", 5), MS_STR_NONE);
    assert_int_equal(ms_interner_live(in), 2);
    /* the text stays readable until the id is reused */
    assert_string_equal(ms_str_get(in, a), "pod-a");
    /* strings interned for good are not counted */
    assert_int_equal(ms_intern_counted(in, "zone", 4), pinned);
    ms_str_release(in, pinned);
    ms_str_release(in, pinned);
    assert_int_equal(ms_intern_find(in, "zone", 4), pinned);
    /* a counted string interned for good as well stays */
    ms_str b = ms_intern_counted(in, "shared", 6);
    assert_int_equal(ms_intern_cstr(in, "shared"), b);
    ms_str_release(in, b);
    assert_int_equal(ms_intern_find(in, "shared", 6), b);
    ms_interner_free(in);
}

/* A million short-lived names, a hundred alive at a time: the ids stay
 * bounded by the live strings plus those waiting for reuse, and every live
 * string (and every one interned for good) is found through the deletions. */
static void test_churn_reuses_ids(void **state) {
    (void)state;
    ms_interner *in = ms_interner_new();
    char buf[32];
    ms_str keep[50], ring[100] = {0};
    for (int i = 0; i < 50; i++) {
        snprintf(buf, sizeof buf, "key-%d", i);
        keep[i] = ms_intern_cstr(in, buf);
    }
    uint32_t high = 0;
    for (int i = 0; i < 1000000; i++) {
        if (ring[i % 100]) ms_str_release(in, ring[i % 100]);
        int n = snprintf(buf, sizeof buf, "pod-%d", i);
        ring[i % 100] = ms_intern_counted(in, buf, (size_t)n);
        assert_int_not_equal(ring[i % 100], MS_STR_NONE);
        if (i == 10000) high = ms_interner_count(in);
    }
    assert_true(ms_interner_count(in) == high);
    assert_true(high < 50 + 100 + 2 * 1024 + 2);
    assert_int_equal(ms_interner_live(in), 1 + 50 + 100);
    for (int i = 1000000 - 100; i < 1000000; i++) {
        int n = snprintf(buf, sizeof buf, "pod-%d", i);
        assert_int_equal(ms_intern_find(in, buf, (size_t)n), ring[i % 100]);
        assert_string_equal(ms_str_get(in, ring[i % 100]), buf);
    }
    for (int i = 0; i < 50; i++) {
        snprintf(buf, sizeof buf, "key-%d", i);
        assert_int_equal(ms_intern_find(in, buf, strlen(buf)), keep[i]);
    }
    snprintf(buf, sizeof buf, "pod-%d", 5);
    assert_int_equal(ms_intern_find(in, buf, strlen(buf)), MS_STR_NONE);
    ms_interner_free(in);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ids_are_stable_and_dense),
        cmocka_unit_test(test_many_strings_survive_growth),
        cmocka_unit_test(test_concurrent_inserts_agree),
        cmocka_unit_test(test_counted_strings_are_released),
        cmocka_unit_test(test_churn_reuses_ids),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
