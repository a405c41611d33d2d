/* `moonsched run`: the scheduler against a real API server.
 *
 * Informers for pods and nodes feed the scheduler thread through a delta
 * queue; scheduling starts once both have delivered their first LIST. The
 * scheduler thread polls the delta queue, the binder's completions, a
 * signalfd and a timer (ms_scheduler_tick), and never waits on the
 * network: binds go to one binder thread that keeps many in flight over a
 * shared connection (ms_kube_async; POST pods/NAME/binding),
 * events and status patches to a poster thread with a client of its own.
 *
 * Reporting follows upstream: an unschedulable pod gets PodScheduled=False
 * (reason Unschedulable, the FitError message; skipped when the scheduler
 * already wrote the same message) and a FailedScheduling event; a bound pod
 * a Scheduled event. Events are aggregated per pod and reason (one per
 * event_interval, repeats counted) and limited by a global token bucket.
 * Lua policies' reloads (Normal PolicyReloaded), refused versions (Warning
 * PolicyReloadFailed) and disabled policies (Warning PolicyDisabled) are
 * Events too, about the scheduler itself: its Pod when POD_NAME and
 * POD_NAMESPACE are set (downward API), else the leader-election lock
 * object (Lease kube-system/kube-scheduler by default).
 *
 * Metrics (include/moonsched/metrics.h) and health are served over HTTPS
 * on secure_port (kube-scheduler's 10259), with delegated authentication
 * (TokenReview) and authorization (SubjectAccessReview; /healthz, /livez
 * and /readyz always allowed); health (and, when asked, the metrics) also
 * over plain HTTP on metrics_bind_address (off by default); /healthz is 200 while the
 * scheduler loop comes round, /readyz once the informers have synced.
 *
 * Leader election (leaderElection.leaderElect, true by default as
 * upstream; include/moonsched/leader_election.h): the informers start and
 * sync at once, but pods are popped and bound only while this replica
 * holds the Lease. SIGTERM releases it after the binds in flight; a lease
 * that could not be renewed within renewDeadline ends ms_run with
 * MS_ESTATE ("leaderelection lost"), as upstream exits, for a supervisor
 * to restart it. */
#ifndef MOONSCHED_RUN_H
#define MOONSCHED_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "moonsched/error.h"
#include "moonsched/log.h"

#pragma GCC visibility push(default)

typedef struct ms_run_options {
    const char *kubeconfig;        /* --kubeconfig; NULL: clientConnection.kubeconfig,
                                      in-cluster, $KUBECONFIG, ~/.kube/config */
    bool in_cluster;               /* --in-cluster: the pod's service account only */
    const char *config_file;       /* KubeSchedulerConfiguration; NULL: defaults */
    const char *scheduler_name;    /* renames the first profile; NULL: keep */
    /* Lua policies added to every profile (--policy), watched and reloaded
     * like those the configuration names (docs/policies.md). */
    const char *const *policy_files;
    uint32_t npolicy_files;
    const ms_logger *log;          /* NULL: ms_log_default */
    uint32_t bind_workers;         /* binds in flight at once (HTTP/2 streams); 0: 64 */
    double tick_interval;          /* seconds between ms_scheduler_tick; 0: 0.2 */
    double event_interval;         /* per pod and reason; 0: 30 s */
    double event_qps;              /* global event budget; 0: 50 (burst 4x) */
    double shutdown_timeout;       /* wait for binds in flight; 0: 10 s */
    /* The plain HTTP port ("HOST:PORT"), off by default as upstream's
     * since 1.23: NULL: the configuration's metricsBindAddress, else its
     * healthzBindAddress, else not served; "" or "0": not served. It
     * serves /healthz, /livez and /readyz, nothing else unless
     * plain_metrics; never /debug. */
    const char *metrics_bind_address;
    /* --plain-metrics: /metrics and /configz on the plain port too,
     * unauthenticated (anyone who reaches the port reads them). */
    bool plain_metrics;
    /* HTTPS (kube-scheduler's secure serving), set by
     * ms_run_options_default to upstream's defaults. secure_port 0: not
     * served; a port that cannot be bound is fatal, as upstream. */
    int32_t secure_port;           /* --secure-port; MS_RUN_DEFAULT_SECURE_PORT */
    const char *bind_address;      /* --bind-address, an IP; NULL, "0.0.0.0" or "::": every address */
    const char *tls_cert_file;     /* --tls-cert-file; NULL (and no key): self-signed, in memory */
    const char *tls_key_file;      /* --tls-private-key-file */
    const char *tls_min_version;   /* --tls-min-version: VersionTLS10..13; NULL: VersionTLS12 */
    const char *tls_cipher_suites; /* --tls-cipher-suites: Go's names, comma-separated; NULL: GnuTLS's */
    /* Who reviews tokens (TokenReview) and access (SubjectAccessReview):
     * kubeconfig files; NULL: the scheduler's own connection. */
    const char *authn_kubeconfig;  /* --authentication-kubeconfig */
    const char *authz_kubeconfig;  /* --authorization-kubeconfig */
    /* --authentication-token-webhook-cache-ttl: how long a TokenReview's
     * answer is cached, seconds; 0: 10, upstream's default; negative:
     * nothing cached (the flag's 0s). */
    double authn_token_cache_ttl;
    /* --client-ca-file: a PEM bundle of CAs; a client certificate one of
     * them signed (for client authentication) authenticates its request
     * as the user of its Common Name, in the groups of its
     * Organizations. NULL: no client certificates. */
    const char *client_ca_file;
    /* --authorization-always-allow-paths: comma-separated paths (a
     * trailing '*' a prefix) served without a SubjectAccessReview; NULL:
     * /healthz, /livez, /readyz, as upstream. */
    const char *always_allow_paths;
    /* --leader-elect: 0 the configuration's leaderElection.leaderElect;
     * 1 on; -1 off. */
    int leader_elect;
    /* kube-scheduler's --leader-elect-* flags: they override the
     * configuration's leaderElection (as kube-scheduler does from v1.23 on;
     * v1.20 ignores them when --config is given). 0 or NULL: keep. The
     * deprecated --lock-object-name/-namespace land in resource_name and
     * resource_namespace when no --config is given, as upstream's do. */
    double le_lease_duration, le_renew_deadline, le_retry_period;  /* seconds */
    const char *le_resource_lock, *le_resource_name, *le_resource_namespace;
    /* --controllers=taint-eviction: the taint eviction controller runs
     * beside the scheduler, under the same leader election
     * (docs/taint-eviction.md). Off by default. */
    bool taint_eviction;
    /* Block SIGINT/SIGTERM and stop on them (through a signalfd). */
    bool handle_signals;
    /* --seed N: the random choice among nodes with equal top scores, as
     * `simulate --seed` (replaying a snapshot, docs/explain.md). Without
     * it: the time at start. */
    bool has_seed;
    uint64_t seed;
    /* --debug-snapshot: keep every object's JSON as received, so that
     * /debug/snapshot can write the scheduler's view out (costs about the
     * objects' size in memory). */
    bool debug_snapshot;
} ms_run_options;

#define MS_RUN_DEFAULT_SECURE_PORT 10259
#define MS_RUN_DEFAULT_BIND_ADDRESS "0.0.0.0"

void ms_run_options_default(ms_run_options *o);

typedef struct ms_run_stats {
    uint64_t binds_ok, binds_failed, binds_gone;
    uint64_t unschedulable;        /* unschedulable reports */
    uint64_t events_posted, events_suppressed, events_failed;
    uint64_t status_patches, status_patches_skipped;
} ms_run_stats;

/* Runs until a signal (handle_signals) or a fatal error. MS_OK after an
 * orderly shutdown. */
ms_rc ms_run(const ms_run_options *o, ms_run_stats *stats, ms_error *err);

#pragma GCC visibility pop

#endif
