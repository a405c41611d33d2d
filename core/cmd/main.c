/* The moonsched command: argument parsing and exit codes only.
 * Exit codes: 0 success, 1 internal failure (out of memory, ...), 2 usage
 * errors, bad input files and features this build does not have. */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/suggest.h"
#include "cmd/run_flags.h"
#include "moonsched/config.h"
#include "moonsched/log.h"
#include "moonsched/run.h"
#include <cjson/cJSON.h>

#include "cmd/command_docs.h"
#include "cmd/config_check.h"
#include "codec/yaml_write.h"
#include "cmd/deschedule.h"
#include "client/explain_remote.h"
#include "cmd/flag_value.h"
#include "run/snapshot.h"
#include "moonsched/simulate.h"
#include "client/http_endpoint.h"
#include "policy/policy_kit.h"
#include "policy/policy_check.h"
#include "simulate/explain_text.h"

/* EXIT_POLICY: simulate ran, but a policy failed calls or was disabled. */
enum { EXIT_OK = 0, EXIT_INTERNAL = 1, EXIT_USAGE = 2, EXIT_POLICY = 3 };

/* MOONSCHED_VERSION comes from the build (`git describe`, or VERSION=). */
#ifndef MOONSCHED_VERSION
#define MOONSCHED_VERSION "unknown"
#endif

/* "v0.1.0 (commit 1ffb955)": --version, and what the HTML report says ran. */
static void format_version(char *buf, size_t n) {
    const char *v = MOONSCHED_VERSION;
    snprintf(buf, n, "%s%s (commit %s)", v[0] == 'v' ? "" : "v", v, MOONSCHED_COMMIT);
}

static const char help_simulate[] =
    "usage: moonsched simulate --cluster FILE... [--config FILE]\n"
    "                          [--policy FILE [--policy-args JSON]]...\n"
    "                          [--shadow FILE [--policy-args JSON]]... [--seed N]\n"
    "                          [--output table|json|html]\n"
    "                          [--generate SPEC] [--quiet] [--stats] [--evictions]\n"
    "                          [--deschedule POLICY] [--explain NS/NAME]\n"
    "\n"
    "  --cluster FILE...  Nodes and Pods as YAML or JSON (multi-document, Lists,\n"
    "                     `kubectl get -o yaml` output); '-' reads standard input\n"
    "  --config FILE      a KubeSchedulerConfiguration (default: upstream's defaults)\n"
    "  --policy FILE      a Lua policy, added to every profile (repeatable); edits\n"
    "                     to the file are picked up while the run goes on\n"
    "  --policy-args JSON the init args (a JSON object) of the --policy or\n"
    "                     --shadow file just before it\n"
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
    "See docs/simulate.md for the formats and the generator keys.\n";

static const char help_config[] =
    "usage: moonsched config check FILE [--output yaml|json]\n"
    "\n"
    "  config check validates a KubeSchedulerConfiguration as the scheduler would\n"
    "  use it and prints the effective configuration (YAML, or JSON with\n"
    "  --output json); exit 0 when valid, 2 with the error when not.\n";

static const char help_deschedule[] =
    "usage: moonsched deschedule --policy-config-file FILE [--kubeconfig FILE | --in-cluster]\n"
    "                            [--dry-run] [--descheduling-interval D] [--leader-elect]\n"
    "                            [--config FILE] [--policy FILE]... [--output table|json]\n"
    "                            [--leader-elect-lease-duration D] [--leader-elect-renew-deadline D]\n"
    "                            [--leader-elect-retry-period D] [--leader-elect-resource-name NAME]\n"
    "                            [--leader-elect-resource-namespace NS] [--secure-port N]\n"
    "                            [--bind-address IP] [--tls-cert-file FILE --tls-private-key-file FILE]\n"
    "                            [-v|--v N]\n"
    "\n"
    "  One descheduling pass with a DeschedulerPolicy (descheduler/v1alpha2) and\n"
    "  exit, or one every --descheduling-interval; each eviction goes through the\n"
    "  Eviction API once the scheduler (--config, --policy) has a node for the\n"
    "  pod. --dry-run prints the plan with the predicted nodes and evicts\n"
    "  nothing. See docs/descheduler.md.\n";

static const char help_run[] =
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
    "  --metrics-bind-address ADDR:PORT  plain HTTP for /healthz, /livez, /readyz\n"
    "                     (default: the config's metricsBindAddress, else off;\n"
    "                     \"0\" or \"\": off)\n"
    "  --plain-metrics    /metrics and /configz on the plain port too (no\n"
    "                     authentication: anyone who reaches it reads them)\n"
    "  --secure-port N    HTTPS for /metrics, /healthz, /livez, /readyz with delegated\n"
    "                     authentication and authorization (default 10259; 0: off)\n"
    "  --bind-address IP  where HTTPS listens (default 0.0.0.0: every address)\n"
    "  --tls-cert-file, --tls-private-key-file  the HTTPS certificate (default:\n"
    "                     self-signed, generated in memory at start)\n"
    "  --tls-min-version VersionTLS1x, --tls-cipher-suites LIST  as kube-scheduler's\n"
    "  --authentication-kubeconfig, --authorization-kubeconfig  who reviews tokens\n"
    "                     and access (default: the scheduler's own connection)\n"
    "  --client-ca-file FILE  client certificates these CAs signed authenticate as\n"
    "                     their Common Name, in their Organizations' groups\n"
    "  --authorization-always-allow-paths PATHS  comma-separated paths served\n"
    "                     without a review (default /healthz,/livez,/readyz)\n"
    "  --leader-elect[=BOOL]  elect a leader through a Lease before scheduling\n"
    "                     (default: the config's leaderElection.leaderElect, true)\n"
    "  --leader-elect-lease-duration, --leader-elect-renew-deadline,\n"
    "  --leader-elect-retry-period DURATION, --leader-elect-resource-lock,\n"
    "  --leader-elect-resource-name, --leader-elect-resource-namespace VALUE\n"
    "                     override the config's leaderElection\n"
    "  --authentication-token-webhook-cache-ttl DURATION  how long a token's\n"
    "                     review is kept (default 10s; 0s: every request reviewed)\n"
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
    "  The word `run` may be left out. --port N, kube-scheduler's deprecated\n"
    "  insecure port, turns the plain port on at 0.0.0.0:N (0: off) unless\n"
    "  --metrics-bind-address is given. kube-scheduler's other flags\n"
    "  (--feature-gates, --profiling, ...) are accepted with a warning.\n"
    "See docs/run.md.\n";

static const char help_explain[] =
    "usage: moonsched explain NAMESPACE/NAME [--kubeconfig FILE] [--context NAME]\n"
    "                         [--scheduler [NAMESPACE/]POD | --lease NAMESPACE/NAME] [--port N]\n"
    "                         [--output text|json]\n"
    "       moonsched explain NAMESPACE/NAME --server URL [--certificate-authority FILE]\n"
    "                         [--insecure-skip-tls-verify] [--token TOKEN | --token-file FILE]\n"
    "\n"
    "  Asks a running scheduler (its secure port, /debug/explain) why the pod is\n"
    "  where it is: its last scheduling cycle, and for a pending pod every node's\n"
    "  Filter status or scores computed now (docs/explain.md). Without --server,\n"
    "  through the kubeconfig's API server, as kubectl: the leader (the holder of\n"
    "  the Lease) or the --scheduler pod, reached by the pods/proxy subresource.\n"
    "  --kubeconfig FILE  default: $KUBECONFIG, then ~/.kube/config\n"
    "  --context NAME     a context of the kubeconfig\n"
    "  --scheduler [NS/]POD  this scheduler pod, not the leader\n"
    "  --lease NS/NAME    the leader election Lease (default kube-system/kube-scheduler)\n"
    "  --port N           the scheduler's secure port (default 10259)\n"
    "  --server URL       the scheduler's secure port itself, not through the API server\n"
    "  --certificate-authority FILE  the CA of its serving certificate\n"
    "  --insecure-skip-tls-verify    do not check the certificate (self-signed)\n"
    "  --token, --token-file  a bearer token the scheduler's API server accepts\n"
    "                     (allowed to get /debug/explain)\n";

static const char help_snapshot[] =
    "usage: moonsched snapshot [--kubeconfig FILE] [--context NAME] [-o|--output FILE]\n"
    "\n"
    "  Writes the cluster's Namespaces, Nodes, PriorityClasses,\n"
    "  PodDisruptionBudgets and Pods in the format simulate reads (a JSON List,\n"
    "  which is YAML too), to FILE or standard output: simulate on that file,\n"
    "  with the scheduler's configuration and seed, replays its decisions\n"
    "  (docs/explain.md).\n";

static const char help_completion[] =
    "usage: moonsched completion bash|zsh|fish\n"
    "\n"
    "  Prints a script that completes moonsched's commands and each command's\n"
    "  flags in that shell:\n"
    "    bash: source <(moonsched completion bash)\n"
    "    zsh:  moonsched completion zsh >\"${fpath[1]}/_moonsched\"\n"
    "    fish: moonsched completion fish >~/.config/fish/completions/moonsched.fish\n";

static const char help_man[] =
    "usage: moonsched man\n"
    "\n"
    "  Prints moonsched(1), the manual page made of every command's help, as\n"
    "  roff: man <(moonsched man), or `make install` puts it in place.\n";

/* A numeric macro's value as a string literal, for the help texts. */
#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

static const char help_policy[] =
    "usage: moonsched policy check FILE [--cluster FILE...] [--args JSON]\n"
    "                              [--pods GLOB] [--nodes GLOB] [--max-nodes N]\n"
    "                              [--budget MS] [--init-budget MS]\n"
    "       moonsched policy test [SPEC...] [-- BUSTED-OPTION...]\n"
    "       moonsched policy init [DIR]\n"
    "\n"
    "  check: loads a Lua policy (syntax, sandbox, init with the args) and,\n"
    "  with a cluster, runs every hook it defines over the cluster's pending\n"
    "  pods and nodes, printing each node's filter verdict and score per pod,\n"
    "  failures and the time per call. Exit code 0 when everything passed, 2\n"
    "  otherwise. --pods and --nodes (shell patterns over NS/NAME and node\n"
    "  names) and --max-nodes (node rows per pod, the rest counted) narrow\n"
    "  the listing; every hook still runs over the whole cluster.\n"
    "  --budget MS: the CPU time of each hook call, as a profile's budgetMs\n"
    "  (default 50; at most " STRINGIFY(MS_POLICY_BUDGET_MAX_MS) ").\n"
    "  --init-budget MS: the CPU time of the load (the file's top level and\n"
    "  init), as a profile's initBudgetMs (default the larger of --budget and\n"
    "  1000; at most " STRINGIFY(MS_POLICY_BUDGET_MAX_MS) ").\n"
    "  test: runs busted specs (default: every *_spec.lua under the current\n"
    "  directory) under luajit with the policy kit, require(\"moonsched.kit\"),\n"
    "  against this moonsched's own library; busted's exit code.\n"
    "  init: writes a skeleton policy.lua and policy_spec.lua, a .luacheckrc\n"
    "  with the sandbox's globals and a .luarc.json for LuaLS into DIR\n"
    "  (default: the current directory), keeping files that exist.\n"
    "  docs/policies.md, \"Testing a policy\", is the tutorial.\n";

static bool is_help(const char *a) {
    return strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0;
}

/* A command's failure: the error's text, and the exit code given. */
static int failed(ms_rc r, const ms_error *err, int code) {
    fprintf(stderr, "moonsched: %s\n", err->msg[0] ? err->msg : ms_rc_str(r));
    return code;
}

/* The error, then the command's help. */
static int usage_error(const char *help, const char *fmt, const char *arg) {
    fprintf(stderr, "moonsched: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n%s", help);
    return EXIT_USAGE;
}

/* The flag of a command's help nearest a misspelt one (its name before
 * any "=value"), copied into out; false when none is near. */
static bool nearest_flag(const char *help, const char *arg, char *out, size_t n) {
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(arg, "="), arg);
    ms_help_flags f;
    ms_help_flags_of(help, &f);
    const char *near = ms_suggest(name, f.v, f.n);
    if (near) snprintf(out, n, "%s", near);
    return near != NULL;
}

static int unknown_argument(const char *help, const char *a) {
    char near[128];
    if (a[0] == '-' && nearest_flag(help, a, near, sizeof near)) {
        fprintf(stderr, "moonsched: unknown argument \"%s\" (did you mean %s?)\n%s", a, near, help);
        return EXIT_USAGE;
    }
    return usage_error(help, "unknown argument \"%s\"", a);
}

/* A parser's error; its unknown argument gets the nearest flag. */
static int parse_error(const char *help, const char *msg) {
    static const char prefix[] = "unknown argument \"";
    size_t k = sizeof prefix - 1, n = strlen(msg);
    if (strncmp(msg, prefix, k) == 0 && n > k && msg[n - 1] == '"') {
        char arg[256];
        snprintf(arg, sizeof arg, "%.*s", (int)(n - k - 1), msg + k);
        return unknown_argument(help, arg);
    }
    return usage_error(help, "%s", msg);
}

/* An argument's parser answers EXIT_OK, a usage error, or HELP. */
enum { HELP = -1 };

typedef struct simulate_args {
    ms_simulate_options o;
    const char **files, **policies, **shadows;   /* at most one per argument */
    const char **policy_args, **shadow_args;     /* beside policies and shadows */
    const char **last_args;                      /* the last --policy's or --shadow's entry */
    uint32_t nfiles, npolicies, nshadows;
} simulate_args;

/* simulate's and policy check's --cluster: the files up to the next option
 * ("-" is standard input), or --cluster=FILE. false when argv[*i] is
 * another argument; *rc is set on a usage error. */
static bool cluster_arg(int argc, char **argv, int *i, const char **files, uint32_t *n, const char *help, int *rc) {
    const char *v;
    if (strcmp(argv[*i], "--cluster") == 0) {
        uint32_t start = *n;
        while (*i + 1 < argc && (argv[*i + 1][0] != '-' || strcmp(argv[*i + 1], "-") == 0))
            files[(*n)++] = argv[++*i];
        if (*n == start) *rc = usage_error(help, "%s needs at least one file", "--cluster");
        return true;
    }
    if (!(v = ms_flag_value(argc, argv, i, "--cluster", NULL))) return false;
    if (!*v) *rc = usage_error(help, "%s needs a file", "--cluster");
    else files[(*n)++] = v;
    return true;
}

static int simulate_arg(int argc, char **argv, int *i, simulate_args *s) {
    const char *a = argv[*i], *v;
    int rc = EXIT_OK;
    if (cluster_arg(argc, argv, i, s->files, &s->nfiles, help_simulate, &rc)) return rc;
    if ((v = ms_flag_value(argc, argv, i, "--config", NULL))) {
        if (!*v) return usage_error(help_simulate, "%s needs a file", "--config");
        s->o.config_file = v;
    } else if ((v = ms_flag_value(argc, argv, i, "--policy", NULL))) {
        if (!*v) return usage_error(help_simulate, "%s needs a file", "--policy");
        s->last_args = &s->policy_args[s->npolicies];
        s->policies[s->npolicies++] = v;
    } else if ((v = ms_flag_value(argc, argv, i, "--shadow", NULL))) {
        if (!*v) return usage_error(help_simulate, "%s needs a file", "--shadow");
        s->last_args = &s->shadow_args[s->nshadows];
        s->shadows[s->nshadows++] = v;
    } else if ((v = ms_flag_value(argc, argv, i, "--policy-args", NULL))) {
        /* Positional, as --args is for policy check's one file. */
        if (!*v) return usage_error(help_simulate, "%s needs a JSON object", "--policy-args");
        if (!s->last_args) return usage_error(help_simulate, "%s", "--policy-args follows the --policy or --shadow it is for");
        if (*s->last_args) return usage_error(help_simulate, "%s", "--policy-args: one per --policy or --shadow");
        *s->last_args = v;
    } else if ((v = ms_flag_value(argc, argv, i, "--generate", NULL))) {
        if (!*v) return usage_error(help_simulate, "%s needs a spec", "--generate");
        s->o.generate = v;
    } else if ((v = ms_flag_value(argc, argv, i, "--seed", NULL))) {
        ms_error err = {0};
        if (ms_flag_seed(v, &s->o.seed, &err) != MS_OK) return usage_error(help_simulate, "%s", err.msg);
        s->o.has_seed = true;
    } else if ((v = ms_flag_value(argc, argv, i, "--output", NULL))) {
        if (strcmp(v, "table") == 0) s->o.output = MS_OUTPUT_TABLE;
        else if (strcmp(v, "json") == 0) s->o.output = MS_OUTPUT_JSON;
        else if (strcmp(v, "html") == 0) s->o.output = MS_OUTPUT_HTML;
        else return usage_error(help_simulate, "--output: expected table, json or html, got \"%s\"", v);
    } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
        s->o.quiet = true;
    } else if (strcmp(a, "--stats") == 0) {
        s->o.stats = true;
    } else if (strcmp(a, "--evictions") == 0) {
        s->o.evictions = true;
    } else if ((v = ms_flag_value(argc, argv, i, "--explain", NULL))) {
        if (!strchr(v, '/')) return usage_error(help_simulate, "--explain: expected NAMESPACE/NAME, got \"%s\"", v);
        s->o.explain = v;
    } else if ((v = ms_flag_value(argc, argv, i, "--deschedule", NULL))) {
        s->o.deschedule = v;
    } else if (is_help(a)) {
        return HELP;
    } else {
        return unknown_argument(help_simulate, a);
    }
    return EXIT_OK;
}

static int simulate_main(int argc, char **argv) {
    /* simulate_args' five lists in one block */
    size_t room = (size_t)argc + 1;
    const char **lists = calloc(5 * room, sizeof *lists);
    if (!lists) {
        fprintf(stderr, "moonsched: out of memory\n");
        return EXIT_INTERNAL;
    }
    simulate_args s = {.files = lists, .policies = lists + room, .shadows = lists + 2 * room,
                       .policy_args = lists + 3 * room, .shadow_args = lists + 4 * room};
    ms_simulate_options_default(&s.o);
    int rc = EXIT_OK;
    for (int i = 0; i < argc && rc == EXIT_OK; i++) rc = simulate_arg(argc, argv, &i, &s);
    if (rc == EXIT_OK && s.nfiles == 0 && !s.o.generate)
        rc = usage_error(help_simulate, "%s", "simulate needs --cluster FILE... or --generate SPEC");
    /* The HTML report draws placements; these modes print something else. */
    if (rc == EXIT_OK && s.o.output == MS_OUTPUT_HTML && (s.o.deschedule || s.o.evictions || s.o.explain))
        rc = usage_error(help_simulate, "--output html shows placements: it does not go with %s (use table or json)",
                         s.o.deschedule ? "--deschedule" : s.o.evictions ? "--evictions" : "--explain");
    if (rc != EXIT_OK) {
        if (rc == HELP) fputs(help_simulate, stdout);
        free(lists);
        return rc == HELP ? EXIT_OK : rc;
    }
    s.o.cluster_files = s.files;
    s.o.ncluster_files = s.nfiles;
    char version[128];
    format_version(version, sizeof version);
    s.o.version = version;
    s.o.policy_files = s.policies;
    s.o.npolicy_files = s.npolicies;
    s.o.policy_args = s.policy_args;
    s.o.shadow_files = s.shadows;
    s.o.shadow_args = s.shadow_args;
    s.o.nshadow_files = s.nshadows;
    ms_error err = {0};
    ms_simulate_result res;
    ms_http_endpoint *http = NULL;
    ms_rc r = ms_http_endpoint_new(&http, &err);
    ms_http_caller caller = ms_http_endpoint_caller(http);
    s.o.http = &caller;
    if (r == MS_OK) r = ms_simulate_run(&s.o, stdout, stderr, &res, &err);
    ms_http_endpoint_free(http);
    free(lists);
    if (fflush(stdout) != 0) {
        fprintf(stderr, "moonsched: writing output: %s\n", strerror(errno));
        return EXIT_INTERNAL;
    }
    if (r == MS_OK) return res.policy_failures || res.policy_disabled ? EXIT_POLICY : EXIT_OK;
    return failed(r, &err, r == MS_EINVAL || r == MS_EIO || r == MS_ENOENT ? EXIT_USAGE : EXIT_INTERNAL);
}

static void print_warning(void *ctx, const char *msg) {
    (void)ctx;
    fprintf(stderr, "moonsched: warning: %s\n", msg);
}

static int version_main(int argc, char **argv) {
    (void)argc;
    (void)argv;
    char version[128];
    format_version(version, sizeof version);
    printf("moonsched %s\n", version);
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
        if (r != MS_OK) return parse_error(help_run, err.msg);
        if (f.action == MS_RUN_FLAGS_VERSION) return version_main(0, NULL);
        fputs(help_run, stdout);
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
    return failed(r, &err, r == MS_EINVAL || r == MS_ENOENT ? EXIT_USAGE : EXIT_INTERNAL);
}

/* `config check FILE [--output yaml|json]` */
static int config_main(int argc, char **argv) {
    if (argc < 1 || strcmp(argv[0], "check") != 0)
        return usage_error(help_config, "%s", "config: expected \"check FILE\"");
    const char *file = NULL;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        const char *v;
        if ((v = ms_flag_value(argc, argv, &i, "--output", NULL))) {
            if (strcmp(v, "json") == 0) json = true;
            else if (strcmp(v, "yaml") == 0) json = false;
            else return usage_error(help_config, "--output: expected yaml or json, got \"%s\"", v);
        } else if (is_help(argv[i])) {
            fputs(help_config, stdout);
            return EXIT_OK;
        } else if (!file && (argv[i][0] != '-' || strcmp(argv[i], "-") == 0)) {
            file = argv[i];
        } else {
            return unknown_argument(help_config, argv[i]);
        }
    }
    if (!file) return usage_error(help_config, "%s", "config check needs a FILE");
    ms_error err = {0};
    cJSON *doc = NULL;
    ms_rc r = ms_config_check(file, print_warning, NULL, &doc, &err);
    if (r != MS_OK) {
        return failed(r, &err, r == MS_ENOMEM ? EXIT_INTERNAL : EXIT_USAGE);
    }
    r = ms_yaml_write(doc, json, stdout);
    cJSON_Delete(doc);
    if (r != MS_OK || fflush(stdout) != 0) {
        fprintf(stderr, "moonsched: writing output: %s\n", strerror(errno));
        return EXIT_INTERNAL;
    }
    return EXIT_OK;
}

/* `policy test [SPEC...] [-- BUSTED-OPTION...]` and `policy init [DIR]`. */
static int policy_kit_main(int argc, char **argv) {
    bool test = strcmp(argv[0], "test") == 0;
    int nspecs = 0, dash = argc;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            dash = i;
            break;
        }
        if (is_help(argv[i])) {
            fputs(help_policy, stdout);
            return EXIT_OK;
        }
        if (argv[i][0] == '-') return unknown_argument(help_policy, argv[i]);
        nspecs++;
    }
    if (!test && (nspecs > 1 || dash < argc))
        return usage_error(help_policy, "%s", "policy init takes at most one directory");
    ms_policy_kit kit;
    ms_error err = {0};
    ms_rc r = ms_policy_kit_find(&kit, &err);
    if (r == MS_OK && test) {
        r = ms_policy_test(&kit, argv + 1, nspecs, argv + dash + (dash < argc), argc - dash - (dash < argc),
                           &err);
    } else if (r == MS_OK) {
        r = ms_policy_init(&kit, nspecs ? argv[1] : ".", stdout, &err);
        fflush(stdout);
        if (r == MS_OK) return EXIT_OK;
    }
    return failed(r, &err, r == MS_ENOMEM ? EXIT_INTERNAL : EXIT_USAGE);
}

/* A budget flag takes budgetMs's and initBudgetMs's range, so that what
 * passes here runs the same in a profile; *out in seconds. */
static int budget_flag(const char *flag, const char *v, double *out) {
    char *end;
    double ms = strtod(v, &end);
    if (!*v || *end || !(ms > 0) || ms > MS_POLICY_BUDGET_MAX_MS) {
        char msg[256];
        snprintf(msg, sizeof msg, "%s: expected milliseconds greater than 0 and at most %d, got \"%.128s\"", flag,
                 MS_POLICY_BUDGET_MAX_MS, v);
        return usage_error(help_policy, "%s", msg);
    }
    *out = ms / 1000.0;
    return EXIT_OK;
}

static int policy_main(int argc, char **argv) {
    if (argc >= 1 && (strcmp(argv[0], "test") == 0 || strcmp(argv[0], "init") == 0))
        return policy_kit_main(argc, argv);
    if (argc < 1 || strcmp(argv[0], "check") != 0) {
        if (argc >= 1 && is_help(argv[0])) {
            fputs(help_policy, stdout);
            return EXIT_OK;
        }
        return usage_error(help_policy, "%s",
                           "policy: expected \"policy check FILE\", \"policy test\" or \"policy init\"");
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
        if (cluster_arg(argc, argv, &i, files, &nfiles, help_policy, &rc)) continue;
        if ((v = ms_flag_value(argc, argv, &i, "--args", NULL))) {
            if (!*v) rc = usage_error(help_policy, "%s needs a JSON object", "--args");
            o.args_json = v;
        } else if ((v = ms_flag_value(argc, argv, &i, "--pods", NULL))) {
            o.pods = v;
        } else if ((v = ms_flag_value(argc, argv, &i, "--nodes", NULL))) {
            o.nodes = v;
        } else if ((v = ms_flag_value(argc, argv, &i, "--max-nodes", NULL))) {
            char *end;
            unsigned long n = strtoul(v, &end, 10);
            if (!*v || *end || *v == '-' || n == 0 || n > UINT32_MAX)
                rc = usage_error(help_policy, "--max-nodes: expected a positive integer, got \"%s\"", v);
            o.max_nodes = (uint32_t)n;
        } else if ((v = ms_flag_value(argc, argv, &i, "--budget", NULL))) {
            rc = budget_flag("--budget", v, &o.budget);
        } else if ((v = ms_flag_value(argc, argv, &i, "--init-budget", NULL))) {
            rc = budget_flag("--init-budget", v, &o.init_budget);
        } else if (is_help(a)) {
            fputs(help_policy, stdout);
            free(files);
            return EXIT_OK;
        } else if (a[0] == '-' && a[1]) {
            rc = unknown_argument(help_policy, a);
        } else if (o.file) {
            rc = usage_error(help_policy, "policy check takes one file, got \"%s\" too", a);
        } else {
            o.file = a;
        }
    }
    if (rc == EXIT_OK && !o.file) rc = usage_error(help_policy, "%s", "policy check needs a policy FILE");
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
    return failed(r, &err, r == MS_ENOMEM ? EXIT_INTERNAL : EXIT_USAGE);
}

static int explain_arg(int argc, char **argv, int *i, ms_explain_remote_options *o, bool *json) {
    const char *a = argv[*i], *v;
    if ((v = ms_flag_value(argc, argv, i, "--server", NULL))) o->server = v;
    else if ((v = ms_flag_value(argc, argv, i, "--kubeconfig", NULL))) o->kubeconfig = v;
    else if ((v = ms_flag_value(argc, argv, i, "--context", NULL))) o->context = v;
    else if ((v = ms_flag_value(argc, argv, i, "--scheduler", NULL))) o->scheduler = v;
    else if ((v = ms_flag_value(argc, argv, i, "--lease", NULL))) o->lease = v;
    else if ((v = ms_flag_value(argc, argv, i, "--port", NULL))) {
        char *end;
        long port = strtol(v, &end, 10);
        if (!*v || *end || port < 1 || port > 65535)
            return usage_error(help_explain, "--port: expected a port number, got \"%s\"", v);
        o->port = (int)port;
    } else if ((v = ms_flag_value(argc, argv, i, "--certificate-authority", NULL))) o->ca_file = v;
    else if ((v = ms_flag_value(argc, argv, i, "--token", NULL))) o->token = v;
    else if ((v = ms_flag_value(argc, argv, i, "--token-file", NULL))) o->token_file = v;
    else if (strcmp(a, "--insecure-skip-tls-verify") == 0) o->insecure = true;
    else if ((v = ms_flag_value(argc, argv, i, "--output", NULL)) || (v = ms_flag_value(argc, argv, i, "-o", NULL))) {
        if (strcmp(v, "json") == 0) *json = true;
        else if (strcmp(v, "text") == 0) *json = false;
        else return usage_error(help_explain, "--output: expected text or json, got \"%s\"", v);
    } else if (is_help(a)) return HELP;
    else if (a[0] != '-' && !o->pod) o->pod = a;
    else return unknown_argument(help_explain, a);
    return EXIT_OK;
}

static void snapshot_unlisted(void *ctx, const char *path, long status, const char *msg) {
    (void)ctx;
    fprintf(stderr, "moonsched: warning: %s not listed (%ld), left out: %s\n", path, status, msg);
}

/* `snapshot [--kubeconfig FILE] [--context NAME] [-o FILE]` */
static int snapshot_main(int argc, char **argv) {
    ms_snapshot_options o = {.unlisted = snapshot_unlisted};
    const char *file = NULL;
    for (int i = 0; i < argc; i++) {
        const char *v;
        if ((v = ms_flag_value(argc, argv, &i, "--kubeconfig", NULL))) o.kubeconfig = v;
        else if ((v = ms_flag_value(argc, argv, &i, "--context", NULL))) o.context = v;
        else if ((v = ms_flag_value(argc, argv, &i, "--output", NULL)) || (v = ms_flag_value(argc, argv, &i, "-o", NULL))) file = v;
        else if (is_help(argv[i])) {
            fputs(help_snapshot, stdout);
            return EXIT_OK;
        } else return unknown_argument(help_snapshot, argv[i]);
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
    return failed(r, &err, r == MS_EINVAL ? EXIT_USAGE : EXIT_INTERNAL);
}

/* `explain NS/NAME [flags]` */
static int explain_main(int argc, char **argv) {
    ms_explain_remote_options o = {0};
    bool json = false;
    int rc = EXIT_OK;
    for (int i = 0; i < argc && rc == EXIT_OK; i++) rc = explain_arg(argc, argv, &i, &o, &json);
    if (rc == HELP) {
        fputs(help_explain, stdout);
        return EXIT_OK;
    }
    if (rc != EXIT_OK) return rc;
    if (!o.pod || !strchr(o.pod, '/')) return usage_error(help_explain, "%s", "explain needs NAMESPACE/NAME");
    if (o.server && (o.kubeconfig || o.context || o.scheduler || o.lease || o.port))
        return usage_error(help_explain, "%s",
                           "--server asks the scheduler directly: it does not go with --kubeconfig, --context, "
                           "--scheduler, --lease or --port");
    if (!o.server && (o.ca_file || o.token || o.token_file || o.insecure))
        return usage_error(help_explain, "%s",
                           "--certificate-authority, --token, --token-file and --insecure-skip-tls-verify are "
                           "for --server; through the API server the kubeconfig says how to connect");
    ms_error err = {0};
    ms_kube_response answer;
    ms_rc r = ms_explain_remote(&o, &answer, &err);
    if (r == MS_OK && json) {
        fwrite(answer.body, 1, answer.len, stdout);
    } else if (r == MS_OK) {
        cJSON *e = cJSON_Parse(answer.body ? answer.body : "");
        if (e) ms_explain_print(stdout, e);
        else r = ms_error_set(&err, MS_EIO, "the answer is not JSON");
        cJSON_Delete(e);
    }
    ms_kube_response_free(&answer);
    fflush(stdout);
    if (r == MS_OK) return EXIT_OK;
    return failed(r, &err, r == MS_ENOENT || r == MS_EINVAL ? EXIT_USAGE : EXIT_INTERNAL);
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
        fputs(help_deschedule, stdout);
        return EXIT_OK;
    }
    if (r != MS_OK) {
        free(policies);
        return parse_error(help_deschedule, err.msg);
    }
    ms_logger log = ms_log_default;
    if (o.debug) log.level = MS_LOG_DEBUG;
    o.log = &log;
    r = ms_deschedule_run(&o, &err);
    free(policies);
    if (r == MS_OK) return EXIT_OK;
    return failed(r, &err, r == MS_EINVAL || r == MS_ENOENT ? EXIT_USAGE : EXIT_INTERNAL);
}

static int completion_main(int argc, char **argv);
static int man_main(int argc, char **argv);

/* Every command, in the overview's order. */
static const ms_command commands[] = {
    {"run", "schedule a cluster's pods (the default: flags without a command run)", help_run, run_main},
    {"simulate", "schedule the pods of cluster files, or of a generated cluster", help_simulate, simulate_main},
    {"deschedule", "evict pods a DeschedulerPolicy picks, once they have a better node", help_deschedule,
     deschedule_main},
    {"config", "check a KubeSchedulerConfiguration and print the effective one", help_config, config_main},
    {"policy", "check a Lua policy, alone or over a cluster", help_policy, policy_main},
    {"explain", "ask a running scheduler why a pod is where it is", help_explain, explain_main},
    {"snapshot", "write a cluster's objects for simulate", help_snapshot, snapshot_main},
    {"completion", "print a shell completion script (bash, zsh, fish)", help_completion, completion_main},
    {"man", "print the manual page (roff)", help_man, man_main},
    {"version", "print the version and the commit", NULL, version_main},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

/* The overview on out, then the text after it. */
static void print_usage(FILE *out, const char *after) {
    char *text = ms_command_overview(commands, NCOMMANDS);
    fprintf(out, "%s%s", text ? text : "", after);
    free(text);
}

static int completion_main(int argc, char **argv) {
    const char *shell = argc > 0 ? argv[0] : "";
    if (is_help(shell)) {
        fputs(help_completion, stdout);
        return EXIT_OK;
    }
    if (argc > 1) return unknown_argument(help_completion, argv[1]);
    if (strcmp(shell, "bash") == 0) {
        ms_completion_bash(stdout, commands, NCOMMANDS);
    } else if (strcmp(shell, "zsh") == 0) {
        printf("#compdef moonsched\nautoload -U +X bashcompinit && bashcompinit\n");
        ms_completion_bash(stdout, commands, NCOMMANDS);
    } else if (strcmp(shell, "fish") == 0) {
        ms_completion_fish(stdout, commands, NCOMMANDS);
    } else {
        return usage_error(help_completion, "completion: expected bash, zsh or fish, got \"%s\"", shell);
    }
    return EXIT_OK;
}

static int man_main(int argc, char **argv) {
    if (argc > 0) {
        if (is_help(argv[0])) {
            fputs(help_man, stdout);
            return EXIT_OK;
        }
        return unknown_argument(help_man, argv[0]);
    }
    ms_man_page(stdout, MOONSCHED_VERSION, commands, NCOMMANDS);
    return EXIT_OK;
}

/* The command's help, or NULL when name is no command with one. */
static const char *help_of(const char *name) {
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(name, commands[i].name) == 0) return commands[i].help;
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        print_usage(stderr, "");
        return EXIT_USAGE;
    }
    const char *cmd = argv[1], *help;
    /* COMMAND --help (or -h), and help COMMAND, first: whatever else the
     * command needs */
    if (argc > 2 && ((is_help(argv[2]) && (help = help_of(cmd))) ||
                     (strcmp(cmd, "help") == 0 && (help = help_of(argv[2]))))) {
        fputs(help, stdout);
        return EXIT_OK;
    }
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(cmd, commands[i].name) == 0) return commands[i].main(argc - 2, argv + 2);
    if (strcmp(cmd, "--version") == 0) return version_main(0, NULL);
    /* kube-scheduler's command line: flags without a subcommand run, so
     * that a kube-scheduler manifest needs only its command changed. */
    if (cmd[0] == '-' && !is_help(cmd))
        return run_main(argc - 1, argv + 1);
    if (is_help(cmd) || strcmp(cmd, "help") == 0) {
        print_usage(stdout, help_run);
        return EXIT_OK;
    }
    /* version and help first, as the first of equally near names wins */
    const char *names[NCOMMANDS + 2] = {"version", "help"};
    for (size_t i = 0; i < NCOMMANDS; i++) names[i + 2] = commands[i].main == version_main ? NULL : commands[i].name;
    const char *near = ms_suggest(cmd, names, NCOMMANDS + 2);
    fprintf(stderr, "moonsched: unknown command \"%s\"", cmd);
    if (near) fprintf(stderr, " (did you mean \"%s\"?)", near);
    fputc('\n', stderr);
    print_usage(stderr, "");
    return EXIT_USAGE;
}
