#include "testutil.h"

#include "moonsched/intern.h"
#include "moonsched/labels.h"
#include "moonsched/resources.h"

static void test_scalar_names(void **state) {
    (void)state;
    static const struct { const char *name; bool scalar; } cases[] = {
        {"nvidia.com/gpu", true},
        {"example.com/foo", true},
        {"hugepages-2Mi", true},
        {"hugepages-1Gi", true},
        {"attachable-volumes-aws-ebs", true},
        {"kubernetes.io/something", true},
        {"requests.example.com/foo", false},
        {"cpu", false},
        {"memory", false},
        {"foo", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_int_equal(ms_resource_is_scalar_name(cases[i].name), cases[i].scalar);
}

static void test_add_sub_get(void **state) {
    (void)state;
    ms_interner *in = ms_interner_new();
    ms_resource_names rn;
    ms_resource_names_init(&rn, in);
    ms_str gpu = ms_intern_cstr(in, "nvidia.com/gpu");
    ms_str hp = ms_intern_cstr(in, "hugepages-2Mi");
    assert_int_equal(ms_resource_builtin_index(&rn, ms_intern_cstr(in, "memory")), MS_RES_MEMORY);
    assert_int_equal(ms_resource_builtin_index(&rn, gpu), -1);

    ms_scalar pod_scalar[] = {{gpu < hp ? gpu : hp, 2}, {gpu < hp ? hp : gpu, 4}};
    ms_resources pod = {.v = {500, 1 << 20, 0, 0}, .nscalar = 2, .cap = 0, .scalar = pod_scalar};
    ms_resources node = {0};
    assert_int_equal(ms_resources_add(&node, &pod), 0);
    assert_int_equal(ms_resources_add(&node, &pod), 0);
    assert_int_equal(node.v[MS_RES_CPU], 1000);
    assert_int_equal(ms_resources_get(&node, &rn, rn.builtin[MS_RES_MEMORY]), 2 << 20);
    assert_int_equal(ms_resources_scalar(&node, gpu), gpu < hp ? 4 : 8);
    assert_int_equal(ms_resources_get(&node, &rn, hp), gpu < hp ? 8 : 4);
    ms_resources_sub(&node, &pod);
    assert_int_equal(node.v[MS_RES_CPU], 500);
    assert_int_equal(ms_resources_scalar(&node, pod_scalar[0].name), 2);

    ms_resources copy = {0};
    assert_int_equal(ms_resources_copy(&copy, &node), 0);
    assert_int_equal(copy.nscalar, 2);
    assert_int_equal(ms_resources_scalar(&copy, pod_scalar[1].name), 4);
    /* an arena-owned list is read-only */
    assert_int_equal(ms_resources_set_scalar(&pod, ms_intern_cstr(in, "x.io/y"), 1), -1);
    ms_resources_clear(&copy);
    assert_int_equal(copy.nscalar, 0);
    assert_int_equal(copy.v[MS_RES_CPU], 0);
    ms_resources_free(&copy);
    ms_resources_free(&node);
    ms_interner_free(in);
}

static void test_labels_lookup_sort_subset(void **state) {
    (void)state;
    ms_label items[] = {{9, 1}, {3, 2}, {5, 3}, {3, 4}};
    ms_labels l = {4, items};
    ms_labels_sort(&l);
    assert_int_equal(l.n, 3);
    assert_int_equal(ms_labels_get(&l, 3), 4);   /* last duplicate wins */
    assert_int_equal(ms_labels_get(&l, 9), 1);
    assert_int_equal(ms_labels_get(&l, 4), MS_STR_NONE);
    assert_true(ms_labels_has(&l, 5));
    ms_label sub_items[] = {{5, 3}, {9, 1}};
    ms_labels sub = {2, sub_items};
    assert_true(ms_labels_subset(&sub, &l));
    sub_items[1].value = 2;
    assert_false(ms_labels_subset(&sub, &l));
    ms_labels empty = {0, NULL};
    assert_true(ms_labels_subset(&empty, &l));
    assert_false(ms_labels_subset(&l, &empty));
    ms_annotation an[] = {{2, "a"}, {7, "b"}};
    ms_annotations a = {2, an};
    assert_string_equal(ms_annotations_get(&a, 7), "b");
    assert_null(ms_annotations_get(&a, 3));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scalar_names),
        cmocka_unit_test(test_add_sub_get),
        cmocka_unit_test(test_labels_lookup_sort_subset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
