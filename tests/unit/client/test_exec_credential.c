/* Exec credential plugins (core/client/exec_credential.c), run for real:
 * each plugin is a small shell script that records how it was called. */
#include "testutil.h"

#include <fcntl.h>
#include <sys/stat.h>

#include "client/exec_credential.h"

static char g_dir[256];
static const ms_logger quiet = {.level = -1};

static int setup_dir(void **state) {
    (void)state;
    tu_mkdtemp(g_dir, sizeof g_dir, "ms-exec");
    return 0;
}

static int remove_dir(void **state) {
    (void)state;
    tu_rmtree(g_dir);
    return 0;
}

static const char *path_of(const char *name) {
    static char buf[512];
    snprintf(buf, sizeof buf, "%s/%s", g_dir, name);
    return buf;
}

/* An executable script NAME whose body is `body`. */
static void write_plugin(const char *name, const char *body) {
    FILE *f = fopen(path_of(name), "w");
    assert_non_null(f);
    fprintf(f, "#!/bin/sh\n%s", body);
    fclose(f);
    assert_int_equal(chmod(path_of(name), 0755), 0);
}

static char *slurp(const char *name) {
    FILE *f = fopen(path_of(name), "r");
    if (!f) return NULL;
    static char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static double fake_now(void *ctx) { return *(double *)ctx; }

/* A kubeconfig for the plugin: loaded from text, so that the tests go
 * through the same validation as a user's file. */
static void load(ms_kubeconfig *kc, const char *exec_yaml, const char *cluster_extra) {
    char text[2048];
    snprintf(text, sizeof text,
             "current-context: c\n"
             "clusters: [{name: k, cluster: {server: https://k.example:6443, %s}}]\n"
             "users: [{name: u, user: {exec: %s}}]\n"
             "contexts: [{name: c, context: {cluster: k, user: u}}]\n",
             cluster_extra ? cluster_extra : "", exec_yaml);
    ms_error err = {0};
    if (ms_kubeconfig_load_buffer(kc, text, strlen(text), g_dir, "mem", NULL, &err) != MS_OK) fail_msg("%s", err.msg);
    assert_non_null(kc->exec);
}

static ms_exec_credential *make(const ms_kubeconfig *kc, double *now, int stdin_fd) {
    ms_exec_credential_options o = {.config = kc, .log = &quiet, .wall = fake_now, .wall_ctx = now,
                                    .stdin_fd = stdin_fd};
    ms_exec_credential *ec;
    ms_error err = {0};
    if (ms_exec_credential_new(&o, &ec, &err) != MS_OK) fail_msg("%s", err.msg);
    return ec;
}

/* A plugin that hands out token N on its Nth run, expiring at the epoch
 * second in the file "exp" (none when the file is empty), and writes its
 * arguments, the configured variable and KUBERNETES_EXEC_INFO to "seen". */
static const char counting_plugin[] =
    "n=$(cat \"$(dirname \"$0\")/runs\" 2>/dev/null || echo 0); n=$((n+1)); echo $n >\"$(dirname \"$0\")/runs\"\n"
    "printf '%s|%s|%s|%s\\n' \"$*\" \"$GREETING\" \"$KUBERNETES_EXEC_INFO\" \"$(cat 2>/dev/null)\" >\"$(dirname \"$0\")/seen\"\n"
    "exp=$(cat \"$(dirname \"$0\")/exp\" 2>/dev/null)\n"
    "if [ -n \"$exp\" ]; then e=\",\\\"expirationTimestamp\\\":\\\"$exp\\\"\"; else e=; fi\n"
    "echo \"{\\\"apiVersion\\\":\\\"client.authentication.k8s.io/v1\\\",\\\"kind\\\":\\\"ExecCredential\\\","
    "\\\"status\\\":{\\\"token\\\":\\\"tok-$n\\\"$e}}\"\n"
    "echo 'warming up' >&2\n";

static void test_token_cached_until_expiry(void **state) {
    (void)state;
    write_plugin("plug", counting_plugin);
    FILE *f = fopen(path_of("exp"), "w");
    fputs("2030-01-01T00:00:10Z\n", f);
    fclose(f);
    ms_kubeconfig kc;
    load(&kc,
         "{apiVersion: client.authentication.k8s.io/v1, command: ./plug, args: [get-token, --cluster=k], "
         "env: [{name: GREETING, value: hello}], interactiveMode: Never, provideClusterInfo: true}",
         "certificate-authority-data: Q0EtUEVN, tls-server-name: api.internal, "
         "extensions: [{name: client.authentication.k8s.io/exec, extension: {audience: moon}}]");
    double now = 1893456000;   /* 2030-01-01T00:00:00Z */
    ms_exec_credential *ec = make(&kc, &now, 0);
    assert_int_equal(ms_exec_credential_runs(ec), 0);   /* nothing runs before it is needed */

    ms_exec_creds c;
    ms_error err = {0};
    assert_int_equal(ms_exec_credential_get(ec, &c, &err), MS_OK);
    assert_string_equal(c.token, "tok-1");
    assert_null(c.cert);
    uint64_t gen1 = c.generation;
    ms_exec_creds_free(&c);
    assert_string_equal(slurp("seen"),
                        "get-token --cluster=k|hello|{\"kind\":\"ExecCredential\",\"apiVersion\":"
                        "\"client.authentication.k8s.io/v1\",\"spec\":{\"cluster\":{\"server\":\"https://k.example:6443\","
                        "\"tls-server-name\":\"api.internal\",\"certificate-authority-data\":\"Q0EtUEVN\","
                        "\"config\":{\"audience\":\"moon\"}},\"interactive\":false}}|\n");   /* stdin: /dev/null */

    /* cached until the expiration time has passed */
    now += 10;
    assert_int_equal(ms_exec_credential_get(ec, &c, &err), MS_OK);
    assert_string_equal(c.token, "tok-1");
    ms_exec_creds_free(&c);
    assert_int_equal(ms_exec_credential_runs(ec), 1);
    now += 0.5;
    f = fopen(path_of("exp"), "w");
    fputs("2030-01-01T00:01:00Z\n", f);
    fclose(f);
    assert_int_equal(ms_exec_credential_get(ec, &c, &err), MS_OK);
    assert_string_equal(c.token, "tok-2");
    uint64_t gen2 = c.generation;
    assert_true(gen2 != gen1);
    ms_exec_creds_free(&c);

    /* a 401 for credentials already replaced changes nothing; for the
     * current ones, the next get runs the plugin */
    f = fopen(path_of("exp"), "w");   /* from now on: no expiry */
    fclose(f);
    ms_exec_credential_invalidate(ec, gen1);
    assert_int_equal(ms_exec_credential_get(ec, &c, &err), MS_OK);
    assert_string_equal(c.token, "tok-2");
    ms_exec_creds_free(&c);
    ms_exec_credential_invalidate(ec, gen2);
    assert_int_equal(ms_exec_credential_get(ec, &c, &err), MS_OK);
    assert_string_equal(c.token, "tok-3");
    ms_exec_creds_free(&c);
    now += 1e6;   /* without an expiration time, kept */
    assert_int_equal(ms_exec_credential_get(ec, &c, &err), MS_OK);
    assert_string_equal(c.token, "tok-3");
    ms_exec_creds_free(&c);
    assert_int_equal(ms_exec_credential_runs(ec), 3);
    ms_exec_credential_free(ec);
    ms_kubeconfig_free(&kc);
    unlink(path_of("runs"));
}

static void test_v1beta1_and_interactive(void **state) {
    (void)state;
    /* v1beta1 without provideClusterInfo: no cluster in the spec; the
     * environment variable of the same name is replaced, not doubled */
    write_plugin("beta",
                 "echo \"$GREETING|$KUBERNETES_EXEC_INFO\" >\"$(dirname \"$0\")/seen\"\n"
                 "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\",\"kind\":\"ExecCredential\","
                 "\"status\":{\"token\":\"b\"}}'\n");
    setenv("GREETING", "from-moonsched", 1);
    ms_kubeconfig kc;
    load(&kc, "{apiVersion: client.authentication.k8s.io/v1beta1, command: ./beta, env: [{name: GREETING, value: kc}]}", NULL);
    double now = 0;
    int devnull = open("/dev/null", O_RDONLY);
    ms_exec_credential *ec = make(&kc, &now, devnull);
    ms_exec_creds c;
    ms_error err = {0};
    assert_int_equal(ms_exec_credential_get(ec, &c, &err), MS_OK);
    assert_string_equal(c.token, "b");
    ms_exec_creds_free(&c);
    /* IfAvailable, and stdin is not a terminal: not interactive */
    assert_string_equal(slurp("seen"), "kc|{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1beta1\","
                                       "\"spec\":{\"interactive\":false}}\n");
    ms_exec_credential_free(ec);
    ms_kubeconfig_free(&kc);
    unsetenv("GREETING");

    /* Always needs a terminal */
    load(&kc, "{apiVersion: client.authentication.k8s.io/v1, command: ./beta, interactiveMode: Always}", NULL);
    ec = make(&kc, &now, devnull);
    assert_int_equal(ms_exec_credential_get(ec, &c, &err), MS_EINVAL);
    assert_string_equal(err.msg, "user u: getting credentials: exec plugin cannot support interactive mode: standard "
                                 "input is not a terminal");
    assert_int_equal(ms_exec_credential_runs(ec), 0);
    ms_exec_credential_free(ec);
    ms_kubeconfig_free(&kc);
    close(devnull);
}

/* With a terminal on stdin, IfAvailable and Always make the run
 * interactive: the plugin is told so and gets the terminal. */
static void test_interactive_with_a_terminal(void **state) {
    (void)state;
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    assert_true(master >= 0);
    assert_int_equal(grantpt(master), 0);
    assert_int_equal(unlockpt(master), 0);
    int tty = open(ptsname(master), O_RDWR | O_NOCTTY);
    assert_true(tty >= 0);
    write_plugin("tty", "if [ -t 0 ]; then t=terminal; else t=none; fi\n"
                        "echo \"$t|$KUBERNETES_EXEC_INFO\" >\"$(dirname \"$0\")/seen\"\n"
                        "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
                        "\"status\":{\"token\":\"t\"}}'\n");
    static const char *const modes[] = {"IfAvailable", "Always", "Never"};
    static const char *const want[] = {"terminal|{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1\","
                                       "\"spec\":{\"interactive\":true}}\n",
                                       "terminal|{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1\","
                                       "\"spec\":{\"interactive\":true}}\n",
                                       "none|{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1\","
                                       "\"spec\":{\"interactive\":false}}\n"};
    for (size_t i = 0; i < 3; i++) {
        char yaml[200];
        snprintf(yaml, sizeof yaml, "{apiVersion: client.authentication.k8s.io/v1, command: ./tty, interactiveMode: %s}",
                 modes[i]);
        ms_kubeconfig kc;
        load(&kc, yaml, NULL);
        double now = 0;
        ms_exec_credential *ec = make(&kc, &now, tty);
        ms_exec_creds c;
        ms_error err = {0};
        if (ms_exec_credential_get(ec, &c, &err) != MS_OK) fail_msg("%s: %s", modes[i], err.msg);
        ms_exec_creds_free(&c);
        assert_string_equal(slurp("seen"), want[i]);
        ms_exec_credential_free(ec);
        ms_kubeconfig_free(&kc);
    }
    close(tty);
    close(master);
}

static void test_client_certificate(void **state) {
    (void)state;
    write_plugin("certs", "cat <<EOF\n"
                          "{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{"
                          "\"clientCertificateData\":\"-----BEGIN CERTIFICATE-----\\nMIIB\\n-----END CERTIFICATE-----\\n\","
                          "\"clientKeyData\":\"-----BEGIN PRIVATE KEY-----\\nMIIE\\n-----END PRIVATE KEY-----\\n\"}}\n"
                          "EOF\n");
    ms_kubeconfig kc;
    load(&kc, "{apiVersion: client.authentication.k8s.io/v1, command: ./certs, interactiveMode: Never}", NULL);
    double now = 0;
    ms_exec_credential *ec = make(&kc, &now, 0);
    ms_exec_creds c;
    ms_error err = {0};
    assert_int_equal(ms_exec_credential_get(ec, &c, &err), MS_OK);
    assert_null(c.token);
    assert_string_equal(c.cert, "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
    assert_int_equal(c.cert_len, strlen(c.cert));
    assert_string_equal(c.key, "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n");
    ms_exec_creds_free(&c);
    ms_exec_credential_free(ec);
    ms_kubeconfig_free(&kc);
}

static void test_failures(void **state) {
    (void)state;
    static const struct {
        const char *body;
        const char *msg;
    } cases[] = {
        {"echo 'error: no SSO session; run aws sso login' >&2\necho partial\nexit 255\n",
         "failed with exit code 255: error: no SSO session; run aws sso login"},
        {"exit 2\n", "failed with exit code 2"},
        {"kill -9 $$\n", "was killed by signal 9"},
        {"echo 'not json'\n", "decoding stdout: not a JSON object"},
        {"echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"Pod\"}'\n",
         "decoding stdout: expected kind ExecCredential with an apiVersion"},
        {"echo '{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"t\"}}'\n",
         "exec plugin is configured to use API version client.authentication.k8s.io/v1, plugin returned version "
         "client.authentication.k8s.io/v1beta1"},
        {"echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\"}'\n",
         "exec plugin didn't return a status field"},
        {"echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{}}'\n",
         "exec plugin didn't return a token or cert/key pair"},
        {"echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"t\","
         "\"clientKeyData\":\"-----BEGIN K\"}}'\n",
         "exec plugin returned only certificate or key, not both"},
        {"echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"t\","
         "\"expirationTimestamp\":\"tomorrow\"}}'\n",
         "decoding stdout: status.expirationTimestamp: not an RFC 3339 time"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_plugin("bad", cases[i].body);
        ms_kubeconfig kc;
        load(&kc, "{apiVersion: client.authentication.k8s.io/v1, command: ./bad, interactiveMode: Never}", NULL);
        double now = 0;
        ms_exec_credential *ec = make(&kc, &now, 0);
        ms_exec_creds c;
        ms_error err = {0};
        assert_int_not_equal(ms_exec_credential_get(ec, &c, &err), MS_OK);
        assert_null(c.token);
        if (strncmp(err.msg, "user u: getting credentials: ", 29) != 0 || !strstr(err.msg, cases[i].msg))
            fail_msg("case %zu: %s", i, err.msg);
        /* a failed run leaves nothing cached: the next request tries again */
        assert_int_not_equal(ms_exec_credential_get(ec, &c, &err), MS_OK);
        assert_int_equal(ms_exec_credential_runs(ec), 2);
        ms_exec_credential_free(ec);
        ms_kubeconfig_free(&kc);
    }

    ms_kubeconfig kc;
    load(&kc, "{apiVersion: client.authentication.k8s.io/v1, command: no-such-plugin-here, interactiveMode: Never, "
              "installHint: 'install it with: apt install no-such-plugin'}",
         NULL);
    double now = 0;
    ms_exec_credential *ec = make(&kc, &now, 0);
    ms_exec_creds c;
    ms_error err = {0};
    assert_int_equal(ms_exec_credential_get(ec, &c, &err), MS_ENOENT);
    assert_string_equal(err.msg, "user u: getting credentials: exec: executable no-such-plugin-here not found\n\n"
                                 "install it with: apt install no-such-plugin");
    ms_exec_credential_free(ec);
    ms_kubeconfig_free(&kc);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_token_cached_until_expiry),
        cmocka_unit_test(test_v1beta1_and_interactive),
        cmocka_unit_test(test_interactive_with_a_terminal),
        cmocka_unit_test(test_client_certificate),
        cmocka_unit_test(test_failures),
    };
    return cmocka_run_group_tests(tests, setup_dir, remove_dir);
}
