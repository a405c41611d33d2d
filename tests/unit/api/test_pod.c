/* Pods: reference counting, the copies the cache and simulate make
 * (spec.nodeName, status.nominatedNodeName set) sharing the decoded
 * fields, and the namespace/name key. */
#include "testutil.h"

#include "fixtures.h"
#include "moonsched/pod.h"

static const char *const POD = "metadata: {name: web, namespace: shop, uid: u-1}\n"
                               "spec: {priority: 7, containers: [{name: c, resources: "
                               "{requests: {cpu: 500m}}}]}";

static void test_with_node(void **state) {
    (void)state;
    fx_env env;
    fx_env_init(&env);
    ms_pod *p = fx_pod(&env.d, POD);
    ms_str n1 = ms_intern_cstr(env.in, "n1");
    ms_pod *assumed = ms_pod_with_node(p, n1);
    assert_non_null(assumed);
    assert_int_equal(assumed->node_name, n1);
    assert_int_equal(p->node_name, MS_STR_NONE);   /* the original is untouched */
    assert_int_equal(assumed->meta.uid_hash, p->meta.uid_hash);
    assert_int_equal(assumed->priority, 7);
    /* A copy of a copy still works after the original and the first copy
     * are gone: the decoded fields live as long as any copy. */
    ms_pod *nominated = ms_pod_with_nominated_node(assumed, ms_intern_cstr(env.in, "n2"));
    ms_pod_unref(p);
    ms_pod_unref(assumed);
    assert_string_equal(ms_str_get(env.in, nominated->nominated_node_name), "n2");
    assert_string_equal(ms_str_get(env.in, nominated->meta.name), "web");
    assert_int_equal(nominated->node_name, n1);
    ms_pod *cleared = ms_pod_with_nominated_node(nominated, MS_STR_NONE);
    assert_int_equal(cleared->nominated_node_name, MS_STR_NONE);
    ms_pod_unref(nominated);
    ms_pod_unref(cleared);
    fx_env_free(&env);
}

static void test_ref_and_key(void **state) {
    (void)state;
    fx_env env;
    fx_env_init(&env);
    ms_pod *p = fx_pod(&env.d, POD);
    assert_ptr_equal(ms_pod_ref(p), p);
    ms_pod_unref(p);   /* one reference left */
    char buf[64];
    assert_int_equal(ms_pod_key(p, env.in, buf, sizeof buf), 8);
    assert_string_equal(buf, "shop/web");
    char small[5];
    ms_pod_key(p, env.in, small, sizeof small);
    assert_string_equal(small, "shop");
    assert_false(ms_pod_is_terminal(p));
    ms_pod_unref(p);
    ms_pod_unref(NULL);
    fx_env_free(&env);
}

static void test_terminal(void **state) {
    (void)state;
    fx_env env;
    fx_env_init(&env);
    ms_pod *done = fx_pod(&env.d, "metadata: {name: a}\nspec: {containers: [{name: c}]}\n"
                                  "status: {phase: Succeeded}");
    ms_pod *failed = fx_pod(&env.d, "metadata: {name: b}\nspec: {containers: [{name: c}]}\n"
                                    "status: {phase: Failed}");
    ms_pod *running = fx_pod(&env.d, "metadata: {name: c}\nspec: {containers: [{name: c}]}\n"
                                     "status: {phase: Running}");
    assert_true(ms_pod_is_terminal(done));
    assert_true(ms_pod_is_terminal(failed));
    assert_false(ms_pod_is_terminal(running));
    ms_pod_unref(done);
    ms_pod_unref(failed);
    ms_pod_unref(running);
    fx_env_free(&env);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_with_node),
        cmocka_unit_test(test_ref_and_key),
        cmocka_unit_test(test_terminal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
