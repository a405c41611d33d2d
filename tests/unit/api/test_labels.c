/* Label sets: sorted by key with the last of repeated keys kept, lookups
 * by key id, the subset test a nodeSelector match is, and annotations. */
#include "testutil.h"

#include "moonsched/intern.h"
#include "moonsched/labels.h"

static void test_sort_get_has(void **state) {
    (void)state;
    ms_interner *in = ms_interner_new();
    ms_str app = ms_intern_cstr(in, "app"), tier = ms_intern_cstr(in, "tier"),
           zone = ms_intern_cstr(in, "zone");
    ms_label items[] = {{zone, ms_intern_cstr(in, "a")},
                        {app, ms_intern_cstr(in, "web")},
                        {tier, ms_intern_cstr(in, "front")},
                        {app, ms_intern_cstr(in, "api")}};
    ms_labels l = {4, items};
    ms_labels_sort(&l);
    assert_int_equal(l.n, 3);
    for (uint32_t i = 1; i < l.n; i++) assert_true(l.items[i - 1].key < l.items[i].key);
    /* The last of repeated keys wins, as in a JSON object read twice. */
    assert_int_equal(ms_labels_get(&l, app), ms_intern_cstr(in, "api"));
    assert_int_equal(ms_labels_get(&l, tier), ms_intern_cstr(in, "front"));
    assert_true(ms_labels_has(&l, zone));
    assert_false(ms_labels_has(&l, ms_intern_cstr(in, "missing")));
    ms_labels empty = {0, NULL};
    assert_int_equal(ms_labels_get(&empty, app), MS_STR_NONE);
    ms_interner_free(in);
}

static void test_subset(void **state) {
    (void)state;
    ms_interner *in = ms_interner_new();
    ms_str k1 = ms_intern_cstr(in, "disktype"), k2 = ms_intern_cstr(in, "zone");
    ms_str ssd = ms_intern_cstr(in, "ssd"), hdd = ms_intern_cstr(in, "hdd"), a = ms_intern_cstr(in, "a");
    ms_label node_items[] = {{k1, ssd}, {k2, a}};
    ms_labels node = {2, node_items};
    ms_labels_sort(&node);
    ms_label want_ssd[] = {{k1, ssd}};
    ms_label want_hdd[] = {{k1, hdd}};
    ms_label want_both[] = {{k2, a}, {k1, ssd}};
    ms_label want_other[] = {{ms_intern_cstr(in, "gpu"), ssd}};
    ms_labels s1 = {1, want_ssd}, s2 = {1, want_hdd}, s3 = {2, want_both}, s4 = {1, want_other};
    ms_labels_sort(&s3);
    ms_labels none = {0, NULL};
    assert_true(ms_labels_subset(&s1, &node));
    assert_false(ms_labels_subset(&s2, &node));     /* same key, another value */
    assert_true(ms_labels_subset(&s3, &node));
    assert_false(ms_labels_subset(&s4, &node));     /* a key the node lacks */
    assert_true(ms_labels_subset(&none, &node));    /* an empty selector matches */
    assert_false(ms_labels_subset(&s1, &none));
    ms_interner_free(in);
}

static void test_annotations(void **state) {
    (void)state;
    ms_interner *in = ms_interner_new();
    ms_str a = ms_intern_cstr(in, "a"), b = ms_intern_cstr(in, "b");
    ms_annotation items[2] = {{a, "1"}, {b, "two"}};
    if (items[0].key > items[1].key) {
        ms_annotation t = items[0];
        items[0] = items[1];
        items[1] = t;
    }
    ms_annotations an = {2, items};
    assert_string_equal(ms_annotations_get(&an, a), "1");
    assert_string_equal(ms_annotations_get(&an, b), "two");
    assert_null(ms_annotations_get(&an, ms_intern_cstr(in, "c")));
    ms_interner_free(in);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sort_get_has),
        cmocka_unit_test(test_subset),
        cmocka_unit_test(test_annotations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
