/* The descheduler's metrics: upstream's names and labels, cumulative
 * buckets, label values escaped, health paths; and `deschedule`'s flags. */
#include "testutil.h"

#include "cmd/deschedule.h"
#include "descheduler/metrics.h"
#include "metrics_golden.h"
#include "metrics_states.h"

static bool has_line(const char *text, const char *line) {
    size_t n = strlen(line);
    for (const char *p = text; (p = strstr(p, line)); p += n)
        if ((p == text || p[-1] == '\n') && (p[n] == '\n' || !p[n])) return true;
    return false;
}

static void test_render(void **state) {
    (void)state;
    ms_desched_metrics *m = ms_desched_metrics_new();
    assert_non_null(m);
    ms_desched_metrics_evicted(m, "success", "LowNodeUtilization", "p", "default", "n1");
    ms_desched_metrics_evicted(m, "success", "LowNodeUtilization", "p", "default", "n1");
    ms_desched_metrics_evicted(m, "error", "PodLifeTime", "p", "we\"ird", "n2");
    ms_desched_metrics_loop(m, 0.02);
    ms_desched_metrics_loop(m, 700);
    ms_desched_metrics_strategy(m, "PodLifeTime", "p", 0.3);
    size_t len = 0;
    ms_desched_metrics_reload(m, "DeschedulerPolicy", false);
    ms_desched_metrics_reload(m, "DeschedulerPolicy", true);
    ms_desched_metrics_reload(m, "DeschedulerPolicy", true);
    ms_desched_metrics_reload(m, "lua:spread", false);
    char *text = metrics_render_desched(m, &len);
    assert_non_null(text);
    assert_int_equal(strlen(text), len);
    assert_true(has_line(text, "# TYPE descheduler_pods_evicted_total counter"));
    assert_true(has_line(text, "descheduler_pods_evicted_total{namespace=\"default\",node=\"n1\",profile=\"p\","
                               "result=\"success\",strategy=\"LowNodeUtilization\"} 2"));
    assert_true(has_line(text, "descheduler_pods_evicted_total{namespace=\"we\\\"ird\",node=\"n2\",profile=\"p\","
                               "result=\"error\",strategy=\"PodLifeTime\"} 1"));
    assert_true(has_line(text, "descheduler_loop_duration_seconds_bucket{le=\"0.01\"} 0"));
    assert_true(has_line(text, "descheduler_loop_duration_seconds_bucket{le=\"0.025\"} 1"));
    assert_true(has_line(text, "descheduler_loop_duration_seconds_bucket{le=\"500\"} 1"));
    assert_true(has_line(text, "descheduler_loop_duration_seconds_bucket{le=\"+Inf\"} 2"));
    assert_true(has_line(text, "descheduler_loop_duration_seconds_count 2"));
    assert_true(has_line(text, "descheduler_strategy_duration_seconds_bucket{profile=\"p\",strategy=\"PodLifeTime\","
                               "le=\"0.25\"} 0"));
    assert_true(has_line(text, "descheduler_strategy_duration_seconds_bucket{profile=\"p\",strategy=\"PodLifeTime\","
                               "le=\"0.5\"} 1"));
    assert_null(strstr(text, "leader_election_master_status"));
    assert_true(has_line(text, "moonsched_policy_reloads_total{plugin=\"DeschedulerPolicy\",profile=\"\","
                               "result=\"ok\"} 2"));
    assert_true(has_line(text, "moonsched_policy_reloads_total{plugin=\"DeschedulerPolicy\",profile=\"\","
                               "result=\"refused\"} 1"));
    /* a --policy file's own series, both results shown */
    assert_true(has_line(text, "moonsched_policy_reloads_total{plugin=\"lua:spread\",profile=\"\",result=\"ok\"} 0"));
    assert_true(has_line(text, "moonsched_policy_reloads_total{plugin=\"lua:spread\",profile=\"\","
                               "result=\"refused\"} 1"));
    free(text);
    ms_desched_metrics_set_leader(m, "descheduler", true);
    text = metrics_render_desched(m, &len);
    assert_true(has_line(text, "leader_election_master_status{name=\"descheduler\"} 1"));
    free(text);
    ms_desched_metrics_free(m);
}

static ms_rc parse(const char *line, ms_deschedule_options *o, ms_error *err) {
    static char buf[512];
    static char *argv[32];
    static const char *pol[32];
    snprintf(buf, sizeof buf, "%s", line);
    int argc = 0;
    for (char *t = strtok(buf, " "); t && argc < 32; t = strtok(NULL, " ")) argv[argc++] = t;
    bool help;
    ms_deschedule_options_default(o);
    return ms_deschedule_parse_args(argc, argv, o, pol, &help, err);
}

static void test_flags(void **state) {
    (void)state;
    ms_deschedule_options o;
    ms_error err = {0};
    assert_int_equal(parse("--policy-config-file p.yaml --dry-run --descheduling-interval=5m --leader-elect "
                           "--secure-port 0 --policy a.lua --policy=b.lua --output json",
                           &o, &err),
                     MS_OK);
    assert_string_equal(o.policy_file, "p.yaml");
    assert_true(o.dry_run);
    assert_true(o.interval == 300);
    assert_true(o.leader_elect);
    assert_int_equal(o.secure_port, 0);
    assert_int_equal(o.npolicy_files, 2);
    assert_string_equal(o.policy_files[1], "b.lua");
    assert_int_equal(o.output, MS_OUTPUT_JSON);
    assert_string_equal(o.lease_name, "descheduler");
    assert_string_equal(o.lease_namespace, "kube-system");
    assert_int_equal(parse("--policy-config-file p.yaml", &o, &err), MS_OK);
    assert_int_equal(o.secure_port, MS_DESCHEDULE_DEFAULT_SECURE_PORT);
    assert_true(o.interval == 0);
    assert_false(o.debug);
    assert_int_equal(parse("--policy-config-file p.yaml -v 4", &o, &err), MS_OK);
    assert_true(o.debug);
    assert_int_equal(parse("--policy-config-file p.yaml --v=2", &o, &err), MS_OK);
    assert_false(o.debug);

    static const struct {
        const char *line, *msg;
    } bad[] = {
        {"--dry-run", "--policy-config-file is required"},
        {"--policy-config-file p --leader-elect", "leaderElection must be used with deschedulingInterval"},
        {"--policy-config-file p --descheduling-interval x", "--descheduling-interval: expected a duration such as 5m, got \"x\""},
        {"--policy-config-file p --secure-port 70000", "--secure-port: expected a port (0 to 65535), got \"70000\""},
        {"--policy-config-file p --dry-run=maybe", "--dry-run: expected true or false, got \"maybe\""},
        {"--policy-config-file p --in-cluster --kubeconfig k", "--in-cluster and --kubeconfig exclude each other"},
        {"--policy-config-file p --frobnicate", "unknown argument \"--frobnicate\""},
        {"--policy-config-file p -v x", "-v: expected a level, got \"x\""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(parse(bad[i].line, &o, &err), MS_EINVAL);
        assert_string_equal(err.msg, bad[i].msg);
    }
}

/* The whole exposition, byte for byte, before and after every family
 * has series. */
static void test_exposition_golden(void **state) {
    (void)state;
    ms_desched_metrics *m = ms_desched_metrics_new();
    size_t len = 0;
    char *t = metrics_render_desched(m, &len);
    assert_string_equal(t, golden_desched_empty);
    free(t);
    metrics_fill_desched(m);
    t = metrics_render_desched(m, &len);
    assert_string_equal(t, golden_desched);
    free(t);
    ms_desched_metrics_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_render),
        cmocka_unit_test(test_exposition_golden),
        cmocka_unit_test(test_flags),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
