/* The per-namespace object set behind the PDB and workload sets: keys by
 * kind/namespace/name, the namespace lists, replacement in place and
 * release of every item. */
#include "testutil.h"

#include "api/object_set.h"

static bool listed(const ms_object_set *s, ms_str ns, const void *item) {
    uint32_t n;
    void *const *l = ms_object_set_in(s, ns, &n);
    for (uint32_t i = 0; i < n; i++)
        if (l[i] == item) return true;
    return false;
}

static void count(void *ctx, void *item) {
    (void)item;
    (*(int *)ctx)++;
}

/* Items are counters of their own releases. */
static void release(void *item) { (*(int *)item)++; }

static void test_keys_and_lists(void **state) {
    (void)state;
    int a = 0, b = 0, c = 0, d = 0;
    ms_object_set s;
    ms_object_set_init(&s);
    /* namespaces 1 and 2, names 10 and 11 */
    assert_int_equal(ms_object_set_add(&s, 0, 1, 10, &a), MS_OK);
    /* same namespace/name, another kind: another key */
    assert_int_equal(ms_object_set_add(&s, 3, 1, 10, &b), MS_OK);
    assert_int_equal(ms_object_set_add(&s, 0, 2, 10, &c), MS_OK);
    assert_int_equal(ms_object_set_add(&s, MS_OBJECT_SET_KINDS, 1, 11, &d), MS_EINVAL);
    assert_int_equal(s.len, 3);
    assert_ptr_equal(ms_object_set_get(&s, 0, 1, 10), &a);
    assert_ptr_equal(ms_object_set_get(&s, 3, 1, 10), &b);
    assert_null(ms_object_set_get(&s, 1, 1, 10));
    assert_null(ms_object_set_get(&s, MS_OBJECT_SET_KINDS, 1, 10));
    uint32_t n;
    ms_object_set_in(&s, 1, &n);
    assert_int_equal(n, 2);
    assert_true(listed(&s, 1, &a) && listed(&s, 1, &b) && listed(&s, 2, &c) && !listed(&s, 2, &a));

    /* replaced in place, the old item handed back */
    assert_ptr_equal(ms_object_set_replace(&s, 0, 1, 10, &d), &a);
    assert_true(listed(&s, 1, &d) && !listed(&s, 1, &a));
    assert_ptr_equal(ms_object_set_get(&s, 0, 1, 10), &d);
    assert_int_equal(s.len, 3);
    assert_null(ms_object_set_replace(&s, 0, 1, 11, &a));

    /* a namespace's last item takes its list with it */
    assert_ptr_equal(ms_object_set_remove(&s, 0, 2, 10), &c);
    assert_null(ms_object_set_in(&s, 2, &n));
    assert_int_equal(n, 0);
    assert_null(ms_object_set_remove(&s, 0, 2, 10));
    assert_int_equal(s.len, 2);

    int seen = 0;
    ms_object_set_each(&s, count, &seen);
    assert_int_equal(seen, 2);
    ms_object_set_free(&s, release);
    assert_true(a == 0 && b == 1 && c == 0 && d == 1);
}

static void test_many_in_one_namespace(void **state) {
    (void)state;
    /* past the lists' first capacity, removed from the middle */
    enum { N = 100 };
    int items[N];
    ms_object_set s;
    ms_object_set_init(&s);
    for (int i = 0; i < N; i++) assert_int_equal(ms_object_set_add(&s, 0, 7, (ms_str)(100 + i), &items[i]), MS_OK);
    for (int i = 0; i < N; i += 2) assert_ptr_equal(ms_object_set_remove(&s, 0, 7, (ms_str)(100 + i)), &items[i]);
    uint32_t n;
    ms_object_set_in(&s, 7, &n);
    assert_int_equal(n, N / 2);
    for (int i = 0; i < N; i++) assert_int_equal(listed(&s, 7, &items[i]), i % 2 == 1);
    ms_object_set_free(&s, NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keys_and_lists),
        cmocka_unit_test(test_many_in_one_namespace),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
