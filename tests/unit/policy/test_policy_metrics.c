/* The policies' and shadows' families: one series per (profile, plugin),
 * replaced whole, escaped; the shadows' only when there are shadows. */
#include "testutil.h"

#include "metrics_states.h"

static char *render(ms_policy_metrics *m) {
    size_t len = 0;
    char *t = metrics_render_one(ms_policy_metrics_collect, m, &len);
    assert_non_null(t);
    assert_int_equal(strlen(t), len);
    return t;
}

static void test_policies_and_escaping(void **state) {
    (void)state;
    ms_policy_metrics *m = ms_policy_metrics_new();
    assert_non_null(m);
    ms_policy_figures p[2] = {
        {.profile = "default-scheduler", .plugin = "lua:gpu", .disabled = true, .calls = 10, .failures = 4,
         .budget_kills = 1, .reloads_ok = 2, .reloads_failed = 1},
        {.profile = "default-scheduler", .plugin = "lua:zone", .calls = 3},
    };
    ms_policy_metrics_set_policies(m, p, 2);
    char *t = render(m);
    assert_true(tu_series(t, "moonsched_policy_reloads_total{plugin=\"lua:gpu\",profile=\"default-scheduler\",result=\"ok\"}") == 2);
    assert_true(tu_series(t, "moonsched_policy_reloads_total{plugin=\"lua:gpu\",profile=\"default-scheduler\",result=\"refused\"}") == 1);
    assert_true(tu_series(t, "moonsched_policy_call_failures_total{plugin=\"lua:gpu\",profile=\"default-scheduler\"}") == 4);
    assert_true(tu_series(t, "moonsched_policy_budget_kills_total{plugin=\"lua:gpu\",profile=\"default-scheduler\"}") == 1);
    assert_true(tu_series(t, "moonsched_policy_calls_total{plugin=\"lua:zone\",profile=\"default-scheduler\"}") == 3);
    assert_true(tu_series(t, "moonsched_policy_disabled{plugin=\"lua:gpu\",profile=\"default-scheduler\"}") == 1);
    assert_true(tu_series(t, "moonsched_policy_disabled{plugin=\"lua:zone\",profile=\"default-scheduler\"}") == 0);
    free(t);
    /* a reload that removes a policy: its series go */
    ms_policy_metrics_set_policies(m, p + 1, 1);
    t = render(m);
    assert_true(tu_series(t, "moonsched_policy_disabled{plugin=\"lua:gpu\",profile=\"default-scheduler\"}") == -1);
    assert_true(tu_series(t, "moonsched_policy_disabled{plugin=\"lua:zone\",profile=\"default-scheduler\"}") == 0);
    free(t);
    ms_policy_metrics_free(m);
}

static void test_shadow_decisions(void **state) {
    (void)state;
    ms_policy_metrics *m = ms_policy_metrics_new();
    char *t = render(m);
    assert_null(strstr(t, "moonsched_shadow_decisions_total"));   /* no shadow policy: no family */
    free(t);
    ms_shadow_figures sh[1] = {
        {.profile = "default-scheduler", .policy = "lua:next", .agree = 7, .disagree = 3, .skipped = 5}};
    ms_policy_metrics_set_shadows(m, sh, 1);
    t = render(m);
    assert_true(tu_series(t, "moonsched_shadow_decisions_total{policy=\"lua:next\",profile=\"default-scheduler\",agree=\"true\"}") == 7);
    assert_true(tu_series(t, "moonsched_shadow_decisions_total{policy=\"lua:next\",profile=\"default-scheduler\",agree=\"false\"}") == 3);
    assert_non_null(strstr(t, "# TYPE moonsched_shadow_decisions_total counter\n"));
    /* cycles sat out while disabled: their own family, not decisions */
    assert_true(tu_series(t, "moonsched_shadow_skipped_total{policy=\"lua:next\",profile=\"default-scheduler\"}") == 5);
    free(t);
    ms_policy_metrics_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_policies_and_escaping),
        cmocka_unit_test(test_shadow_decisions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
