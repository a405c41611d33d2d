#include "testutil.h"

#include <sys/stat.h>
#include <unistd.h>

#include "client/kubeconfig.h"

/* base64 of "-----BEGIN CERTIFICATE-----\nCA\n" etc. are not needed: the
 * kubeconfig layer only decodes; these short texts keep the tests readable. */
#define B64_CA "Q0EtUEVN"           /* "CA-PEM" */
#define B64_CERT "Q0VSVC1QRU0="     /* "CERT-PEM" */
#define B64_KEY "S0VZLVBFTQ=="      /* "KEY-PEM" */

static char g_dir[256];

static int setup_dir(void **state) {
    (void)state;
    tu_mkdtemp(g_dir, sizeof g_dir, "ms-kubeconfig");
    return 0;
}

static int remove_dir(void **state) {
    (void)state;
    tu_rmtree(g_dir);
    return 0;
}

static void write_file(const char *name, const char *text) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    char *slash = strrchr(path, '/');
    *slash = '\0';
    mkdir(path, 0755);
    *slash = '/';
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static const char *path_of(const char *name) {
    static char buf[512];
    snprintf(buf, sizeof buf, "%s/%s", g_dir, name);
    return buf;
}

static const char full_config[] =
    "apiVersion: v1\n"
    "kind: Config\n"
    "current-context: dev\n"
    "clusters:\n"
    "- name: prod\n"
    "  cluster:\n"
    "    server: https://prod.example.com:6443/\n"
    "    certificate-authority-data: " B64_CA "\n"
    "    tls-server-name: kubernetes.default\n"
    "    proxy-url: http://proxy:3128\n"
    "- name: dev\n"
    "  cluster:\n"
    "    server: 127.0.0.1:8443\n"
    "    certificate-authority: certs/ca.crt\n"
    "- name: lab\n"
    "  cluster:\n"
    "    server: https://lab\n"
    "    insecure-skip-tls-verify: true\n"
    "users:\n"
    "- name: alice\n"
    "  user:\n"
    "    client-certificate: certs/alice.crt\n"
    "    client-key: /abs/alice.key\n"
    "    as: bob\n"
    "    as-groups: [system:masters, devs]\n"
    "    as-user-extra: {scopes: [view, edit]}\n"
    "- name: robot\n"
    "  user:\n"
    "    client-certificate-data: " B64_CERT "\n"
    "    client-key-data: " B64_KEY "\n"
    "- name: tok\n"
    "  user:\n"
    "    token: 0123456789\n"
    "    tokenFile: ignored-because-token-is-set\n"
    "- name: tokfile\n"
    "  user:\n"
    "    tokenFile: secrets/token\n"
    "- name: basic\n"
    "  user: {username: admin, password: s3cret}\n"
    "- name: cloud\n"
    "  user:\n"
    "    exec: {command: gke-gcloud-auth-plugin, apiVersion: client.authentication.k8s.io/v1beta1}\n"
    "contexts:\n"
    "- name: dev\n"
    "  context: {cluster: dev, user: alice}\n"
    "- name: prod\n"
    "  context: {cluster: prod, user: robot, namespace: kube-system}\n"
    "- name: lab-tok\n"
    "  context: {cluster: lab, user: tok}\n"
    "- name: lab-tokfile\n"
    "  context: {cluster: lab, user: tokfile}\n"
    "- name: lab-basic\n"
    "  context: {cluster: lab, user: basic}\n"
    "- name: anonymous\n"
    "  context: {cluster: lab}\n"
    "- name: gke\n"
    "  context: {cluster: prod, user: cloud}\n";

static void load_ok(ms_kubeconfig *kc, const char *context) {
    ms_error err = {0};
    ms_rc rc = ms_kubeconfig_load_file(kc, path_of("kube/config"), context, &err);
    if (rc != MS_OK) fail_msg("load: %s", err.msg);
}

static void test_current_context_and_paths(void **state) {
    (void)state;
    write_file("kube/config", full_config);
    ms_kubeconfig kc;
    load_ok(&kc, NULL);
    assert_string_equal(kc.context, "dev");
    assert_string_equal(kc.cluster_name, "dev");
    assert_string_equal(kc.user_name, "alice");
    assert_string_equal(kc.namespace_, "default");
    assert_string_equal(kc.server, "https://127.0.0.1:8443");   /* https:// added */
    char want[512];
    snprintf(want, sizeof want, "%s/kube/certs/ca.crt", g_dir);   /* relative to the file */
    assert_string_equal(kc.ca_file, want);
    assert_null(kc.ca_data);
    assert_false(kc.insecure_skip_tls_verify);
    snprintf(want, sizeof want, "%s/kube/certs/alice.crt", g_dir);
    assert_string_equal(kc.cert_file, want);
    assert_string_equal(kc.key_file, "/abs/alice.key");            /* absolute stays */
    assert_null(kc.token);
    assert_string_equal(kc.impersonate, "bob");
    assert_int_equal(kc.nimpersonate_groups, 2);
    assert_string_equal(kc.impersonate_groups[1], "devs");
    assert_int_equal(kc.nimpersonate_extra, 2);
    assert_string_equal(kc.impersonate_extra[0], "scopes=view");
    assert_string_equal(kc.impersonate_extra[1], "scopes=edit");
    ms_kubeconfig_free(&kc);
}

static void test_context_override_and_data(void **state) {
    (void)state;
    write_file("kube/config", full_config);
    ms_kubeconfig kc;
    load_ok(&kc, "prod");
    assert_string_equal(kc.context, "prod");
    assert_string_equal(kc.namespace_, "kube-system");
    assert_string_equal(kc.server, "https://prod.example.com:6443");   /* trailing '/' dropped */
    assert_string_equal(kc.tls_server_name, "kubernetes.default");
    assert_string_equal(kc.proxy_url, "http://proxy:3128");
    assert_string_equal(kc.ca_data, "CA-PEM");
    assert_int_equal(kc.ca_len, 6);
    assert_string_equal(kc.cert_data, "CERT-PEM");
    assert_int_equal(kc.cert_len, 8);
    assert_string_equal(kc.key_data, "KEY-PEM");
    assert_null(kc.cert_file);
    assert_null(kc.impersonate);
    ms_kubeconfig_free(&kc);

    load_ok(&kc, "lab-tok");
    assert_true(kc.insecure_skip_tls_verify);
    assert_string_equal(kc.token, "0123456789");   /* a YAML number keeps its text */
    assert_null(kc.token_file);                    /* token wins over tokenFile */
    ms_kubeconfig_free(&kc);

    load_ok(&kc, "lab-tokfile");
    char want[512];
    snprintf(want, sizeof want, "%s/kube/secrets/token", g_dir);
    assert_string_equal(kc.token_file, want);
    assert_null(kc.token);
    ms_kubeconfig_free(&kc);

    load_ok(&kc, "lab-basic");
    assert_string_equal(kc.username, "admin");
    assert_string_equal(kc.password, "s3cret");
    ms_kubeconfig_free(&kc);

    load_ok(&kc, "anonymous");
    assert_null(kc.user_name);
    assert_null(kc.token);
    assert_null(kc.cert_file);
    ms_kubeconfig_free(&kc);
}

static void test_exec_user(void **state) {
    (void)state;
    write_file("kube/config", full_config);
    ms_kubeconfig kc;
    load_ok(&kc, "gke");
    assert_non_null(kc.exec);
    assert_string_equal(kc.exec->command, "gke-gcloud-auth-plugin");   /* a bare name: looked up in PATH */
    assert_string_equal(kc.exec->api_version, "client.authentication.k8s.io/v1beta1");
    assert_int_equal(kc.exec->interactive, MS_EXEC_INTERACTIVE_IF_AVAILABLE);   /* v1beta1's default */
    assert_false(kc.exec->provide_cluster_info);
    assert_int_equal(kc.exec->nargs, 0);
    assert_null(kc.exec->cluster_config);
    ms_kubeconfig_free(&kc);

    const char *v1 = "current-context: c\n"
                     "clusters: [{name: k, cluster: {server: https://k, extensions: [{name: other, extension: {a: 1}},\n"
                     "  {name: client.authentication.k8s.io/exec, extension: {audience: x}}]}}]\n"
                     "users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: bin/plug,\n"
                     "  args: [get-token, --fast], env: [{name: A, value: one}, {name: B}], interactiveMode: Never,\n"
                     "  provideClusterInfo: true, installHint: get it}}}]\n"
                     "contexts: [{name: c, context: {cluster: k, user: u}}]\n";
    ms_error err = {0};
    assert_int_equal(ms_kubeconfig_load_buffer(&kc, v1, strlen(v1), "/etc/kube", "mem", NULL, &err), MS_OK);
    assert_string_equal(kc.exec->command, "/etc/kube/bin/plug");   /* a path: relative to the file */
    assert_int_equal(kc.exec->nargs, 2);
    assert_string_equal(kc.exec->args[1], "--fast");
    assert_int_equal(kc.exec->nenv, 2);
    assert_string_equal(kc.exec->env[0], "A=one");
    assert_string_equal(kc.exec->env[1], "B=");
    assert_int_equal(kc.exec->interactive, MS_EXEC_INTERACTIVE_NEVER);
    assert_true(kc.exec->provide_cluster_info);
    assert_string_equal(kc.exec->install_hint, "get it");
    assert_string_equal(kc.exec->cluster_config, "{\"audience\":\"x\"}");
    ms_kubeconfig_free(&kc);

    /* a token given outright wins over the plugin, as in client-go */
    const char *both = "current-context: c\nclusters: [{name: k, cluster: {server: https://k}}]\n"
                       "users: [{name: u, user: {token: t, exec: {command: x}}}]\n"
                       "contexts: [{name: c, context: {cluster: k, user: u}}]\n";
    assert_int_equal(ms_kubeconfig_load_buffer(&kc, both, strlen(both), "/", "mem", NULL, &err), MS_OK);
    assert_null(kc.exec);
    assert_string_equal(kc.token, "t");
    ms_kubeconfig_free(&kc);
}

static void test_auth_provider_refused(void **state) {
    (void)state;
    static const struct {
        const char *provider;
        const char *instead;
    } cases[] = {
        {"{name: gcp, config: {access-token: x}}", "\"gcp\" is not supported (client-go removed the in-tree providers in "
                                                   "Kubernetes 1.26); use the exec credential plugin gke-gcloud-auth-plugin"},
        {"{name: azure}", "use the exec credential plugin kubelogin (kubelogin convert-kubeconfig)"},
        {"{name: oidc}", "use an exec credential plugin such as kubelogin (kubectl oidc-login)"},
        {"{name: openstack}", "use an exec credential plugin"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char ap[512];
        snprintf(ap, sizeof ap,
                 "current-context: c\nclusters: [{name: k, cluster: {server: https://k}}]\n"
                 "users: [{name: g, user: {auth-provider: %s}}]\ncontexts: [{name: c, context: {cluster: k, user: g}}]\n",
                 cases[i].provider);
        ms_kubeconfig kc;
        ms_error err = {0};
        assert_int_equal(ms_kubeconfig_load_buffer(&kc, ap, strlen(ap), "/", "mem", NULL, &err), MS_EINVAL);
        if (!strstr(err.msg, cases[i].instead) || strncmp(err.msg, "mem: user g: the auth-provider ", 31) != 0)
            fail_msg("case %zu: %s", i, err.msg);
        assert_null(kc.server);   /* nothing left allocated */
    }
}

typedef struct err_case {
    const char *yaml;
    const char *context;
    const char *msg;
} err_case;

static void test_errors(void **state) {
    (void)state;
#define HEAD "clusters: [{name: k, cluster: {server: https://k}}]\ncontexts: [{name: c, context: {cluster: k, user: u}}]\n"
    static const err_case cases[] = {
        {"", NULL, "invalid configuration: no configuration has been provided"},
        {"- a\n- b\n", NULL, "mem: expected a mapping at the top level"},
        {HEAD "users: [{name: u, user: {}}]\n", NULL, "mem: no context chosen (current-context is not set)"},
        {HEAD "users: [{name: u, user: {}}]\n", "nope", "mem: context was not found for specified context: nope"},
        {HEAD "current-context: c\n", NULL, "mem: context c: user u was not found"},
        {"current-context: c\ncontexts: [{name: c, context: {cluster: x}}]\n", NULL,
         "mem: context c: cluster x was not found"},
        {"current-context: c\ncontexts: [{name: c, context: {user: x}}]\n", NULL,
         "mem: context c: cluster was not specified"},
        {"current-context: c\nclusters: [{name: k, cluster: {insecure-skip-tls-verify: true}}]\n"
         "contexts: [{name: c, context: {cluster: k}}]\n",
         NULL, "mem: cluster k has no server defined"},
        {"current-context: c\nclusters: [{name: k, cluster: {server: [x]}}]\ncontexts: [{name: c, context: {cluster: k}}]\n",
         NULL, "mem: clusters[0].cluster.server: expected a string"},
        {"current-context: c\nclusters: [{name: k, cluster: {server: https://k, insecure-skip-tls-verify: yes}}]\n"
         "contexts: [{name: c, context: {cluster: k}}]\n",
         NULL, "mem: clusters[0].cluster.insecure-skip-tls-verify: expected true or false"},
        {"current-context: c\nclusters: [{name: k, cluster: {server: https://k, certificate-authority: ca, "
         "certificate-authority-data: " B64_CA "}}]\ncontexts: [{name: c, context: {cluster: k}}]\n",
         NULL, "mem: cluster k: certificate-authority-data and certificate-authority are both specified"},
        {"current-context: c\nclusters: [{name: k, cluster: {server: https://k, insecure-skip-tls-verify: true, "
         "certificate-authority-data: " B64_CA "}}]\ncontexts: [{name: c, context: {cluster: k}}]\n",
         NULL, "mem: cluster k: a certificate authority cannot be combined with insecure-skip-tls-verify"},
        {"current-context: c\nclusters: [{name: k, cluster: {server: ftp://k}}]\ncontexts: [{name: c, context: {cluster: k}}]\n",
         NULL, "mem: cluster k: server \"ftp://k\": only http and https are supported"},
        /* found by fuzzing: "//" became "https://", a URL without a host */
        {"current-context: c\nclusters: [{name: k, cluster: {server: //}}]\ncontexts: [{name: c, context: {cluster: k}}]\n",
         NULL, "mem: cluster k: server \"//\": no host"},
        {"current-context: c\nclusters: [{name: k, cluster: {server: \"https:///api\"}}]\ncontexts: [{name: c, context: {cluster: k}}]\n",
         NULL, "mem: cluster k: server \"https:///api\": no host"},
        {HEAD "current-context: c\nusers: [{name: u, user: {client-certificate: a.crt}}]\n", NULL,
         "mem: user u: client-key-data or client-key must be specified to use a client certificate"},
        {HEAD "current-context: c\nusers: [{name: u, user: {client-key-data: " B64_KEY "}}]\n", NULL,
         "mem: user u: client-certificate-data or client-certificate must be specified with a client key"},
        {HEAD "current-context: c\nusers: [{name: u, user: {client-certificate: a, client-certificate-data: " B64_CERT
              ", client-key: k}}]\n",
         NULL, "mem: user u: client-certificate-data and client-certificate are both specified"},
        {HEAD "current-context: c\nusers: [{name: u, user: {client-certificate: a, client-key: k, client-key-data: " B64_KEY
              "}}]\n",
         NULL, "mem: user u: client-key-data and client-key are both specified"},
        {HEAD "current-context: c\nusers: [{name: u, user: {token: t, username: x}}]\n", NULL,
         "mem: user u: more than one authentication method found (token, basicAuth); only one is allowed"},
        {HEAD "current-context: c\nusers: [{name: u, user: {as-groups: [g]}}]\n", NULL,
         "mem: user u: as-groups or as-user-extra without impersonating a user (as)"},
        {HEAD "current-context: c\nusers: [{name: u, user: {client-key-data: \"S0V$ZLVBFTQ\"}}]\n", NULL,
         "mem: users[0].user.client-key-data: illegal base64 data at input byte 3"},
        {HEAD "current-context: c\nusers: [{name: u, user: {client-key-data: S0VZLVBFT}}]\n", NULL,
         "mem: users[0].user.client-key-data: illegal base64 data at input byte 9"},
        {HEAD "current-context: c\nusers: {u: 1}\n", NULL, "mem: users: expected a list"},
        {"current-context: c\nclusters: [{name: k, cluster: 3}]\ncontexts: [{name: c, context: {cluster: k}}]\n", NULL,
         "mem: clusters[0].cluster: expected a mapping"},
        {"a: [\n", NULL, "mem: line 2, column 1: "},
        {HEAD "current-context: c\nusers: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1}}}]\n", NULL,
         "mem: user u: command must be specified for u to use exec authentication plugin"},
        {HEAD "current-context: c\nusers: [{name: u, user: {exec: {command: p}}}]\n", NULL,
         "mem: user u: apiVersion must be specified for u to use exec authentication plugin"},
        {HEAD "current-context: c\nusers: [{name: u, user: {exec: {command: p, apiVersion: client.authentication.k8s.io/v1alpha1}}}]\n",
         NULL, "mem: user u: exec plugin: invalid apiVersion \"client.authentication.k8s.io/v1alpha1\""},
        {HEAD "current-context: c\nusers: [{name: u, user: {exec: {command: p, apiVersion: client.authentication.k8s.io/v1}}}]\n",
         NULL, "mem: user u: interactiveMode must be specified for u to use exec authentication plugin"},
        {HEAD "current-context: c\nusers: [{name: u, user: {exec: {command: p, apiVersion: client.authentication.k8s.io/v1, "
              "interactiveMode: Sometimes}}}]\n",
         NULL, "mem: user u: invalid interactiveMode for u: \"Sometimes\" (Never, IfAvailable or Always)"},
        {HEAD "current-context: c\nusers: [{name: u, user: {exec: {command: p, apiVersion: client.authentication.k8s.io/v1beta1, "
              "env: [{value: v}]}}}]\n",
         NULL, "mem: user u: env variable name must be specified for u to use exec authentication plugin"},
        {HEAD "current-context: c\nusers: [{name: u, user: {exec: {command: p, args: [1, [2]]}}}]\n", NULL,
         "mem: users[0].user.exec.args: expected a list of strings"},
        {HEAD "current-context: c\nusers: [{name: u, user: {exec: [p]}}]\n", NULL, "mem: users[0].user.exec: expected a mapping"},
    };
#undef HEAD
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_kubeconfig kc;
        ms_error err = {0};
        ms_rc rc = ms_kubeconfig_load_buffer(&kc, cases[i].yaml, strlen(cases[i].yaml), "/tmp", "mem", cases[i].context,
                                             &err);
        if (rc == MS_OK) fail_msg("case %zu: loaded", i);
        if (strncmp(err.msg, cases[i].msg, strlen(cases[i].msg)) != 0)
            fail_msg("case %zu:\n got: %s\nwant: %s", i, err.msg, cases[i].msg);
        assert_null(kc.server);
        assert_null(kc.context);
    }
}

static void test_exec_on_other_user_is_fine(void **state) {
    (void)state;
    write_file("kube/config", full_config);
    ms_kubeconfig kc;
    load_ok(&kc, "lab-tok");   /* the file has an exec user, but not this one */
    assert_null(kc.exec);
    ms_kubeconfig_free(&kc);
    ms_error err = {0};
    assert_int_equal(ms_kubeconfig_load_file(&kc, path_of("kube/missing"), NULL, &err), MS_ENOENT);
    assert_non_null(strstr(err.msg, "kube/missing: No such file or directory"));
}

static void test_merge_files(void **state) {
    (void)state;
    write_file("a/config",
               "clusters: [{name: k, cluster: {server: https://from-a, certificate-authority: ca-a.crt}}]\n"
               "users: [{name: u, user: {tokenFile: tok-a}}]\n");
    write_file("b/config",
               "current-context: c\n"
               "clusters: [{name: k, cluster: {server: https://from-b}}]\n"
               "users: [{name: v, user: {client-certificate: v.crt, client-key: v.key}}]\n"
               "contexts: [{name: c, context: {cluster: k, user: v, namespace: team}}, {name: d, context: {cluster: k, user: u}}]\n");
    char a[512], b[512], want[600];
    snprintf(a, sizeof a, "%s/a/config", g_dir);
    snprintf(b, sizeof b, "%s/b/config", g_dir);
    const char *paths[] = {a, "/nonexistent/config", b};
    ms_kubeconfig kc;
    ms_error err = {0};
    assert_int_equal(ms_kubeconfig_load_files(&kc, paths, 3, NULL, &err), MS_OK);
    assert_string_equal(kc.context, "c");                 /* current-context from b */
    assert_string_equal(kc.server, "https://from-a");     /* first definition of k wins */
    snprintf(want, sizeof want, "%s/a/ca-a.crt", g_dir);  /* ... relative to a */
    assert_string_equal(kc.ca_file, want);
    snprintf(want, sizeof want, "%s/b/v.crt", g_dir);     /* v comes from b */
    assert_string_equal(kc.cert_file, want);
    assert_string_equal(kc.namespace_, "team");
    ms_kubeconfig_free(&kc);

    /* KUBECONFIG through the default loading rules; an explicit path wins */
    char env[1100];
    snprintf(env, sizeof env, "%s:%s", a, b);
    setenv("KUBECONFIG", env, 1);
    unsetenv("KUBERNETES_SERVICE_HOST");
    assert_int_equal(ms_kubeconfig_load_default(&kc, NULL, "d", &err), MS_OK);
    snprintf(want, sizeof want, "%s/a/tok-a", g_dir);
    assert_string_equal(kc.token_file, want);
    ms_kubeconfig_free(&kc);
    assert_int_equal(ms_kubeconfig_load_default(&kc, b, NULL, &err), MS_OK);
    assert_string_equal(kc.server, "https://from-b");
    ms_kubeconfig_free(&kc);
    unsetenv("KUBECONFIG");
}

static void test_in_cluster(void **state) {
    (void)state;
    char sa[400];
    snprintf(sa, sizeof sa, "%s/sa", g_dir);
    write_file("sa/token", "eyJhbGciOi.token\n");
    write_file("sa/ca.crt", "-----BEGIN CERTIFICATE-----\n");
    write_file("sa/namespace", "scheduling\n");
    setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
    setenv("KUBERNETES_SERVICE_PORT", "443", 1);
    ms_kubeconfig kc;
    ms_error err = {0};
    assert_int_equal(ms_kubeconfig_in_cluster(&kc, sa, &err), MS_OK);
    assert_string_equal(kc.server, "https://10.96.0.1:443");
    char want[512];
    snprintf(want, sizeof want, "%s/token", sa);
    assert_string_equal(kc.token_file, want);   /* re-read by the client as it rotates */
    assert_null(kc.token);
    snprintf(want, sizeof want, "%s/ca.crt", sa);
    assert_string_equal(kc.ca_file, want);
    assert_string_equal(kc.namespace_, "scheduling");
    ms_kubeconfig_free(&kc);

    /* the default rules pick the in-cluster configuration when no path is given */
    setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
    unlink(path_of("sa/namespace"));
    assert_int_equal(ms_kubeconfig_in_cluster(&kc, sa, &err), MS_OK);
    assert_string_equal(kc.server, "https://[fd00::1]:443");
    assert_string_equal(kc.namespace_, "default");
    ms_kubeconfig_free(&kc);

    unlink(path_of("sa/token"));
    assert_int_equal(ms_kubeconfig_in_cluster(&kc, sa, &err), MS_ENOENT);
    assert_non_null(strstr(err.msg, "sa/token"));
    unsetenv("KUBERNETES_SERVICE_PORT");
    assert_int_equal(ms_kubeconfig_in_cluster(&kc, sa, &err), MS_ENOENT);
    assert_string_equal(err.msg, "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and "
                                 "KUBERNETES_SERVICE_PORT must be defined");
    unsetenv("KUBERNETES_SERVICE_HOST");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_current_context_and_paths),
        cmocka_unit_test(test_context_override_and_data),
        cmocka_unit_test(test_exec_user),
        cmocka_unit_test(test_auth_provider_refused),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_exec_on_other_user_is_fine),
        cmocka_unit_test(test_merge_files),
        cmocka_unit_test(test_in_cluster),
    };
    return cmocka_run_group_tests(tests, setup_dir, remove_dir);
}
