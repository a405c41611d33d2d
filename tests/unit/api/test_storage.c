/* Storage objects: kind names, lifetime of copies, a PV's node affinity
 * and the in-tree plugin table. */
#include "testutil.h"

#include "api/storage.h"
#include "fixtures.h"

static void test_kind_names(void **state) {
    (void)state;
    for (int k = 0; k < MS_SK_COUNT; k++)
        assert_int_equal(ms_storage_kind_from_name(ms_storage_kind_name((ms_storage_kind)k)), k);
    assert_string_equal(ms_storage_kind_name(MS_SK_PVC), "PersistentVolumeClaim");
    assert_null(ms_storage_kind_name(MS_SK_COUNT));
    assert_int_equal(ms_storage_kind_from_name("Pod"), -1);
    assert_int_equal(ms_storage_kind_from_name(NULL), -1);
}

static void test_copy_and_affinity(void **state) {
    (void)state;
    fx_env env;
    fx_env_init(&env);
    ms_storage_object *pv = fx_storage(&env.d, MS_SK_PV,
                                       "metadata: {name: local-1}\n"
                                       "spec: {nodeAffinity: {required: {nodeSelectorTerms: [{matchExpressions:"
                                       " [{key: kubernetes.io/hostname, operator: In, values: [n1]}]}]}}}");
    ms_storage_object *copy = ms_storage_copy(pv);
    ms_storage_object *copy2 = ms_storage_copy(copy);
    /* copies keep what they were copied from alive */
    assert_ptr_equal(copy2->base, copy);
    assert_ptr_equal(copy->base, pv);
    ms_storage_unref(pv);
    ms_labels l1 = {0}, l2 = {0};
    ms_str key = ms_intern_cstr(env.in, "kubernetes.io/hostname");
    ms_label one = {key, ms_intern_cstr(env.in, "n1")}, two = {key, ms_intern_cstr(env.in, "n2")};
    l1.n = l2.n = 1;
    l1.items = &one;
    l2.items = &two;
    assert_true(ms_pv_matches_node(&copy2->u.pv, &l1, ms_intern_cstr(env.in, "n1"), env.in));
    assert_false(ms_pv_matches_node(&copy->u.pv, &l2, ms_intern_cstr(env.in, "n2"), env.in));
    ms_storage_unref(copy);
    ms_storage_unref(copy2);
    ms_storage_object *any = fx_storage(&env.d, MS_SK_PV, "metadata: {name: nfs}\nspec: {nfs: {server: s, path: /}}");
    assert_true(ms_pv_matches_node(&any->u.pv, &l2, MS_STR_NONE, env.in));
    ms_storage_unref(any);
    fx_env_free(&env);
}

static void test_intree_plugins(void **state) {
    (void)state;
    assert_string_equal(ms_intree_plugin_name(MS_INTREE_GCE_PD), "kubernetes.io/gce-pd");
    assert_string_equal(ms_intree_csi_driver(MS_INTREE_AWS_EBS), "ebs.csi.aws.com");
    assert_string_equal(ms_intree_csi_driver(MS_INTREE_PORTWORX), "pxd.portworx.com");
    assert_null(ms_intree_plugin_name(MS_INTREE_NONE));
    assert_null(ms_intree_csi_driver(200));
    assert_true(ms_access_modes_contain(MS_ACCESS_RWO | MS_ACCESS_ROX, MS_ACCESS_RWO));
    assert_false(ms_access_modes_contain(MS_ACCESS_RWO, MS_ACCESS_RWO | MS_ACCESS_RWX));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kind_names),
        cmocka_unit_test(test_copy_and_affinity),
        cmocka_unit_test(test_intree_plugins),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
