/* The namespace store and the Namespace decoder. */
#include "testutil.h"

#include <cjson/cJSON.h>

#include "fixtures.h"
#include "api/namespace_store.h"

static void test_namespaces(void **state) {
    (void)state;
    fx_env fx;
    fx_env_init(&fx);
    ms_namespaces s;
    ms_namespaces_init(&s);
    static const char *const docs[] = {
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: team-a, labels: {team: a}}",
        "metadata: {name: team-b}",
        "metadata: {name: team-a, labels: {team: a2, tier: gold}}",
    };
    for (size_t i = 0; i < 3; i++) {
        cJSON **d = NULL;
        size_t nd = 0;
        ms_error err = {0};
        assert_int_equal(ms_yaml_parse(docs[i], strlen(docs[i]), &d, &nd, &err), MS_OK);
        ms_namespace *ns = NULL;
        if (ms_namespace_decode(&fx.d, d[0], &ns, &err) != MS_OK) fail_msg("%s", err.msg);
        assert_int_equal(ns->meta.namespace_, MS_STR_NONE);
        assert_int_equal(ms_namespaces_set(&s, ns), MS_OK);
        ms_namespace_unref(ns);
        cJSON_Delete(d[0]);
        free(d);
    }
    assert_int_equal(ms_namespaces_count(&s), 2);
    const ms_namespace *a = ms_namespaces_get(&s, ms_intern_cstr(fx.in, "team-a"));
    assert_non_null(a);
    assert_int_equal(a->meta.labels.n, 2);
    assert_string_equal(ms_str_get(fx.in, ms_labels_get(&a->meta.labels, ms_intern_cstr(fx.in, "team"))),
                        "a2");
    size_t it = 0;
    uint32_t seen = 0;
    while (ms_namespaces_next(&s, &it)) seen++;
    assert_int_equal(seen, 2);
    assert_int_equal(ms_namespaces_remove(&s, ms_intern_cstr(fx.in, "team-b")), MS_OK);
    assert_int_equal(ms_namespaces_remove(&s, ms_intern_cstr(fx.in, "team-b")), MS_ENOENT);
    assert_null(ms_namespaces_get(&s, ms_intern_cstr(fx.in, "team-b")));
    assert_null(ms_namespaces_get(NULL, ms_intern_cstr(fx.in, "team-a")));

    /* Errors name the object and the field. */
    static const struct {
        const char *yaml, *err;
    } bad[] = {
        {"metadata: {labels: {a: b}}", "Namespace (no name): metadata.name: Required value"},
        {"metadata: {name: x, labels: [a]}", "Namespace x: metadata.labels: expected object, got array"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cJSON **d = NULL;
        size_t nd = 0;
        ms_error err = {0};
        assert_int_equal(ms_yaml_parse(bad[i].yaml, strlen(bad[i].yaml), &d, &nd, &err), MS_OK);
        ms_namespace *ns = NULL;
        assert_int_equal(ms_namespace_decode(&fx.d, d[0], &ns, &err), MS_EINVAL);
        assert_null(ns);
        assert_string_equal(err.msg, bad[i].err);
        cJSON_Delete(d[0]);
        free(d);
    }
    ms_namespaces_free(&s);
    fx_env_free(&fx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_namespaces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
