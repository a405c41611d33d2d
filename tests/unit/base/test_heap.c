#include "testutil.h"

#include "base/heap.h"

typedef struct item {
    int key;
    int id;
    int32_t idx;
} item;

static bool key_less(void *ctx, const void *a, const void *b) {
    (void)ctx;
    const item *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key;
    return x->id < y->id;
}

/* The heap property and every element's recorded position. */
static void check_heap(const ms_heap *h) {
    for (uint32_t i = 0; i < h->len; i++) {
        const item *it = h->items[i];
        assert_int_equal(it->idx, (int32_t)i);
        if (i > 0) assert_false(key_less(NULL, it, h->items[(i - 1) / 2]));
    }
}

static void init_items(item *v, int n) {
    for (int i = 0; i < n; i++) {
        v[i].key = (i * 7919) % 1000;   /* a permutation-ish spread with repeats */
        v[i].id = i;
        v[i].idx = -1;
    }
}

static void test_push_pop_sorted(void **state) {
    (void)state;
    enum { N = 2000 };
    static item v[N];
    init_items(v, N);
    ms_heap h;
    ms_heap_init(&h, key_less, NULL, offsetof(item, idx));
    assert_null(ms_heap_peek(&h));
    assert_null(ms_heap_pop(&h));
    for (int i = 0; i < N; i++) assert_int_equal(ms_heap_push(&h, &v[i]), MS_OK);
    assert_int_equal(ms_heap_len(&h), N);
    check_heap(&h);
    const item *prev = NULL;
    for (int i = 0; i < N; i++) {
        item *it = ms_heap_pop(&h);
        assert_non_null(it);
        assert_int_equal(it->idx, -1);
        if (prev) assert_true(key_less(NULL, prev, it));
        prev = it;
    }
    assert_int_equal(ms_heap_len(&h), 0);
    ms_heap_free(&h);
}

static void test_small_example(void **state) {
    (void)state;
    item v[5] = {{5, 0, -1}, {1, 1, -1}, {4, 2, -1}, {2, 3, -1}, {3, 4, -1}};
    ms_heap h;
    ms_heap_init(&h, key_less, NULL, offsetof(item, idx));
    for (int i = 0; i < 5; i++) ms_heap_push(&h, &v[i]);
    assert_ptr_equal(ms_heap_peek(&h), &v[1]);
    int want[] = {1, 2, 3, 4, 5};
    for (int i = 0; i < 5; i++) assert_int_equal(((item *)ms_heap_pop(&h))->key, want[i]);
    ms_heap_free(&h);
}

static void test_remove_arbitrary(void **state) {
    (void)state;
    enum { N = 500 };
    static item v[N];
    init_items(v, N);
    ms_heap h;
    ms_heap_init(&h, key_less, NULL, offsetof(item, idx));
    for (int i = 0; i < N; i++) ms_heap_push(&h, &v[i]);
    for (int i = 0; i < N; i += 3) {
        assert_true(ms_heap_remove(&h, &v[i]));
        assert_int_equal(v[i].idx, -1);
        assert_false(ms_heap_contains(&h, &v[i]));
        check_heap(&h);
    }
    /* removing twice is refused */
    assert_false(ms_heap_remove(&h, &v[0]));
    assert_int_equal(ms_heap_len(&h), N - (N + 2) / 3);
    int popped = 0;
    const item *prev = NULL;
    for (item *it; (it = ms_heap_pop(&h)); popped++) {
        assert_true(it->id % 3 != 0);
        if (prev) assert_true(key_less(NULL, prev, it));
        prev = it;
    }
    assert_int_equal(popped, N - (N + 2) / 3);
    ms_heap_free(&h);
}

static void test_fix_after_key_change(void **state) {
    (void)state;
    enum { N = 300 };
    static item v[N];
    init_items(v, N);
    ms_heap h;
    ms_heap_init(&h, key_less, NULL, offsetof(item, idx));
    for (int i = 0; i < N; i++) ms_heap_push(&h, &v[i]);
    /* lower one key below all others, raise another above all */
    v[150].key = -5;
    assert_true(ms_heap_fix(&h, &v[150]));
    v[0].key = 5000;
    assert_true(ms_heap_fix(&h, &v[0]));
    check_heap(&h);
    assert_ptr_equal(ms_heap_pop(&h), &v[150]);
    item *last = NULL;
    for (item *it; (it = ms_heap_pop(&h));) last = it;
    assert_ptr_equal(last, &v[0]);
    item lone = {1, 1, -1};
    assert_false(ms_heap_fix(&h, &lone));
    ms_heap_free(&h);
}

/* An element's recorded index may point at a slot of another heap: contains
 * must compare the element itself. */
static void test_two_heaps_share_index_field(void **state) {
    (void)state;
    item a = {1, 0, -1}, b = {2, 1, -1};
    ms_heap h1, h2;
    ms_heap_init(&h1, key_less, NULL, offsetof(item, idx));
    ms_heap_init(&h2, key_less, NULL, offsetof(item, idx));
    ms_heap_push(&h1, &a);
    ms_heap_push(&h2, &b);
    assert_int_equal(a.idx, 0);
    assert_int_equal(b.idx, 0);
    assert_false(ms_heap_contains(&h2, &a));
    assert_false(ms_heap_remove(&h2, &a));
    assert_int_equal(ms_heap_len(&h2), 1);
    assert_true(ms_heap_remove(&h1, &a));
    assert_int_equal(ms_heap_len(&h1), 0);
    ms_heap_free(&h1);
    ms_heap_free(&h2);
}

static int ctx_calls;
static bool counting_greater(void *ctx, const void *a, const void *b) {
    int *calls = ctx;
    (*calls)++;
    return ((const item *)a)->key > ((const item *)b)->key;
}

static void test_context_and_max_heap(void **state) {
    (void)state;
    item v[4] = {{3, 0, -1}, {9, 1, -1}, {1, 2, -1}, {7, 3, -1}};
    ms_heap h;
    ctx_calls = 0;
    ms_heap_init(&h, counting_greater, &ctx_calls, offsetof(item, idx));
    assert_int_equal(ms_heap_reserve(&h, 100), MS_OK);
    assert_true(h.cap >= 100);
    for (int i = 0; i < 4; i++) ms_heap_push(&h, &v[i]);
    assert_true(ctx_calls > 0);
    int want[] = {9, 7, 3, 1};
    for (int i = 0; i < 4; i++) assert_int_equal(((item *)ms_heap_pop(&h))->key, want[i]);
    ms_heap_free(&h);
}

/* Random interleaving of push, pop, remove and fix against a brute-force model. */
static void test_random_against_model(void **state) {
    (void)state;
    enum { N = 400 };
    static item v[N];
    static bool in[N];
    init_items(v, N);
    memset(in, 0, sizeof in);
    ms_heap h;
    ms_heap_init(&h, key_less, NULL, offsetof(item, idx));
    uint64_t r = 12345;
    for (int step = 0; step < 20000; step++) {
        r = r * 6364136223846793005ULL + 1442695040888963407ULL;
        int i = (int)((r >> 33) % N);
        int op = (int)((r >> 20) % 4);
        if (op == 0 && !in[i]) {
            ms_heap_push(&h, &v[i]);
            in[i] = true;
        } else if (op == 1 && in[i]) {
            assert_true(ms_heap_remove(&h, &v[i]));
            in[i] = false;
        } else if (op == 2 && in[i]) {
            v[i].key = (int)((r >> 40) % 1000);
            ms_heap_fix(&h, &v[i]);
        } else if (op == 3) {
            item *best = NULL;
            for (int k = 0; k < N; k++)
                if (in[k] && (!best || key_less(NULL, &v[k], best))) best = &v[k];
            item *got = ms_heap_pop(&h);
            assert_ptr_equal(got, best);
            if (got) in[got->id] = false;
        }
    }
    check_heap(&h);
    ms_heap_free(&h);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_push_pop_sorted),
        cmocka_unit_test(test_small_example),
        cmocka_unit_test(test_remove_arbitrary),
        cmocka_unit_test(test_fix_after_key_change),
        cmocka_unit_test(test_two_heaps_share_index_field),
        cmocka_unit_test(test_context_and_max_heap),
        cmocka_unit_test(test_random_against_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
