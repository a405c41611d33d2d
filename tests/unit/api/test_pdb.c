/* PodDisruptionBudgets: decoding both API versions, the scheduler's
 * matching rule, the set, and the disruption budget preemption charges. */
#include "testutil.h"
#include "fixtures.h"

#include "api/pdb_set.h"
#include "moonsched/pdb.h"

static ms_rc decode(fx_env *e, const char *yaml, ms_pdb **out, ms_error *err) {
    cJSON **docs = NULL;
    size_t ndocs = 0;
    ms_rc rc = ms_yaml_parse(yaml, strlen(yaml), &docs, &ndocs, err);
    if (rc == MS_OK) rc = ms_pdb_decode(&e->d, docs[0], out, err);
    for (size_t i = 0; i < ndocs; i++) cJSON_Delete(docs[i]);
    free(docs);
    return rc;
}

static ms_pdb *pdb(fx_env *e, const char *yaml) {
    ms_error err = {0};
    ms_pdb *p = NULL;
    if (decode(e, yaml, &p, &err) != MS_OK) fail_msg("%s", err.msg);
    return p;
}

static ms_str id(fx_env *e, const char *s) { return ms_intern_cstr(e->in, s); }

static void test_decode_v1(void **state) {
    (void)state;
    fx_env e;
    fx_env_init(&e);
    ms_pdb *p = pdb(&e, "apiVersion: policy/v1\nkind: PodDisruptionBudget\n"
                        "metadata: {name: web, namespace: shop, uid: u-1, resourceVersion: '42'}\n"
                        "spec:\n  minAvailable: 2\n  selector:\n    matchLabels: {app: web}\n"
                        "    matchExpressions: [{key: tier, operator: In, values: [front]}]\n"
                        "status:\n  disruptionsAllowed: 1\n  currentHealthy: 3\n  desiredHealthy: 2\n"
                        "  expectedPods: 3\n  observedGeneration: 7\n"
                        "  disruptedPods: {web-2: '2024-01-01T00:00:00Z', web-0: '2024-01-01T00:00:01Z'}\n");
    assert_int_equal(p->refs, 1);
    assert_int_equal(p->api_version, MS_PDB_POLICY_V1);
    assert_string_equal(ms_str_get(e.in, p->meta.name), "web");
    assert_string_equal(ms_str_get(e.in, p->meta.namespace_), "shop");
    assert_string_equal(p->meta.uid, "u-1");
    assert_false(p->selector.nothing);
    assert_false(p->selector_empty);
    assert_int_equal(p->selector.n, 2);
    assert_true(p->min_available.set);
    assert_false(p->min_available.percent);
    assert_int_equal(p->min_available.value, 2);
    assert_false(p->max_unavailable.set);
    assert_int_equal(p->disruptions_allowed, 1);
    assert_int_equal(p->current_healthy, 3);
    assert_int_equal(p->desired_healthy, 2);
    assert_int_equal(p->expected_pods, 3);
    assert_int_equal(p->ndisrupted, 2);
    assert_true(p->disrupted_pods[0] < p->disrupted_pods[1]);   /* sorted for lookups */
    assert_true(ms_pdb_disrupted(p, id(&e, "web-0")));
    assert_true(ms_pdb_disrupted(p, id(&e, "web-2")));
    assert_false(ms_pdb_disrupted(p, id(&e, "web-1")));
    assert_false(ms_pdb_disrupted(p, MS_STR_NONE));
    ms_pdb_unref(p);
    fx_env_free(&e);
}

static void test_decode_v1beta1_and_defaults(void **state) {
    (void)state;
    fx_env e;
    fx_env_init(&e);
    /* The shape kubectl prints for policy/v1beta1; no namespace means
     * "default"; maxUnavailable as a percentage. */
    ms_pdb *p = pdb(&e, "{\"apiVersion\": \"policy/v1beta1\", \"kind\": \"PodDisruptionBudget\","
                        "\"metadata\": {\"name\": \"db\"},"
                        "\"spec\": {\"maxUnavailable\": \"25%\", \"selector\": {}},"
                        "\"status\": {\"disruptionsAllowed\": 0, \"disruptedPods\": null}}");
    assert_int_equal(p->api_version, MS_PDB_POLICY_V1BETA1);
    assert_string_equal(ms_str_get(e.in, p->meta.namespace_), "default");
    assert_true(p->max_unavailable.set);
    assert_true(p->max_unavailable.percent);
    assert_int_equal(p->max_unavailable.value, 25);
    assert_true(p->selector_empty);
    assert_false(p->selector.nothing);
    assert_int_equal(p->ndisrupted, 0);
    ms_pdb_unref(p);

    /* No apiVersion: policy/v1. No selector, no status. */
    p = pdb(&e, "metadata: {name: bare, namespace: x}\nspec: {minAvailable: '100%'}");
    assert_int_equal(p->api_version, MS_PDB_POLICY_V1);
    assert_true(p->selector.nothing);
    assert_false(p->selector_empty);
    assert_true(p->min_available.percent);
    assert_int_equal(p->min_available.value, 100);
    assert_int_equal(p->disruptions_allowed, 0);
    ms_pdb_unref(p);
    fx_env_free(&e);
}

static void test_decode_errors(void **state) {
    (void)state;
    static const struct {
        const char *yaml;
        const char *err;
    } cases[] = {
        {"metadata: {namespace: a}", "PodDisruptionBudget (no name): metadata.name: Required value"},
        {"apiVersion: policy/v2\nmetadata: {name: p, namespace: a}",
         "PodDisruptionBudget a/p: apiVersion: Unsupported value: \"policy/v2\": supported values: "
         "\"policy/v1\", \"policy/v1beta1\""},
        {"metadata: {name: p, namespace: a}\nspec: {minAvailable: half}",
         "PodDisruptionBudget a/p: spec.minAvailable: Invalid value: \"half\": a valid percent string "
         "must be a numeric string followed by an ending '%'"},
        {"metadata: {name: p, namespace: a}\nspec: {maxUnavailable: '%'}",
         "PodDisruptionBudget a/p: spec.maxUnavailable: Invalid value: \"%\": a valid percent string "
         "must be a numeric string followed by an ending '%'"},
        {"metadata: {name: p, namespace: a}\nspec: {minAvailable: 1.5}",
         "PodDisruptionBudget a/p: spec.minAvailable: Invalid value: 1.5: expected an integer in [-2147483648, 2147483647]"},
        {"metadata: {name: p, namespace: a}\nspec: {minAvailable: [1]}",
         "PodDisruptionBudget a/p: spec.minAvailable: expected integer or string, got array"},
        {"metadata: {name: p, namespace: a}\nspec: {selector: [app]}",
         "PodDisruptionBudget a/p: spec.selector: expected object, got array"},
        {"metadata: {name: p, namespace: a}\nstatus: {disruptionsAllowed: many}",
         "PodDisruptionBudget a/p: status.disruptionsAllowed: expected integer, got string"},
        {"metadata: {name: p, namespace: a}\nstatus: {disruptedPods: [x]}",
         "PodDisruptionBudget a/p: status.disruptedPods: expected object, got array"},
        {"metadata: {name: p, namespace: a}\nspec: 3", "PodDisruptionBudget a/p: spec: expected object, got number"},
    };
    fx_env e;
    fx_env_init(&e);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_error err = {0};
        ms_pdb *p = (ms_pdb *)1;
        ms_rc rc = decode(&e, cases[i].yaml, &p, &err);
        if (rc == MS_OK) fail_msg("case %zu decoded", i);
        assert_null(p);
        if (strcmp(err.msg, cases[i].err) != 0) fail_msg("case %zu: got %s\nwant %s", i, err.msg, cases[i].err);
    }
    ms_error err = {0};
    ms_pdb *p = NULL;
    cJSON *num = cJSON_CreateNumber(1);
    assert_int_equal(ms_pdb_decode(&e.d, num, &p, &err), MS_EINVAL);
    assert_string_equal(err.msg, "PodDisruptionBudget: expected an object, got number");
    cJSON_Delete(num);
    fx_env_free(&e);
}

/* The scheduler's rule (filterPodsWithPDBViolation): an empty or missing
 * selector selects nothing in either API version, pods without labels are
 * never selected, the namespace must match. */
/* A 10 KB bad value is quoted and cut at 64 bytes. */
static void test_decode_error_quotes_a_long_value(void **state) {
    (void)state;
    char *yaml = tu_repeat("metadata: {name: p, namespace: a}\nspec: {minAvailable: '", '9', 10240, "x'}");
    fx_env e;
    fx_env_init(&e);
    ms_error err = {0};
    ms_pdb *p = NULL;
    assert_int_equal(decode(&e, yaml, &p, &err), MS_EINVAL);
    assert_string_equal(err.msg, "PodDisruptionBudget a/p: spec.minAvailable: Invalid value: "
                                 "\"9999999999999999999999999999999999999999999999999999999999999999...\": "
                                 "a valid percent string must be a numeric string followed by an ending '%'");
    fx_env_free(&e);
    free(yaml);
}

static void test_selects(void **state) {
    (void)state;
    fx_env e;
    fx_env_init(&e);
    ms_pdb *web = pdb(&e, "metadata: {name: a, namespace: shop}\nspec: {selector: {matchLabels: {app: web}}}");
    ms_pdb *empty_v1 = pdb(&e, "apiVersion: policy/v1\nmetadata: {name: b, namespace: shop}\nspec: {selector: {}}");
    ms_pdb *empty_beta = pdb(&e, "apiVersion: policy/v1beta1\nmetadata: {name: c, namespace: shop}\n"
                                 "spec: {selector: {matchLabels: {}}}");
    ms_pdb *none = pdb(&e, "metadata: {name: d, namespace: shop}");
    ms_pdb *absent = pdb(&e, "metadata: {name: e, namespace: shop}\n"
                             "spec: {selector: {matchExpressions: [{key: app, operator: DoesNotExist}]}}");
    ms_pdb *bad = pdb(&e, "metadata: {name: f, namespace: shop}\n"
                          "spec: {selector: {matchExpressions: [{key: app, operator: In}]}}");
    ms_pod *w = fx_pod(&e.d, "metadata: {name: w, namespace: shop, labels: {app: web}}\nspec: {containers: [{name: c}]}");
    ms_pod *other_ns = fx_pod(&e.d, "metadata: {name: w, namespace: blog, labels: {app: web}}\nspec: {containers: [{name: c}]}");
    ms_pod *db = fx_pod(&e.d, "metadata: {name: d, namespace: shop, labels: {app: db}}\nspec: {containers: [{name: c}]}");
    ms_pod *bare = fx_pod(&e.d, "metadata: {name: n, namespace: shop}\nspec: {containers: [{name: c}]}");
    ms_pod *tier = fx_pod(&e.d, "metadata: {name: t, namespace: shop, labels: {tier: x}}\nspec: {containers: [{name: c}]}");

    assert_true(ms_pdb_selects(web, w, e.in));
    assert_false(ms_pdb_selects(web, other_ns, e.in));
    assert_false(ms_pdb_selects(web, db, e.in));
    assert_true(empty_v1->selector_empty);
    assert_true(empty_beta->selector_empty);
    const ms_pdb *nothing[] = {empty_v1, empty_beta, none, bad};
    for (size_t i = 0; i < 4; i++) {
        assert_false(ms_pdb_selects(nothing[i], w, e.in));
        assert_false(ms_pdb_selects(nothing[i], bare, e.in));
    }
    /* A DoesNotExist selector matches a labelled pod without the key, but a
     * pod with no labels at all is skipped first. */
    assert_true(ms_pdb_selects(absent, tier, e.in));
    assert_false(ms_pdb_selects(absent, bare, e.in));
    assert_false(ms_pdb_selects(absent, w, e.in));

    ms_pod *pods[] = {w, other_ns, db, bare, tier};
    for (size_t i = 0; i < 5; i++) ms_pod_unref(pods[i]);
    ms_pdb *pdbs[] = {web, empty_v1, empty_beta, none, absent, bad};
    for (size_t i = 0; i < 6; i++) ms_pdb_unref(pdbs[i]);
    fx_env_free(&e);
}

static void count_cb(void *ctx, const ms_pdb *p) {
    (void)p;
    (*(int *)ctx)++;
}

static void test_set(void **state) {
    (void)state;
    fx_env e;
    fx_env_init(&e);
    ms_pdb_set *s = ms_pdb_set_new();
    assert_non_null(s);
    ms_pdb *a1 = pdb(&e, "metadata: {name: a, namespace: shop}\nspec: {selector: {matchLabels: {app: web}}}\n"
                         "status: {disruptionsAllowed: 1}");
    ms_pdb *a2 = pdb(&e, "metadata: {name: a, namespace: shop}\nspec: {selector: {matchLabels: {app: api}}}\n"
                         "status: {disruptionsAllowed: 2}");
    ms_pdb *b = pdb(&e, "metadata: {name: b, namespace: shop}\nspec: {selector: {matchExpressions: "
                        "[{key: app, operator: Exists}]}}");
    ms_pdb *c = pdb(&e, "metadata: {name: a, namespace: blog}\nspec: {selector: {matchLabels: {app: web}}}");
    assert_int_equal(ms_pdb_set_update(s, a1), MS_OK);
    assert_int_equal(ms_pdb_set_update(s, b), MS_OK);
    assert_int_equal(ms_pdb_set_update(s, c), MS_OK);
    assert_int_equal(ms_pdb_set_len(s), 3);
    assert_int_equal(a1->refs, 2);   /* the set holds its own reference */
    assert_ptr_equal(ms_pdb_set_get(s, id(&e, "shop"), id(&e, "a")), a1);
    assert_ptr_equal(ms_pdb_set_get(s, id(&e, "blog"), id(&e, "a")), c);
    assert_null(ms_pdb_set_get(s, id(&e, "shop"), id(&e, "zzz")));

    ms_pod *w = fx_pod(&e.d, "metadata: {name: w, namespace: shop, labels: {app: web}}\nspec: {containers: [{name: c}]}");
    const ms_pdb *found[4];
    assert_int_equal(ms_pdb_set_matching(s, w, e.in, found, 4), 2);
    assert_true((found[0] == a1 && found[1] == b) || (found[0] == b && found[1] == a1));
    assert_int_equal(ms_pdb_set_matching(s, w, e.in, found, 1), 2);   /* counts past cap */

    /* Update by namespace/name replaces. */
    assert_int_equal(ms_pdb_set_update(s, a2), MS_OK);
    assert_int_equal(ms_pdb_set_len(s), 3);
    assert_int_equal(a1->refs, 1);
    assert_ptr_equal(ms_pdb_set_get(s, id(&e, "shop"), id(&e, "a")), a2);
    assert_int_equal(ms_pdb_set_matching(s, w, e.in, found, 4), 1);
    assert_ptr_equal(found[0], b);

    int count = 0;
    ms_pdb_set_each(s, count_cb, &count);
    assert_int_equal(count, 3);

    assert_int_equal(ms_pdb_set_delete(s, id(&e, "shop"), id(&e, "b")), MS_OK);
    assert_int_equal(ms_pdb_set_delete(s, id(&e, "shop"), id(&e, "b")), MS_ENOENT);
    assert_int_equal(ms_pdb_set_matching(s, w, e.in, found, 4), 0);
    assert_int_equal(ms_pdb_set_delete(s, id(&e, "shop"), id(&e, "a")), MS_OK);
    assert_int_equal(ms_pdb_set_len(s), 1);
    /* A namespace emptied and filled again. */
    assert_int_equal(ms_pdb_set_update(s, a1), MS_OK);
    assert_int_equal(ms_pdb_set_matching(s, w, e.in, found, 4), 1);

    ms_pod_unref(w);
    ms_pdb_set_free(s);   /* releases what it holds */
    assert_int_equal(a1->refs, 1);
    assert_int_equal(c->refs, 1);
    ms_pdb_unref(a1);
    ms_pdb_unref(a2);
    ms_pdb_unref(b);
    ms_pdb_unref(c);
    ms_pdb_set_free(NULL);
    fx_env_free(&e);
}

/* filterPodsWithPDBViolation's counting, one pod at a time. */
static void test_budget(void **state) {
    (void)state;
    fx_env e;
    fx_env_init(&e);
    ms_pdb_set *s = ms_pdb_set_new();
    ms_pdb *web = pdb(&e, "metadata: {name: web, namespace: shop}\nspec: {selector: {matchLabels: {app: web}}}\n"
                          "status: {disruptionsAllowed: 1, disruptedPods: {w3: '2024-01-01T00:00:00Z'}}");
    ms_pdb *all = pdb(&e, "metadata: {name: all, namespace: shop}\nspec: {selector: {matchExpressions: "
                          "[{key: app, operator: Exists}]}}\nstatus: {disruptionsAllowed: 2}");
    assert_int_equal(ms_pdb_set_update(s, web), MS_OK);
    assert_int_equal(ms_pdb_set_update(s, all), MS_OK);
    ms_pod *w1 = fx_pod(&e.d, "metadata: {name: w1, namespace: shop, labels: {app: web}}\nspec: {containers: [{name: c}]}");
    ms_pod *w2 = fx_pod(&e.d, "metadata: {name: w2, namespace: shop, labels: {app: web}}\nspec: {containers: [{name: c}]}");
    ms_pod *w3 = fx_pod(&e.d, "metadata: {name: w3, namespace: shop, labels: {app: web}}\nspec: {containers: [{name: c}]}");
    ms_pod *d1 = fx_pod(&e.d, "metadata: {name: d1, namespace: shop, labels: {app: db}}\nspec: {containers: [{name: c}]}");
    ms_pod *n1 = fx_pod(&e.d, "metadata: {name: n1, namespace: shop}\nspec: {containers: [{name: c}]}");
    ms_pod *x1 = fx_pod(&e.d, "metadata: {name: x1, namespace: blog, labels: {app: web}}\nspec: {containers: [{name: c}]}");

    ms_pdb_budget_reset(s);
    assert_false(ms_pdb_budget_take(s, w1, e.in));   /* web 1 -> 0, all 2 -> 1 */
    assert_false(ms_pdb_budget_take(s, w3, e.in));   /* web skips (disrupted), all 1 -> 0 */
    assert_true(ms_pdb_budget_take(s, w2, e.in));    /* web 0 -> -1, all 0 -> -1 */
    assert_true(ms_pdb_budget_take(s, d1, e.in));    /* all -1 -> -2 */
    assert_false(ms_pdb_budget_take(s, n1, e.in));   /* no labels */
    assert_false(ms_pdb_budget_take(s, x1, e.in));   /* other namespace */

    /* A reset gives every PDB its status budget back. */
    ms_pdb_budget_reset(s);
    assert_false(ms_pdb_budget_take(s, w2, e.in));
    assert_false(ms_pdb_budget_take(s, d1, e.in));
    assert_true(ms_pdb_budget_take(s, w1, e.in));    /* web is spent */

    /* A replaced PDB starts from its new status. */
    ms_pdb *web2 = pdb(&e, "metadata: {name: web, namespace: shop}\nspec: {selector: {matchLabels: {app: web}}}\n"
                           "status: {disruptionsAllowed: 5}");
    assert_int_equal(ms_pdb_set_update(s, web2), MS_OK);
    assert_int_equal(ms_pdb_set_delete(s, id(&e, "shop"), id(&e, "all")), MS_OK);
    assert_false(ms_pdb_budget_take(s, w3, e.in));

    ms_pod *pods[] = {w1, w2, w3, d1, n1, x1};
    for (size_t i = 0; i < 6; i++) ms_pod_unref(pods[i]);
    ms_pdb_set_free(s);
    ms_pdb_unref(web);
    ms_pdb_unref(web2);
    ms_pdb_unref(all);
    fx_env_free(&e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decode_v1),
        cmocka_unit_test(test_decode_v1beta1_and_defaults),
        cmocka_unit_test(test_decode_errors),
        cmocka_unit_test(test_decode_error_quotes_a_long_value),
        cmocka_unit_test(test_selects),
        cmocka_unit_test(test_set),
        cmocka_unit_test(test_budget),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
