/* The moonsched command: argument parsing and exit codes only.
 * Exit codes: 0 success, 1 internal failure (out of memory, ...), 2 usage
 * errors, bad input files and features this build does not have. */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/run_flags.h"
#include "moonsched/log.h"
#include "moonsched/run.h"
#include <cjson/cJSON.h>

#include "cmd/config_check.h"
#include "cmd/deschedule.h"
#include "cmd/explain_remote.h"
#include "cmd/flag_value.h"
#include "cmd/snapshot.h"
#include "moonsched/simulate.h"
#include "policy/policy_check.h"

/* EXIT_POLICY: simulate ran, but a policy failed calls or was disabled. */
enum { EXIT_OK = 0, EXIT_INTERNAL = 1, EXIT_USAGE = 2, EXIT_POLICY = 3 };

static const char usage[] =
    "usage: moonsched simulate --cluster FILE... [--config FILE] [--policy FILE]...\n"
    "                          [--shadow FILE]... [--seed N] [--output table|json|html]\n"
    "                          [--generate SPEC] [--quiet] [--stats] [--evictions]\n"
    "                          [--deschedule POLICY] [--explain NS/NAME]\n"
    "       moonsched config check FILE [--output yaml|json]\n"
    "\n"
    "  --cluster FILE...  Nodes and Pods as YAML or JSON (multi-document, Lists,\n"
    "                     `kubectl get -o yaml` output); '-' reads standard input\n"
    "  --config FILE      a KubeSchedulerConfiguration (default: upstream's defaults)\n"
    "  --policy FILE      a Lua policy, added to every profile (repeatable); edits\n"
    "                     to the file are picked up while the run goes on\n"
    "  --shadow FILE      a Lua policy in shadow mode, beside every profile\n"
    "                     (repeatable): its choices are compared with the\n"
    "                     profiles' and never applied (docs/policies.md)\n"
    "  --seed N           seed for random tie-breaking among equal scores (default 1)\n"
    "  --output FORMAT    table (default), json, or html (one self-contained page:\n"
    "                     node utilisation before and after, placements, reasons,\n"
    "                     shadow disagreements)\n"
    "  --generate SPEC    a synthetic cluster, e.g. nodes=500,pods=1000,zones=3\n"
    "  --quiet            print no placements or node summary\n"
    "  --stats            print counts, throughput, latency and peak RSS on stderr\n"
    "  --evictions        the NoExecute taint eviction timeline instead of the\n"
    "                     placements: which bound pods go, when, and where they\n"
    "                     would be placed again (docs/taint-eviction.md)\n"
    "  --explain NS/NAME  why that pod went where it went, or nowhere, instead of\n"
    "                     the placements (docs/explain.md)\n"
    "  --deschedule POLICY  one descheduling pass with a DeschedulerPolicy after\n"
    "                     the placements: utilisation before and after, every\n"
    "                     move and every skip (docs/descheduler.md)\n"
    "\n"
    "  config check validates a KubeSchedulerConfiguration as the scheduler would\n"
    "  use it and prints the effective configuration (YAML, or JSON with\n"
    "  --output json); exit 0 when valid, 2 with the error when not.\n"
    "\n"
    "See docs/simulate.md for the formats and the generator keys.\n"
    "\n"
    "usage: moonsched deschedule --policy-config-file FILE [--kubeconfig FILE | --in-cluster]\n"
    "                            [--dry-run] [--descheduling-interval D] [--leader-elect]\n"
    "                            [--config FILE] [--policy FILE]... [--output table|json]\n"
    "                            [--secure-port N] [--leader-elect-resource-name NAME] [-v N] ...\n"
    "\n"
    "  One descheduling pass with a DeschedulerPolicy (descheduler/v1alpha2) and\n"
    "  exit, or one every --descheduling-interval; each eviction goes through the\n"
    "  Eviction API once the scheduler (--config, --policy) has a node for the\n"
    "  pod. --dry-run prints the plan with the predicted nodes and evicts\n"
    "  nothing. See docs/descheduler.md.\n"
    "\n"
    "usage: moonsched [run] [--kubeconfig FILE | --in-cluster] [--config FILE] [--policy FILE]...\n"
    "                       [--scheduler-name NAME] [--metrics-bind-address ADDR:PORT]\n"
    "                       [--leader-elect[=BOOL]] [--leader-elect-* ...]\n"
    "                       [--controllers=LIST] [-v N]\n"
    "                       [--log-format logfmt|json] [kube-scheduler's flags]\n"
    "       moonsched --version\n"
    "\n"
    "  --kubeconfig FILE  credentials and server (default: clientConnection.kubeconfig,\n"
    "                     in-cluster, $KUBECONFIG, ~/.kube/config)\n"
    "  --in-cluster       the pod's service account\n"
    "  --config FILE      a KubeSchedulerConfiguration (default: upstream's defaults)\n"
    "  --policy FILE[,onLoadError=skip]  a Lua policy, added to every profile\n"
    "                     (repeatable), reloaded when the file changes; one that does\n"
    "                     not load at start holds its profiles' pods until it does,\n"
    "                     or with onLoadError=skip lets them schedule without it\n"
    "  --scheduler-name NAME  schedulerName the first profile answers to\n"
    "  --metrics-bind-address ADDR:PORT  plain-HTTP /metrics, /healthz, /readyz\n"
    "                     (default: the config's metricsBindAddress, else\n"
    "                     " MS_RUN_DEFAULT_METRICS_ADDRESS "; \"0\" or \"\": off)\n"
    "  --secure-port N    HTTPS for /metrics, /healthz, /livez, /readyz with delegated\n"
    "                     authentication and authorization (default 10259; 0: off)\n"
    "  --bind-address IP  where HTTPS listens (default 0.0.0.0: every address)\n"
    "  --tls-cert-file, --tls-private-key-file  the HTTPS certificate (default:\n"
    "                     self-signed, generated in memory at start)\n"
    "  --authentication-kubeconfig, --authorization-kubeconfig  who reviews tokens\n"
    "                     and access (default: the scheduler's own connection)\n"
    "  --leader-elect[=BOOL]  elect a leader through a Lease before scheduling\n"
    "                     (default: the config's leaderElection.leaderElect, true)\n"
    "  --leader-elect-lease-duration, --leader-elect-renew-deadline,\n"
    "  --leader-elect-retry-period DURATION, --leader-elect-resource-lock,\n"
    "  --leader-elect-resource-name, --leader-elect-resource-namespace VALUE\n"
    "                     override the config's leaderElection\n"
    "  --secure-port, --bind-address, --tls-cert-file, --tls-private-key-file,\n"
    "  --authentication-kubeconfig, --authorization-kubeconfig  as kube-scheduler's\n"
    "  --debug-snapshot   keep every object's JSON so that /debug/snapshot on the\n"
    "                     secure port writes the scheduler's view (docs/explain.md)\n"
    "  --seed N           seed for random tie-breaking among equal scores, as\n"
    "                     simulate's (default: the time at start)\n"
    "  --controllers=LIST controllers beside the scheduler, comma-separated:\n"
    "                     taint-eviction (NoExecute taints evict pods;\n"
    "                     docs/taint-eviction.md); -NAME turns one off; none by default\n"
    "  -v N, --v N        verbosity: 0-3 info, 4 and up debug\n"
    "  --log-format F     logfmt (default) or json; --logging-format text|json too\n"
    "  --version          print the version and exit\n"
    "\n"
    "  The word `run` may be left out. kube-scheduler's other flags (--port,\n"
    "  --feature-gates, --profiling, ...) are accepted with a warning.\n"
    "See docs/run.md.\n"
    "\n"
    "usage: moonsched explain NAMESPACE/NAME [--server URL] [--certificate-authority FILE]\n"
    "                         [--insecure-skip-tls-verify] [--token TOKEN | --token-file FILE]\n"
    "                         [--output text|json]\n"
    "\n"
    "  Asks a running scheduler (its secure port, /debug/explain) why the pod is\n"
    "  where it is: its last scheduling cycle, and for a pending pod every node's\n"
    "  Filter status or scores computed now (docs/explain.md).\n"
    "  --server URL       the scheduler's secure port (default https://127.0.0.1:10259)\n"
    "  --certificate-authority FILE  the CA of its serving certificate\n"
    "  --insecure-skip-tls-verify    do not check the certificate (self-signed)\n"
    "  --token, --token-file  a bearer token the scheduler's API server accepts\n"
    "                     (allowed to get /debug/explain)\n"
    "\n"
    "usage: moonsched snapshot [--kubeconfig FILE] [--context NAME] [-o FILE]\n"
    "\n"
    "  Writes the cluster's Namespaces, Nodes, PriorityClasses,\n"
    "  PodDisruptionBudgets and Pods in the format simulate reads (a JSON List,\n"
    "  which is YAML too), to FILE or standard output: `simulate --cluster FILE`\n"
    "  with the scheduler's configuration and --seed replays its decisions\n"
    "  (docs/explain.md).\n"
    "\n"
    "usage: moonsched policy check FILE [--cluster FILE...] [--args JSON]\n"
    "\n"
    "  Loads a Lua policy (syntax, sandbox, init with the args) and, with a\n"
    "  cluster, runs every hook it defines over the cluster's pending pods and\n"
    "  nodes, reporting failures and the time per call (docs/policies.md).\n"
    "  Exit code 0 when everything passed, 2 otherwise.\n";

static int usage_error(const char *fmt, const char *arg) {
    fprintf(stderr, "moonsched: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n%s", usage);
    return EXIT_USAGE;
}

/* An argument's parser answers EXIT_OK, a usage error, or HELP. */
enum { HELP = -1 };

typedef struct simulate_args {
    ms_simulate_options o;
    const char **files, **policies, **shadows;   /* at most one per argument */
    uint32_t nfiles, npolicies, nshadows;
} simulate_args;

static int simulate_arg(int argc, char **argv, int *i, simulate_args *s) {
    const char *a = argv[*i], *v;
    if (strcmp(a, "--cluster") == 0) {
        /* One or more files up to the next option. */
        uint32_t start = s->nfiles;
        while (*i + 1 < argc && (argv[*i + 1][0] != '-' || strcmp(argv[*i + 1], "-") == 0))
            s->files[s->nfiles++] = argv[++*i];
        return s->nfiles == start ? usage_error("%s needs at least one file", a) : EXIT_OK;
    }
    if ((v = ms_flag_value(argc, argv, i, "--cluster", NULL))) {
        if (!*v) return usage_error("%s needs a file", "--cluster");
        s->files[s->nfiles++] = v;
    } else if ((v = ms_flag_value(argc, argv, i, "--config", NULL))) {
        if (!*v) return usage_error("%s needs a file", "--config");
        s->o.config_file = v;
    } else if ((v = ms_flag_value(argc, argv, i, "--policy", NULL))) {
        if (!*v) return usage_error("%s needs a file", "--policy");
        s->policies[s->npolicies++] = v;
    } else if ((v = ms_flag_value(argc, argv, i, "--shadow", NULL))) {
        if (!*v) return usage_error("%s needs a file", "--shadow");
        s->shadows[s->nshadows++] = v;
    } else if ((v = ms_flag_value(argc, argv, i, "--generate", NULL))) {
        if (!*v) return usage_error("%s needs a spec", "--generate");
        s->o.generate = v;
    } else if ((v = ms_flag_value(argc, argv, i, "--seed", NULL))) {
        char *end;
        errno = 0;
        unsigned long long seed = strtoull(v, &end, 0);
        if (!*v || *end || errno || *v == '-')
            return usage_error("--seed: expected a non-negative integer, got \"%s\"", v);
        s->o.seed = seed;
        s->o.has_seed = true;
    } else if ((v = ms_flag_value(argc, argv, i, "--output", NULL))) {
        if (strcmp(v, "table") == 0) s->o.output = MS_OUTPUT_TABLE;
        else if (strcmp(v, "json") == 0) s->o.output = MS_OUTPUT_JSON;
        else if (strcmp(v, "html") == 0) s->o.output = MS_OUTPUT_HTML;
        else return usage_error("--output: expected table, json or html, got \"%s\"", v);
    } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
        s->o.quiet = true;
    } else if (strcmp(a, "--stats") == 0) {
        s->o.stats = true;
    } else if (strcmp(a, "--evictions") == 0) {
        s->o.evictions = true;
    } else if ((v = ms_flag_value(argc, argv, i, "--explain", NULL))) {
        if (!strchr(v, '/')) return usage_error("--explain: expected NAMESPACE/NAME, got \"%s\"", v);
        s->o.explain = v;
    } else if ((v = ms_flag_value(argc, argv, i, "--deschedule", NULL))) {
        s->o.deschedule = v;
    } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
        return HELP;
    } else {
        return usage_error("unknown argument \"%s\"", a);
    }
    return EXIT_OK;
}

static int simulate_main(int argc, char **argv) {
    simulate_args s = {.files = calloc((size_t)argc + 1, sizeof *s.files),
                       .policies = calloc((size_t)argc + 1, sizeof *s.policies),
                       .shadows = calloc((size_t)argc + 1, sizeof *s.shadows)};
    ms_simulate_options_default(&s.o);
    if (!s.files || !s.policies || !s.shadows) {
        free(s.files);
        free(s.policies);
        free(s.shadows);
        fprintf(stderr, "moonsched: out of memory\n");
        return EXIT_INTERNAL;
    }
    int rc = EXIT_OK;
    for (int i = 0; i < argc && rc == EXIT_OK; i++) rc = simulate_arg(argc, argv, &i, &s);
    if (rc == EXIT_OK && s.nfiles == 0 && !s.o.generate)
        rc = usage_error("%s", "simulate needs --cluster FILE... or --generate SPEC");
    if (rc != EXIT_OK) {
        if (rc == HELP) fputs(usage, stdout);
        free(s.files);
        free(s.policies);
        free(s.shadows);
        return rc == HELP ? EXIT_OK : rc;
    }
    s.o.cluster_files = s.files;
    s.o.ncluster_files = s.nfiles;
    s.o.policy_files = s.policies;
    s.o.npolicy_files = s.npolicies;
    s.o.shadow_files = s.shadows;
    s.o.nshadow_files = s.nshadows;
    ms_error err = {0};
    ms_simulate_result res;
    ms_rc r = ms_simulate_run(&s.o, stdout, stderr, &res, &err);
    free(s.files);
    free(s.policies);
    free(s.shadows);
    if (fflush(stdout) != 0) {
        fprintf(stderr, "moonsched: writing output: %s\n", strerror(errno));
        return EXIT_INTERNAL;
    }
    if (r == MS_OK) return res.policy_failures || res.policy_disabled ? EXIT_POLICY : EXIT_OK;
    fprintf(stderr, "moonsched: %s\n", err.msg[0] ? err.msg : ms_rc_str(r));
    return r == MS_EINVAL || r == MS_EIO || r == MS_ENOENT ? EXIT_USAGE : EXIT_INTERNAL;
}

static void print_warning(void *ctx, const char *msg) {
    (void)ctx;
    fprintf(stderr, "moonsched: warning: %s\n", msg);
}

/* MOONSCHED_VERSION comes from the build (`git describe`, or VERSION=). */
#ifndef MOONSCHED_VERSION
#define MOONSCHED_VERSION "unknown"
#endif

static int print_version(void) {
    const char *v = MOONSCHED_VERSION;
    printf("moonsched %s%s\n", v[0] == 'v' ? "" : "v", v);
    return EXIT_OK;
}

/* kube-scheduler's flags and moonsched's (cmd/run_flags.h). */
static int run_main(int argc, char **argv) {
    ms_logger log = ms_log_default;
    ms_run_options o;
    ms_run_options_default(&o);
    ms_run_flags f = {.o = &o, .log = &log, .policies = calloc((size_t)argc + 1, sizeof *f.policies),
                      .warn = print_warning};
    if (!f.policies) {
        fprintf(stderr, "moonsched: out of memory\n");
        return EXIT_INTERNAL;
    }
    ms_error err = {0};
    ms_rc r = ms_run_flags_parse(argc, argv, &f, &err);
    if (r != MS_OK || f.action != MS_RUN_FLAGS_RUN) {
        free(f.policies);
        if (r != MS_OK) return usage_error("%s", err.msg);
        if (f.action == MS_RUN_FLAGS_VERSION) return print_version();
        fputs(usage, stdout);
        return EXIT_OK;
    }
    o.log = &log;
    /* Objects are decoded on the informers' threads and freed on the
     * scheduler's: with an arena per thread (glibc's default, up to 8 per
     * core) each keeps its own high-water mark and holes. Two arenas cost
     * no measurable contention here and some 3 MiB less peak RSS. */
    mallopt(M_ARENA_MAX, 2);
    r = ms_run(&o, NULL, &err);
    free(f.policies);
    if (r == MS_OK) return EXIT_OK;
    fprintf(stderr, "moonsched: %s\n", err.msg[0] ? err.msg : ms_rc_str(r));
    return r == MS_EINVAL || r == MS_ENOENT ? EXIT_USAGE : EXIT_INTERNAL;
}

/* `config check FILE [--output yaml|json]` */
static int config_main(int argc, char **argv) {
    if (argc < 1 || strcmp(argv[0], "check") != 0)
        return usage_error("%s", "config: expected \"check FILE\"");
    const char *file = NULL;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        const char *v;
        if ((v = ms_flag_value(argc, argv, &i, "--output", NULL))) {
            if (strcmp(v, "json") == 0) json = true;
            else if (strcmp(v, "yaml") == 0) json = false;
            else return usage_error("--output: expected yaml or json, got \"%s\"", v);
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage, stdout);
            return EXIT_OK;
        } else if (!file && (argv[i][0] != '-' || strcmp(argv[i], "-") == 0)) {
            file = argv[i];
        } else {
            return usage_error("unknown argument \"%s\"", argv[i]);
        }
    }
    if (!file) return usage_error("%s", "config check needs a FILE");
    ms_error err = {0};
    cJSON *doc = NULL;
    ms_rc r = ms_config_check(file, print_warning, NULL, &doc, &err);
    if (r != MS_OK) {
        fprintf(stderr, "moonsched: %s\n", err.msg[0] ? err.msg : ms_rc_str(r));
        return r == MS_ENOMEM ? EXIT_INTERNAL : EXIT_USAGE;
    }
    r = ms_config_write(doc, json, stdout);
    cJSON_Delete(doc);
    if (r != MS_OK || fflush(stdout) != 0) {
        fprintf(stderr, "moonsched: writing output: %s\n", strerror(errno));
        return EXIT_INTERNAL;
    }
    return EXIT_OK;
}

static int policy_main(int argc, char **argv) {
    if (argc < 1 || strcmp(argv[0], "check") != 0) {
        if (argc >= 1 && (strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0)) {
            fputs(usage, stdout);
            return EXIT_OK;
        }
        return usage_error("%s", "policy: expected \"policy check FILE\"");
    }
    ms_policy_check_options o;
    memset(&o, 0, sizeof o);
    const char **files = calloc((size_t)argc + 1, sizeof *files);
    if (!files) {
        fprintf(stderr, "moonsched: out of memory\n");
        return EXIT_INTERNAL;
    }
    uint32_t nfiles = 0;
    int rc = EXIT_OK;
    for (int i = 1; i < argc && rc == EXIT_OK; i++) {
        const char *a = argv[i], *v;
        if (strcmp(a, "--cluster") == 0) {
            int start = nfiles;
            while (i + 1 < argc && (argv[i + 1][0] != '-' || strcmp(argv[i + 1], "-") == 0))
                files[nfiles++] = argv[++i];
            if ((int)nfiles == start) rc = usage_error("%s needs at least one file", a);
        } else if ((v = ms_flag_value(argc, argv, &i, "--cluster", NULL))) {
            if (!*v) rc = usage_error("%s needs a file", "--cluster");
            else files[nfiles++] = v;
        } else if ((v = ms_flag_value(argc, argv, &i, "--args", NULL))) {
            if (!*v) rc = usage_error("%s needs a JSON object", "--args");
            o.args_json = v;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage, stdout);
            free(files);
            return EXIT_OK;
        } else if (a[0] == '-' && a[1]) {
            rc = usage_error("unknown argument \"%s\"", a);
        } else if (o.file) {
            rc = usage_error("policy check takes one file, got \"%s\" too", a);
        } else {
            o.file = a;
        }
    }
    if (rc == EXIT_OK && !o.file) rc = usage_error("%s", "policy check needs a policy FILE");
    if (rc != EXIT_OK) {
        free(files);
        return rc;
    }
    o.cluster_files = files;
    o.ncluster_files = nfiles;
    ms_error err = {0};
    ms_rc r = ms_policy_check(&o, stdout, NULL, &err);
    free(files);
    fflush(stdout);
    if (r == MS_OK) return EXIT_OK;
    fprintf(stderr, "moonsched: %s\n", err.msg[0] ? err.msg : ms_rc_str(r));
    return r == MS_ENOMEM ? EXIT_INTERNAL : EXIT_USAGE;
}

static int explain_arg(int argc, char **argv, int *i, ms_explain_remote_options *o) {
    const char *a = argv[*i], *v;
    if ((v = ms_flag_value(argc, argv, i, "--server", NULL))) o->server = v;
    else if ((v = ms_flag_value(argc, argv, i, "--certificate-authority", NULL))) o->ca_file = v;
    else if ((v = ms_flag_value(argc, argv, i, "--token", NULL))) o->token = v;
    else if ((v = ms_flag_value(argc, argv, i, "--token-file", NULL))) o->token_file = v;
    else if (strcmp(a, "--insecure-skip-tls-verify") == 0) o->insecure = true;
    else if ((v = ms_flag_value(argc, argv, i, "--output", NULL)) || (v = ms_flag_value(argc, argv, i, "-o", NULL))) {
        if (strcmp(v, "json") == 0) o->json = true;
        else if (strcmp(v, "text") == 0) o->json = false;
        else return usage_error("--output: expected text or json, got \"%s\"", v);
    } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) return HELP;
    else if (a[0] != '-' && !o->pod) o->pod = a;
    else return usage_error("unknown argument \"%s\"", a);
    return EXIT_OK;
}

/* `snapshot [--kubeconfig FILE] [--context NAME] [-o FILE]` */
static int snapshot_main(int argc, char **argv) {
    ms_snapshot_options o = {0};
    const char *file = NULL;
    for (int i = 0; i < argc; i++) {
        const char *v;
        if ((v = ms_flag_value(argc, argv, &i, "--kubeconfig", NULL))) o.kubeconfig = v;
        else if ((v = ms_flag_value(argc, argv, &i, "--context", NULL))) o.context = v;
        else if ((v = ms_flag_value(argc, argv, &i, "--output", NULL)) || (v = ms_flag_value(argc, argv, &i, "-o", NULL))) file = v;
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage, stdout);
            return EXIT_OK;
        } else return usage_error("unknown argument \"%s\"", argv[i]);
    }
    FILE *out = file && strcmp(file, "-") != 0 ? fopen(file, "w") : stdout;
    if (!out) {
        fprintf(stderr, "moonsched: %s: %s\n", file, strerror(errno));
        return EXIT_USAGE;
    }
    ms_error err = {0};
    ms_rc r = ms_snapshot_write(&o, out, &err);
    bool write_failed = (out == stdout ? fflush(out) : fclose(out)) != 0;
    if (r == MS_OK && write_failed) {
        fprintf(stderr, "moonsched: writing %s: %s\n", file ? file : "output", strerror(errno));
        return EXIT_INTERNAL;
    }
    if (r == MS_OK) return EXIT_OK;
    fprintf(stderr, "moonsched: %s\n", err.msg[0] ? err.msg : ms_rc_str(r));
    return r == MS_EINVAL ? EXIT_USAGE : EXIT_INTERNAL;
}

/* `explain NS/NAME [flags]` */
static int explain_main(int argc, char **argv) {
    ms_explain_remote_options o = {0};
    int rc = EXIT_OK;
    for (int i = 0; i < argc && rc == EXIT_OK; i++) rc = explain_arg(argc, argv, &i, &o);
    if (rc == HELP) {
        fputs(usage, stdout);
        return EXIT_OK;
    }
    if (rc != EXIT_OK) return rc;
    if (!o.pod || !strchr(o.pod, '/')) return usage_error("%s", "explain needs NAMESPACE/NAME");
    ms_error err = {0};
    ms_rc r = ms_explain_remote(&o, stdout, &err);
    fflush(stdout);
    if (r == MS_OK) return EXIT_OK;
    fprintf(stderr, "moonsched: %s\n", err.msg[0] ? err.msg : ms_rc_str(r));
    return r == MS_ENOENT || r == MS_EINVAL ? EXIT_USAGE : EXIT_INTERNAL;
}

static int deschedule_main(int argc, char **argv) {
    ms_deschedule_options o;
    ms_deschedule_options_default(&o);
    o.log = &ms_log_default;
    const char **policies = calloc((size_t)argc + 1, sizeof *policies);
    if (!policies) {
        fprintf(stderr, "moonsched: out of memory\n");
        return EXIT_INTERNAL;
    }
    bool help = false;
    ms_error err = {0};
    ms_rc r = ms_deschedule_parse_args(argc, argv, &o, policies, &help, &err);
    if (r == MS_OK && help) {
        free(policies);
        fputs(usage, stdout);
        return EXIT_OK;
    }
    if (r != MS_OK) {
        free(policies);
        return usage_error("%s", err.msg);
    }
    ms_logger log = ms_log_default;
    if (o.debug) log.level = MS_LOG_DEBUG;
    o.log = &log;
    r = ms_deschedule_run(&o, &err);
    free(policies);
    if (r == MS_OK) return EXIT_OK;
    fprintf(stderr, "moonsched: %s\n", err.msg[0] ? err.msg : ms_rc_str(r));
    return r == MS_EINVAL || r == MS_ENOENT ? EXIT_USAGE : EXIT_INTERNAL;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fputs(usage, stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "simulate") == 0) return simulate_main(argc - 2, argv + 2);
    if (strcmp(cmd, "run") == 0) return run_main(argc - 2, argv + 2);
    if (strcmp(cmd, "deschedule") == 0) return deschedule_main(argc - 2, argv + 2);
    if (strcmp(cmd, "config") == 0) return config_main(argc - 2, argv + 2);
    if (strcmp(cmd, "policy") == 0) return policy_main(argc - 2, argv + 2);
    if (strcmp(cmd, "explain") == 0) return explain_main(argc - 2, argv + 2);
    if (strcmp(cmd, "snapshot") == 0) return snapshot_main(argc - 2, argv + 2);
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) return print_version();
    /* kube-scheduler's command line: flags without a subcommand run, so
     * that a kube-scheduler manifest needs only its command changed. */
    if (cmd[0] == '-' && strcmp(cmd, "--help") != 0 && strcmp(cmd, "-h") != 0)
        return run_main(argc - 1, argv + 1);
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage, stdout);
        return EXIT_OK;
    }
    fprintf(stderr, "moonsched: unknown command \"%s\"\n%s", cmd, usage);
    return EXIT_USAGE;
}
