/* cmd/run_flags: kube-scheduler's command line into ms_run_options. */
#include "testutil.h"

#include "cmd/run_flags.h"

typedef struct parsed {
    ms_run_options o;
    ms_logger log;
    const char *policies[32];
    ms_run_flags f;
    char warnings[2048];
    ms_error err;
} parsed;

static void collect(void *ctx, const char *msg) {
    parsed *p = ctx;
    size_t n = strlen(p->warnings);
    snprintf(p->warnings + n, sizeof p->warnings - n, "%s\n", msg);
}

/* argv: NULL-terminated. */
static ms_rc parse(parsed *p, const char **argv) {
    memset(p, 0, sizeof *p);
    ms_run_options_default(&p->o);
    p->log = ms_log_default;
    p->f = (ms_run_flags){.o = &p->o, .log = &p->log, .policies = p->policies, .warn = collect, .warn_ctx = p};
    int argc = 0;
    while (argv[argc]) argc++;
    return ms_run_flags_parse(argc, (char **)argv, &p->f, &p->err);
}

static void test_kubeadm_command_line(void **state) {
    (void)state;
    parsed p;
    const char *argv[] = {"--authentication-kubeconfig=/etc/kubernetes/scheduler.conf",
                          "--authorization-kubeconfig=/etc/kubernetes/scheduler.conf",
                          "--bind-address=127.0.0.1",
                          "--kubeconfig=/etc/kubernetes/scheduler.conf",
                          "--leader-elect=true",
                          "--port=0",
                          NULL};
    assert_int_equal(parse(&p, argv), MS_OK);
    assert_int_equal(p.f.action, MS_RUN_FLAGS_RUN);
    assert_string_equal(p.o.authn_kubeconfig, "/etc/kubernetes/scheduler.conf");
    assert_string_equal(p.o.authz_kubeconfig, "/etc/kubernetes/scheduler.conf");
    assert_string_equal(p.o.bind_address, "127.0.0.1");
    assert_string_equal(p.o.kubeconfig, "/etc/kubernetes/scheduler.conf");
    assert_int_equal(p.o.leader_elect, 1);
    assert_int_equal(p.o.secure_port, MS_RUN_DEFAULT_SECURE_PORT);
    /* --port=0: kube-scheduler's insecure port off, so the plain one is */
    assert_string_equal(p.o.metrics_bind_address, "0");
    assert_string_equal(p.warnings, "");
}

static void test_serving_and_leader_election_flags(void **state) {
    (void)state;
    parsed p;
    const char *argv[] = {"--secure-port", "10300", "--tls-cert-file", "/c.pem", "--tls-private-key-file=/k.pem",
                          "--leader-elect-lease-duration=30s", "--leader-elect-renew-deadline", "20s",
                          "--leader-elect-retry-period=1500ms", "--leader-elect-resource-lock=leases",
                          "--leader-elect-resource-name", "mine", "--leader-elect-resource-namespace=ns",
                          "--leader-elect=F", "--logging-format=json", "--v=4", NULL};
    assert_int_equal(parse(&p, argv), MS_OK);
    assert_int_equal(p.o.secure_port, 10300);
    assert_string_equal(p.o.tls_cert_file, "/c.pem");
    assert_string_equal(p.o.tls_key_file, "/k.pem");
    assert_true(p.o.le_lease_duration == 30 && p.o.le_renew_deadline == 20 && p.o.le_retry_period == 1.5);
    assert_string_equal(p.o.le_resource_lock, "leases");
    assert_string_equal(p.o.le_resource_name, "mine");
    assert_string_equal(p.o.le_resource_namespace, "ns");
    assert_int_equal(p.o.leader_elect, -1);
    assert_true(p.log.json);
    assert_int_equal(p.log.level, MS_LOG_DEBUG);
}

/* Upstream's 10 s unless given; 0s: nothing cached. */
static void test_token_webhook_cache_ttl(void **state) {
    (void)state;
    parsed p;
    const char *none[] = {NULL};
    assert_int_equal(parse(&p, none), MS_OK);
    assert_true(p.o.authn_token_cache_ttl == 0);
    const char *ttl[] = {"--authentication-token-webhook-cache-ttl=2m", NULL};
    assert_int_equal(parse(&p, ttl), MS_OK);
    assert_true(p.o.authn_token_cache_ttl == 120);
    assert_string_equal(p.warnings, "");
    const char *zero[] = {"--authentication-token-webhook-cache-ttl", "0s", NULL};
    assert_int_equal(parse(&p, zero), MS_OK);
    assert_true(p.o.authn_token_cache_ttl < 0);
    const char *bad[] = {"--authentication-token-webhook-cache-ttl=-5s", NULL};
    assert_int_equal(parse(&p, bad), MS_EINVAL);
    assert_non_null(strstr(p.err.msg, "--authentication-token-webhook-cache-ttl"));
}

/* --lock-object-* are kube-scheduler's deprecated flags: without --config
 * they name the Lease (unless --leader-elect-resource-* do); with it they
 * are ignored, as upstream ignores them. */
static void test_lock_object_flags(void **state) {
    (void)state;
    parsed p;
    const char *no_config[] = {"--lock-object-name=old", "--lock-object-namespace", "oldns", NULL};
    assert_int_equal(parse(&p, no_config), MS_OK);
    assert_string_equal(p.o.le_resource_name, "old");
    assert_string_equal(p.o.le_resource_namespace, "oldns");
    const char *both[] = {"--lock-object-name=old", "--leader-elect-resource-name=new", NULL};
    assert_int_equal(parse(&p, both), MS_OK);
    assert_string_equal(p.o.le_resource_name, "new");
    const char *with_config[] = {"--lock-object-name=old", "--config=/x.yaml", NULL};
    assert_int_equal(parse(&p, with_config), MS_OK);
    assert_null(p.o.le_resource_name);
    assert_non_null(strstr(p.warnings, "ignoring --lock-object-name"));
}

static void test_address_and_port(void **state) {
    (void)state;
    parsed p;
    const char *port[] = {"--port=10300", NULL};
    assert_int_equal(parse(&p, port), MS_OK);
    assert_string_equal(p.o.metrics_bind_address, "0.0.0.0:10300");
    const char *v6[] = {"--address", "::1", "--port", "10300", NULL};
    assert_int_equal(parse(&p, v6), MS_OK);
    assert_string_equal(p.o.metrics_bind_address, "[::1]:10300");
    const char *chosen[] = {"--port=0", "--metrics-bind-address=127.0.0.1:9000", NULL};
    assert_int_equal(parse(&p, chosen), MS_OK);
    assert_string_equal(p.o.metrics_bind_address, "127.0.0.1:9000");
}

/* The plain port is off and serves health only unless asked. */
static void test_plain_port_defaults(void **state) {
    (void)state;
    parsed p;
    const char *none[] = {NULL};
    assert_int_equal(parse(&p, none), MS_OK);
    assert_null(p.o.metrics_bind_address);
    assert_false(p.o.plain_metrics);
    const char *on[] = {"--metrics-bind-address=127.0.0.1:9000", "--plain-metrics", NULL};
    assert_int_equal(parse(&p, on), MS_OK);
    assert_true(p.o.plain_metrics);
    const char *off[] = {"--plain-metrics=false", NULL};
    assert_int_equal(parse(&p, off), MS_OK);
    assert_false(p.o.plain_metrics);
    const char *bad[] = {"--plain-metrics=maybe", NULL};
    assert_int_equal(parse(&p, bad), MS_EINVAL);
    assert_non_null(strstr(p.err.msg, "--plain-metrics"));
}

static void test_ignored_flags_warn(void **state) {
    (void)state;
    parsed p;
    const char *argv[] = {"--feature-gates", "A=true,B=false", "--profiling", "--use-legacy-policy-config=false",
                          "--kube-api-burst=200", "--config", "/x.yaml", NULL};
    assert_int_equal(parse(&p, argv), MS_OK);
    /* a boolean did not swallow the next argument: --config was read */
    assert_string_equal(p.o.config_file, "/x.yaml");
    assert_non_null(strstr(p.warnings, "ignoring --feature-gates=A=true,B=false: moonsched has no feature gates"));
    assert_non_null(strstr(p.warnings, "ignoring --profiling:"));
    assert_non_null(strstr(p.warnings, "ignoring --use-legacy-policy-config=false:"));
    assert_non_null(strstr(p.warnings, "ignoring --kube-api-burst=200:"));
}

static void test_help_version_and_errors(void **state) {
    (void)state;
    parsed p;
    const char *version[] = {"--version", NULL};
    assert_int_equal(parse(&p, version), MS_OK);
    assert_int_equal(p.f.action, MS_RUN_FLAGS_VERSION);
    const char *no_version[] = {"--version=false", NULL};
    assert_int_equal(parse(&p, no_version), MS_OK);
    assert_int_equal(p.f.action, MS_RUN_FLAGS_RUN);
    const char *help[] = {"--bogus-after-help-is-not-read", NULL};
    assert_int_equal(parse(&p, help), MS_EINVAL);
    const char *h[] = {"-h", "--bogus", NULL};
    assert_int_equal(parse(&p, h), MS_OK);
    assert_int_equal(p.f.action, MS_RUN_FLAGS_HELP);
    const char *missing[] = {"--config", NULL};
    assert_int_equal(parse(&p, missing), MS_EINVAL);
    assert_string_equal(p.err.msg, "--config needs a file");
    const char *bad_bool[] = {"--leader-elect=yes", NULL};
    assert_int_equal(parse(&p, bad_bool), MS_EINVAL);
    assert_string_equal(p.err.msg, "--leader-elect: expected true or false, got \"yes\"");
    const char *both[] = {"--in-cluster", "--kubeconfig=/k", NULL};
    assert_int_equal(parse(&p, both), MS_EINVAL);
}

/* --controllers, kube-controller-manager's word: on, -off, the last one wins. */
static void test_controllers(void **state) {
    (void)state;
    parsed p;
    const char *none[] = {"--kubeconfig=/k", NULL};
    assert_int_equal(parse(&p, none), MS_OK);
    assert_false(p.o.taint_eviction);
    const char *on[] = {"--controllers=taint-eviction", NULL};
    assert_int_equal(parse(&p, on), MS_OK);
    assert_true(p.o.taint_eviction);
    const char *off[] = {"--controllers", "taint-eviction,-taint-eviction", NULL};
    assert_int_equal(parse(&p, off), MS_OK);
    assert_false(p.o.taint_eviction);
    const char *bad[] = {"--controllers=taint-eviction,nodelifecycle", NULL};
    assert_int_equal(parse(&p, bad), MS_EINVAL);
    assert_string_equal(p.err.msg, "--controllers: unknown controller \"nodelifecycle\" (known: taint-eviction)");
}

/* --seed, as simulate's: a replay of a snapshot needs the same draws. */
static void test_seed(void **state) {
    (void)state;
    parsed p;
    const char *none[] = {"--kubeconfig=/k", NULL};
    assert_int_equal(parse(&p, none), MS_OK);
    assert_false(p.o.has_seed);
    const char *given[] = {"--seed", "42", NULL};
    assert_int_equal(parse(&p, given), MS_OK);
    assert_true(p.o.has_seed);
    assert_int_equal(p.o.seed, 42);
    const char *bad[] = {"--seed=-1", NULL};
    assert_int_equal(parse(&p, bad), MS_EINVAL);
    assert_string_equal(p.err.msg, "--seed: expected a non-negative integer, got \"-1\"");
    /* /debug/snapshot's objects are kept only when asked for */
    assert_false(p.o.debug_snapshot);
    const char *snap[] = {"--debug-snapshot", NULL};
    assert_int_equal(parse(&p, snap), MS_OK);
    assert_true(p.o.debug_snapshot);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kubeadm_command_line),
        cmocka_unit_test(test_serving_and_leader_election_flags),
        cmocka_unit_test(test_lock_object_flags),
        cmocka_unit_test(test_address_and_port),
        cmocka_unit_test(test_plain_port_defaults),
        cmocka_unit_test(test_ignored_flags_warn),
        cmocka_unit_test(test_token_webhook_cache_ttl),
        cmocka_unit_test(test_help_version_and_errors),
        cmocka_unit_test(test_controllers),
        cmocka_unit_test(test_seed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
