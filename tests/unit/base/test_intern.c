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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ids_are_stable_and_dense),
        cmocka_unit_test(test_many_strings_survive_growth),
        cmocka_unit_test(test_concurrent_inserts_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
