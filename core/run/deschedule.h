/* `moonsched deschedule`: the descheduler against a real API server. One
 * pass and exit (a Job or CronJob), or a pass every
 * --descheduling-interval (a Deployment, with leader election on its own
 * Lease). A pass lists the nodes, pods and PodDisruptionBudgets, places
 * the pending pods as the scheduler would, and runs the DeschedulerPolicy
 * with placement-aware evictions (simulate's, simulate/simulate_deschedule.h):
 * an eviction the scheduler finds a new node for goes through the
 * Eviction API (policy/v1, or policy/v1beta1 on servers without it); a
 * 429 (a PodDisruptionBudget allows no disruption now) is a skip, not an
 * error. --dry-run evicts nothing and prints the plan with each pod's
 * predicted node. Metrics and health on the secure port. */
#ifndef MOONSCHED_RUN_DESCHEDULE_H
#define MOONSCHED_RUN_DESCHEDULE_H

#include <stdbool.h>
#include <stdint.h>

#include "moonsched/error.h"
#include "moonsched/log.h"
#include "moonsched/simulate.h"

/* upstream descheduler's secure port. */
#define MS_DESCHEDULE_DEFAULT_SECURE_PORT 10258

typedef struct ms_deschedule_options {
    const char *policy_file;       /* --policy-config-file (required) */
    const char *kubeconfig;        /* --kubeconfig; NULL: in-cluster, $KUBECONFIG, ~/.kube/config */
    bool in_cluster;               /* --in-cluster */
    const char *config_file;       /* --config: the scheduler's configuration the placements use */
    const char *const *policy_files;   /* --policy: Lua policies of the placements */
    uint32_t npolicy_files;
    bool dry_run;                  /* --dry-run */
    bool debug;                    /* -v N with N >= 4: each request logged */
    double interval;               /* --descheduling-interval, seconds; 0: one pass */
    bool leader_elect;             /* --leader-elect (with an interval only) */
    const char *lease_name;        /* --leader-elect-resource-name: "descheduler" */
    const char *lease_namespace;   /* --leader-elect-resource-namespace: "kube-system" */
    double lease_duration, renew_deadline, retry_period;   /* 15, 10, 2 s */
    int32_t secure_port;           /* --secure-port; 0: not served */
    const char *bind_address;      /* --bind-address */
    const char *tls_cert_file, *tls_key_file;
    ms_output_format output;       /* --output table|json */
    const ms_logger *log;
} ms_deschedule_options;

/* The defaults of the flags: upstream descheduler's. */
void ms_deschedule_options_default(ms_deschedule_options *o);

/* Runs until the one pass is over, or until SIGINT/SIGTERM with an
 * interval. Writes each pass's report to stdout. */
ms_rc ms_deschedule_run(const ms_deschedule_options *o, ms_error *err);

#endif
