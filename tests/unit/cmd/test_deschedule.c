/* `deschedule`'s flags. */
#include "testutil.h"

#include "cmd/deschedule.h"

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
    /* booleans as pflag reads them: Go's ParseBool words after "=" */
    assert_int_equal(parse("--policy-config-file p.yaml --dry-run=1 --in-cluster=T --leader-elect=false", &o, &err),
                     MS_OK);
    assert_true(o.dry_run);
    assert_true(o.in_cluster);
    assert_false(o.leader_elect);
    assert_int_equal(parse("--policy-config-file p.yaml --dry-run=False --in-cluster=0", &o, &err), MS_OK);
    assert_false(o.dry_run);
    assert_false(o.in_cluster);
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
        {"--policy-config-file p --secure-port 70000", "--secure-port: expected a port (0-65535), got \"70000\""},
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flags),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
