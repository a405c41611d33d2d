/* ObjectMeta: the controller among a pod's owner references. */
#include "testutil.h"

#include "fixtures.h"
#include "moonsched/meta.h"

static void test_controller(void **state) {
    (void)state;
    fx_env env;
    fx_env_init(&env);
    ms_pod *owned = fx_pod(&env.d,
                           "metadata: {name: p, namespace: default, ownerReferences: ["
                           "{apiVersion: v1, kind: ConfigMap, name: cm, uid: u1},"
                           "{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: u2, controller: true}]}\n"
                           "spec: {containers: [{name: c}]}");
    const ms_owner_ref *c = ms_meta_controller(&owned->meta);
    assert_non_null(c);
    assert_string_equal(ms_str_get(env.in, c->kind), "ReplicaSet");
    assert_string_equal(ms_str_get(env.in, c->name), "rs");
    assert_string_equal(c->uid, "u2");

    ms_pod *no_controller = fx_pod(&env.d,
                                   "metadata: {name: q, ownerReferences: ["
                                   "{apiVersion: v1, kind: ConfigMap, name: cm, uid: u1}]}\n"
                                   "spec: {containers: [{name: c}]}");
    assert_null(ms_meta_controller(&no_controller->meta));
    ms_pod *bare = fx_pod(&env.d, "metadata: {name: r}\nspec: {containers: [{name: c}]}");
    assert_null(ms_meta_controller(&bare->meta));
    ms_pod_unref(owned);
    ms_pod_unref(no_controller);
    ms_pod_unref(bare);
    fx_env_free(&env);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_controller),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
