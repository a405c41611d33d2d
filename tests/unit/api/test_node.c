/* Nodes: a new node is empty with one reference, and references keep it
 * alive. */
#include "testutil.h"

#include "fixtures.h"
#include "moonsched/node.h"

static void test_alloc_ref_unref(void **state) {
    (void)state;
    ms_node *n = ms_node_alloc();
    assert_non_null(n);
    assert_int_equal(atomic_load(&n->refs), 1);
    assert_int_equal(n->meta.name, MS_STR_NONE);
    assert_int_equal(n->ntaints, 0);
    assert_false(n->unschedulable);
    assert_ptr_equal(ms_node_ref(n), n);
    assert_int_equal(atomic_load(&n->refs), 2);
    ms_node_unref(n);
    ms_node_unref(n);
    ms_node_unref(NULL);
}

/* A decoded node's fields live in its arena until the last reference goes. */
static void test_decoded_node_outlives_its_first_reference(void **state) {
    (void)state;
    fx_env env;
    fx_env_init(&env);
    ms_node *n = fx_node(&env.d, "metadata: {name: n1, labels: {zone: a}}\n"
                                 "spec: {unschedulable: true, taints: [{key: k, effect: NoSchedule}]}");
    ms_node *held = ms_node_ref(n);
    ms_node_unref(n);
    assert_string_equal(ms_str_get(env.in, held->meta.name), "n1");
    assert_true(held->unschedulable);
    assert_int_equal(held->ntaints, 1);
    assert_int_equal(held->meta.labels.n, 1);
    ms_node_unref(held);
    fx_env_free(&env);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alloc_ref_unref),
        cmocka_unit_test(test_decoded_node_outlives_its_first_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
