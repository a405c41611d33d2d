/* Decoding Services, ReplicationControllers, ReplicaSets and StatefulSets:
 * the selector each kind has (a map, or a metav1.LabelSelector) and errors
 * that name the object and the field. */
#include "testutil.h"

#include "codec/decode_workload.h"
#include "fixtures.h"

FX_DECODER_FIXTURE

static ms_workload *decode(ms_workload_kind kind, const char *text) { return fx_workload(&env.d, (int)kind, text); }

static const char *error_of(ms_workload_kind kind, const char *text) {
    static ms_error err;
    cJSON *doc = fx_yaml(text);
    ms_workload *w = NULL;
    assert_int_equal(ms_workload_decode(&env.d, kind, doc, &w, &err), MS_EINVAL);
    assert_null(w);
    cJSON_Delete(doc);
    return err.msg;
}

static void test_map_selectors(void **state) {
    (void)state;
    ms_workload *w = decode(MS_WK_SERVICE, "apiVersion: v1\nkind: Service\n"
                                           "metadata: {name: web, namespace: shop}\n"
                                           "spec: {selector: {tier: front, app: web}, ports: [{port: 80}]}");
    assert_int_equal(w->kind, MS_WK_SERVICE);
    assert_string_equal(T(w->meta.namespace_), "shop");
    assert_string_equal(T(w->meta.name), "web");
    assert_int_equal(w->match.n, 2);
    assert_int_equal(w->selector.n, 0);
    ms_workload_unref(w);

    /* no selector: a Service of manual endpoints, which selects nothing */
    w = decode(MS_WK_SERVICE, "metadata: {name: ext}\nspec: {type: ExternalName, externalName: a.example}");
    assert_string_equal(T(w->meta.namespace_), "default");
    assert_int_equal(w->match.n, 0);
    ms_workload_unref(w);

    w = decode(MS_WK_REPLICATION_CONTROLLER, "metadata: {name: rc}\nspec: {replicas: 3, selector: {app: old}}");
    assert_int_equal(w->kind, MS_WK_REPLICATION_CONTROLLER);
    assert_int_equal(w->match.n, 1);
    assert_string_equal(T(w->match.items[0].value), "old");
    ms_workload_unref(w);
}

static void test_label_selectors(void **state) {
    (void)state;
    ms_workload *w = decode(MS_WK_REPLICA_SET,
                            "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: rs}\n"
                            "spec: {selector: {matchLabels: {app: web}, matchExpressions: "
                            "[{key: track, operator: NotIn, values: [canary]}]}}");
    assert_int_equal(w->kind, MS_WK_REPLICA_SET);
    assert_int_equal(w->match.n, 0);
    assert_false(w->selector.nothing);
    assert_int_equal(w->selector.n, 2);
    ms_workload_unref(w);

    /* an operator the API server would refuse compiles to "nothing" */
    w = decode(MS_WK_STATEFUL_SET, "metadata: {name: db}\nspec: {selector: {matchExpressions: "
                                   "[{key: app, operator: Near, values: [db]}]}}");
    assert_true(w->selector.nothing);
    ms_workload_unref(w);

    w = decode(MS_WK_STATEFUL_SET, "metadata: {name: db}\nspec: {}");
    assert_true(w->selector.nothing);
    ms_workload_unref(w);
}

static void test_errors(void **state) {
    (void)state;
    assert_string_equal(error_of(MS_WK_SERVICE, "metadata: {name: web}\nspec: {selector: {app: 1}}"),
                        "Service default/web: spec.selector.app: expected string, got number");
    assert_string_equal(error_of(MS_WK_REPLICATION_CONTROLLER, "metadata: {name: rc}\nspec: {selector: [app]}"),
                        "ReplicationController default/rc: spec.selector: expected object, got array");
    assert_string_equal(error_of(MS_WK_REPLICA_SET,
                                 "metadata: {name: rs, namespace: a}\nspec: {selector: {matchLabels: [x]}}"),
                        "ReplicaSet a/rs: spec.selector.matchLabels: expected object, got array");
    assert_string_equal(error_of(MS_WK_STATEFUL_SET, "metadata: {name: ss}\nspec: 3"),
                        "StatefulSet default/ss: spec: expected object, got number");
    assert_string_equal(error_of(MS_WK_SERVICE, "[]"), "Service: expected an object, got array");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_map_selectors),
        cmocka_unit_test(test_label_selectors),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, fx_group_setup, fx_group_teardown);
}
