/* `moonsched run`'s flags, kube-scheduler's among them. See
 * cmd/run_flags.h. */
#include "cmd/run_flags.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cmd/flag_value.h"
#include "serving/http_server.h"

/* kube-scheduler v1.20's flags that have no meaning here: accepted,
 * warned about. `value`: the flag takes a value ("--f v" reads v); the
 * others are booleans. `why` ends the warning. */
typedef struct ignored_flag {
    const char *name;
    bool value;
    const char *why;
} ignored_flag;

static const char no_meaning[] = "kube-scheduler's flag has no meaning in moonsched";
static const char in_config[] = "set it in the --config file (clientConnection)";
static const char no_policy[] = "the legacy Policy API is not supported; use --config profiles";
static const char klog[] = "moonsched logs to standard error (--v, --log-format)";
static const char serving[] = "secure serving takes the certificate files, the port and the kubeconfigs";

static const ignored_flag ignored_flags[] = {
    {"--feature-gates", true, "moonsched has no feature gates"},
    {"--master", true, "the server comes from the kubeconfig"},
    {"--write-config-to", true, "`moonsched config check` prints the effective configuration"},
    {"--profiling", false, no_meaning},
    {"--contention-profiling", false, no_meaning},
    {"--kube-api-qps", true, in_config},
    {"--kube-api-burst", true, in_config},
    {"--kube-api-content-type", true, "moonsched speaks JSON"},
    {"--hard-pod-affinity-symmetric-weight", true, "set it in the InterPodAffinity plugin's args"},
    {"--algorithm-provider", true, no_policy},
    {"--policy-config-file", true, no_policy},
    {"--policy-configmap", true, no_policy},
    {"--policy-configmap-namespace", true, no_policy},
    {"--use-legacy-policy-config", false, no_policy},
    {"--cert-dir", true, serving},
    {"--http2-max-streams-per-connection", true, no_meaning},
    {"--permit-port-sharing", false, no_meaning},
    {"--tls-sni-cert-key", true, no_meaning},
    {"--authentication-skip-lookup", false, no_meaning},
    {"--authentication-tolerate-lookup-failure", false, no_meaning},
    {"--requestheader-allowed-names", true, no_meaning},
    {"--requestheader-client-ca-file", true, no_meaning},
    {"--requestheader-extra-headers-prefix", true, no_meaning},
    {"--requestheader-group-headers", true, no_meaning},
    {"--requestheader-username-headers", true, no_meaning},
    {"--authorization-webhook-cache-authorized-ttl", true, no_meaning},
    {"--authorization-webhook-cache-unauthorized-ttl", true, no_meaning},
    {"--show-hidden-metrics-for-version", true, no_meaning},
    {"--experimental-logging-sanitization", false, no_meaning},
    {"--add-dir-header", false, klog},
    {"--alsologtostderr", false, klog},
    {"--log-backtrace-at", true, klog},
    {"--log-dir", true, klog},
    {"--log-file", true, klog},
    {"--log-file-max-size", true, klog},
    {"--log-flush-frequency", true, klog},
    {"--logtostderr", false, klog},
    {"--one-output", false, klog},
    {"--skip-headers", false, klog},
    {"--skip-log-headers", false, klog},
    {"--stderrthreshold", true, klog},
    {"--vmodule", true, klog},
};

/* What the whole command line says, for what depends on other flags. */
typedef struct parse_state {
    ms_run_flags *f;
    ms_error *err;
    const char *lock_name, *lock_namespace;  /* --lock-object-*: without --config only */
    const char *address, *port;              /* --address, --port */
} parse_state;

__attribute__((format(printf, 2, 3))) static void warn(const ms_run_flags *f, const char *fmt, ...) {
    if (!f->warn) return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    f->warn(f->warn_ctx, msg);
}

static ms_rc parse_verbosity(ms_run_flags *f, const char *v, ms_error *err) {
    bool debug;
    if (ms_flag_verbosity(v, &debug, err) != MS_OK) return MS_EINVAL;
    f->log->level = debug ? MS_LOG_DEBUG : MS_LOG_INFO;
    return MS_OK;
}

/* --log-format (moonsched's: logfmt, json) and --logging-format
 * (kube-scheduler's: text, json; text is logfmt here). */
static ms_rc parse_log_format(ms_run_flags *f, const char *name, const char *v, ms_error *err) {
    bool upstream = strcmp(name, "--logging-format") == 0;
    const char *plain = upstream ? "text" : "logfmt";
    if (strcmp(v, "json") == 0) f->log->json = true;
    else if (strcmp(v, plain) == 0) f->log->json = false;
    else return ms_error_set(err, MS_EINVAL, "%s: expected %s or json, got \"%s\"", name, plain, v);
    return MS_OK;
}

/* Flags that take a file, a name or an address: the value, stored. */
typedef struct string_flag {
    const char *name;
    size_t offset;                 /* in ms_run_options; SIZE_MAX: in parse_state */
    const char *what;              /* for "needs a ..." */
} string_flag;

#define OPT(field) offsetof(ms_run_options, field)
static const string_flag string_flags[] = {
    {"--kubeconfig", OPT(kubeconfig), "file"},
    {"--config", OPT(config_file), "file"},
    {"--scheduler-name", OPT(scheduler_name), "name"},
    {"--leader-elect-resource-lock", OPT(le_resource_lock), "value"},
    {"--leader-elect-resource-name", OPT(le_resource_name), "name"},
    {"--leader-elect-resource-namespace", OPT(le_resource_namespace), "namespace"},
    {"--bind-address", OPT(bind_address), "address"},
    {"--tls-cert-file", OPT(tls_cert_file), "file"},
    {"--authorization-always-allow-paths", OPT(always_allow_paths), "paths"},
    {"--tls-private-key-file", OPT(tls_key_file), "file"},
    {"--tls-min-version", OPT(tls_min_version), "version"},
    {"--tls-cipher-suites", OPT(tls_cipher_suites), "list of cipher suites"},
    {"--authentication-kubeconfig", OPT(authn_kubeconfig), "file"},
    {"--authorization-kubeconfig", OPT(authz_kubeconfig), "file"},
    {"--client-ca-file", OPT(client_ca_file), "file"},
};

/* 0: not one of them; 1: read; -1: error. */
static int string_option(int argc, char **argv, int *i, parse_state *ps) {
    bool missing;
    const char *v;
    for (size_t k = 0; k < sizeof string_flags / sizeof *string_flags; k++) {
        const string_flag *sf = &string_flags[k];
        if (!(v = ms_flag_value(argc, argv, i, sf->name, &missing))) continue;
        if (!*v) {
            ms_error_set(ps->err, MS_EINVAL, "%s needs a %s", sf->name, sf->what);
            return -1;
        }
        *(const char **)((char *)ps->f->o + sf->offset) = v;
        return 1;
    }
    static const char *const later[] = {"--lock-object-name", "--lock-object-namespace", "--address", "--port"};
    const char **slot[] = {&ps->lock_name, &ps->lock_namespace, &ps->address, &ps->port};
    for (size_t k = 0; k < 4; k++) {
        if (!(v = ms_flag_value(argc, argv, i, later[k], &missing))) continue;
        if (missing) {
            ms_error_set(ps->err, MS_EINVAL, "%s needs a value", later[k]);
            return -1;
        }
        *slot[k] = v;
        return 1;
    }
    return 0;
}

/* --controllers: "taint-eviction", "-taint-eviction", comma-separated (not
 * kube-scheduler's: kube-controller-manager's flag of the same name). */
static ms_rc parse_controllers(ms_run_options *o, const char *v, ms_error *err) {
    char name[64];
    for (const char *p = v; *p;) {
        size_t n = strcspn(p, ",");
        snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), p);
        bool off = name[0] == '-';
        if (strcmp(name + off, "taint-eviction") != 0)
            return ms_error_set(err, MS_EINVAL, "--controllers: unknown controller \"%s\" (known: taint-eviction)",
                                name);
        o->taint_eviction = !off;
        p += n + (p[n] == ',');
    }
    return MS_OK;
}

/* Durations, the port, verbosity, log formats, the metrics address. */
static int valued_option(int argc, char **argv, int *i, parse_state *ps) {
    ms_run_options *o = ps->f->o;
    ms_error *err = ps->err;
    bool missing;
    const char *v;
    static const char *const durations[] = {"--leader-elect-lease-duration", "--leader-elect-renew-deadline",
                                            "--leader-elect-retry-period"};
    double *dslot[] = {&o->le_lease_duration, &o->le_renew_deadline, &o->le_retry_period};
    for (size_t k = 0; k < 3; k++)
        if ((v = ms_flag_value(argc, argv, i, durations[k], &missing)))
            return ms_flag_duration(durations[k], v, false, dslot[k], err) == MS_OK ? 1 : -1;
    if ((v = ms_flag_value(argc, argv, i, "--authentication-token-webhook-cache-ttl", &missing))) {
        double d;
        if (ms_flag_duration("--authentication-token-webhook-cache-ttl", v, true, &d, err) != MS_OK) return -1;
        /* 0s caches nothing, as upstream's cache whose entries expire at once. */
        o->authn_token_cache_ttl = d > 0 ? d : -1;
        return 1;
    }
    if ((v = ms_flag_value(argc, argv, i, "--controllers", &missing)))
        return parse_controllers(o, v, err) == MS_OK ? 1 : -1;
    if ((v = ms_flag_value(argc, argv, i, "--seed", &missing))) {
        if (ms_flag_seed(v, &o->seed, err) != MS_OK) return -1;
        o->has_seed = true;
        return 1;
    }
    if ((v = ms_flag_value(argc, argv, i, "--secure-port", &missing)))
        return ms_flag_port("--secure-port", v, &o->secure_port, err) == MS_OK ? 1 : -1;
    /* pflag's shorthand also reads "-v4" */
    if (strncmp(argv[*i], "-v", 2) == 0 && argv[*i][2] >= '0' && argv[*i][2] <= '9')
        return parse_verbosity(ps->f, argv[*i] + 2, err) == MS_OK ? 1 : -1;
    if ((v = ms_flag_value(argc, argv, i, "-v", &missing)) || (v = ms_flag_value(argc, argv, i, "--v", &missing)))
        return parse_verbosity(ps->f, v, err) == MS_OK ? 1 : -1;
    if ((v = ms_flag_value(argc, argv, i, "--log-format", &missing)))
        return parse_log_format(ps->f, "--log-format", v, err) == MS_OK ? 1 : -1;
    if ((v = ms_flag_value(argc, argv, i, "--logging-format", &missing)))
        return parse_log_format(ps->f, "--logging-format", v, err) == MS_OK ? 1 : -1;
    if ((v = ms_flag_value(argc, argv, i, "--policy", &missing))) {
        if (!*v) return ms_error_set(err, MS_EINVAL, "--policy needs a file"), -1;
        ps->f->policies[o->npolicy_files++] = v;
        return 1;
    }
    if ((v = ms_flag_value(argc, argv, i, "--metrics-bind-address", &missing))) {
        char host[256];
        uint16_t port;
        ms_error e = {0};
        if (!ms_http_address_disabled(v) && ms_http_parse_address(v, host, sizeof host, &port, &e) != MS_OK)
            return ms_error_set(err, MS_EINVAL, "--metrics-bind-address: %s", e.msg), -1;
        o->metrics_bind_address = v;
        return 1;
    }
    return 0;
}

/* Booleans, --help and --version. */
static int bool_option(const char *a, parse_state *ps) {
    ms_run_flags *f = ps->f;
    bool b;
    int r;
    if ((r = ms_flag_bool(a, "--leader-elect", &b, ps->err)) != 0) {
        if (r > 0) f->o->leader_elect = b ? 1 : -1;
        return r;
    }
    if ((r = ms_flag_bool(a, "--in-cluster", &b, ps->err)) != 0) {
        if (r > 0) f->o->in_cluster = b;
        return r;
    }
    if ((r = ms_flag_bool(a, "--debug-snapshot", &b, ps->err)) != 0) {
        if (r > 0) f->o->debug_snapshot = b;
        return r;
    }
    if ((r = ms_flag_bool(a, "--plain-metrics", &b, ps->err)) != 0) {
        if (r > 0) f->o->plain_metrics = b;
        return r;
    }
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
        f->action = MS_RUN_FLAGS_HELP;
        return 1;
    }
    /* pflag's version[=true]: "raw" prints it too (without decoration upstream) */
    if (strcmp(a, "--version=raw") == 0) a = "--version";
    if ((r = ms_flag_bool(a, "--version", &b, ps->err)) != 0) {
        if (r > 0 && b && f->action == MS_RUN_FLAGS_RUN) f->action = MS_RUN_FLAGS_VERSION;
        return r;
    }
    return 0;
}

static int ignored_option(int argc, char **argv, int *i, parse_state *ps) {
    const char *a = argv[*i];
    for (size_t k = 0; k < sizeof ignored_flags / sizeof *ignored_flags; k++) {
        const ignored_flag *g = &ignored_flags[k];
        size_t n = strlen(g->name);
        if (strncmp(a, g->name, n) != 0 || (a[n] != '=' && a[n] != '\0')) continue;
        const char *v = a[n] == '=' ? a + n + 1 : "";
        if (!a[n] && g->value) {
            if (*i + 1 >= argc) return ms_error_set(ps->err, MS_EINVAL, "%s needs a value", g->name), -1;
            v = argv[++*i];
        }
        warn(ps->f, "ignoring %s%s%s: %s", g->name, *v ? "=" : "", v, g->why);
        return 1;
    }
    return 0;
}

/* What depends on the whole line: --lock-object-* (without --config, as
 * upstream), --address/--port as the plain-HTTP metrics address. */
static ms_rc finish(parse_state *ps) {
    ms_run_options *o = ps->f->o;
    if (o->in_cluster && o->kubeconfig)
        return ms_error_set(ps->err, MS_EINVAL, "--kubeconfig and --in-cluster exclude each other");
    if (ps->lock_name || ps->lock_namespace) {
        if (o->config_file) {
            warn(ps->f, "ignoring %s: with --config, kube-scheduler reads leaderElection from the file",
                 ps->lock_name ? "--lock-object-name" : "--lock-object-namespace");
        } else {
            if (ps->lock_name && !o->le_resource_name) o->le_resource_name = ps->lock_name;
            if (ps->lock_namespace && !o->le_resource_namespace) o->le_resource_namespace = ps->lock_namespace;
        }
    }
    if ((ps->address || ps->port) && !o->metrics_bind_address) {
        int32_t port = 10251;
        if (ps->port && ms_flag_port("--port", ps->port, &port, ps->err) != MS_OK) return MS_EINVAL;
        const char *host = ps->address ? ps->address : "0.0.0.0";
        bool v6 = strchr(host, ':') != NULL;
        if (port == 0) snprintf(ps->f->metrics_address, sizeof ps->f->metrics_address, "0");
        else
            snprintf(ps->f->metrics_address, sizeof ps->f->metrics_address, "%s%s%s:%d", v6 ? "[" : "", host,
                     v6 ? "]" : "", port);
        o->metrics_bind_address = ps->f->metrics_address;
    }
    return MS_OK;
}

ms_rc ms_run_flags_parse(int argc, char **argv, ms_run_flags *f, ms_error *err) {
    parse_state ps = {.f = f, .err = err};
    f->action = MS_RUN_FLAGS_RUN;
    f->o->policy_files = f->policies;
    for (int i = 0; i < argc; i++) {
        int r = bool_option(argv[i], &ps);
        if (r == 0) r = string_option(argc, argv, &i, &ps);
        if (r == 0) r = valued_option(argc, argv, &i, &ps);
        if (r == 0) r = ignored_option(argc, argv, &i, &ps);
        if (r < 0) return MS_EINVAL;
        if (r == 0) return ms_error_set(err, MS_EINVAL, "unknown argument \"%s\"", argv[i]);
        if (f->action == MS_RUN_FLAGS_HELP) return MS_OK;
    }
    return finish(&ps);
}
