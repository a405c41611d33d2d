/* `run`'s scheduler thread: the loop that takes in deltas, answered binds
 * and volume writes, signals, policy reloads, leadership changes and
 * /debug/ requests, runs scheduling cycles in bounded batches, reports
 * their outcomes and keeps the metrics; and the callbacks of the parts
 * around it: the scheduler's binder, evictor and reporter, the policy
 * set's reports, the HTTP handlers. `run` (run/run.c) builds
 * the parts below from its options, hands them to the loop, and tears
 * them down when it returns. */
#ifndef MOONSCHED_RUN_SCHEDULER_LOOP_H
#define MOONSCHED_RUN_SCHEDULER_LOOP_H

#include <stdbool.h>
#include <stdint.h>

#include "api/delta.h"
#include "api/dra.h"
#include "api/storage.h"
#include "api/workload.h"
#include "base/mailbox.h"
#include "client/delta_queue.h"
#include "client/event_recorder.h"
#include "client/http_endpoint.h"
#include "client/informer.h"
#include "client/kube_client.h"
#include "client/kubeconfig.h"
#include "client/leader_election.h"
#include "controllers/taint_eviction_controller.h"
#include "moonsched/config.h"
#include "moonsched/policy_set.h"
#include "moonsched/run.h"
#include "moonsched/scheduler.h"
#include "run/api_binder.h"
#include "run/api_claim_writer.h"
#include "run/api_reporter.h"
#include "run/api_volume_binder.h"
#include "run/cache_debugger.h"
#include "run/poster.h"
#include "run/metric_sets.h"
#include "serving/debug_requests.h"
#include "serving/endpoints.h"
#include "serving/http_server.h"
#include "serving/secure_serving.h"

/* What `run` built, as the scheduler thread's loop sees it. */
typedef struct ms_scheduler_loop {
    const ms_run_options *o;
    const ms_logger *log;
    ms_interner *in;
    ms_config cfg;
    ms_scheduler *sched;
    ms_kube_client *client, *poster_client;
    ms_delta_queue *deltas;
    ms_informer *pod_inf, *node_inf, *ns_inf, *pdb_inf;
    ms_informer *storage_inf[MS_SK_COUNT];   /* PVs, PVCs, ... in ms_storage_kind order */
    ms_informer *dra_inf[MS_DK_COUNT];       /* DeviceClasses, ... in ms_dra_kind order */
    ms_informer *workload_inf[MS_WK_COUNT];  /* Services, ... in ms_workload_kind order */
    bool synced[MS_KIND_COUNT];    /* per ms_object_kind: first LIST delivered */

    ms_api_binder *binder;
    ms_api_volume_binder *volume_binder;   /* VolumeBinding's PreBind writes */
    ms_volume_binder volume_binder_ops;
    ms_api_claim_writer *claim_writer;     /* DynamicResources' PreBind writes */
    ms_claim_writer claim_writer_ops;
    ms_http_endpoint *extender_http;       /* the extenders' calls */
    ms_http_caller extender_caller;
    uint32_t max_binds;            /* binds awaiting an outcome before popping stops */
    ms_event_recorder *events;
    ms_poster *poster;
    ms_api_reporter *reporter;
    ms_run_stats st;               /* the scheduler thread's figures; the poster keeps its own */

    ms_policy_set *policies;       /* Lua policies; NULL without any */
    ms_mailbox policy_wake;        /* a reload waits for ms_policy_set_poll */

    /* What Events about the scheduler itself (policies) regard: its Pod,
     * or the leader-election lock object. */
    struct {
        char api_version[32], kind[32], ns[256], name[256], uid[64];
    } self;

    ms_kubeconfig kc;              /* kept for the leader elector's client */
    ms_exec_credential *credentials;   /* kc's credential plugin, shared by every client */
    ms_leader_elector *elector;    /* NULL: election off, always leading */
    ms_kube_client *te_client;     /* the taint eviction controller's, with its own rate limit */
    ms_taint_eviction *taint_eviction;   /* NULL: not enabled */
    bool disruption_conditions;    /* the server keeps them (1.26+, or unknown) */

    ms_cache_debugger *debugger;   /* started at the first SIGUSR2 */
    ms_metric_sets *metrics;       /* thread-safe; the HTTP thread renders their registry */
    ms_endpoints *endpoints;       /* health, readiness, /configz, /metrics */
    ms_debug_requests *debug;      /* /debug/... asked of this thread by the HTTPS threads */
    ms_http_server *http;
    ms_secure_serving *https;
    ms_policy_info *policy_info;   /* scratch for the policies' figures */
    ms_policy_figures *policy_snap;
    /* The attempt in progress (schedule_one), for its metrics. */
    bool in_cycle, cycle_error;
    int cycle_result;              /* ms_attempt_result, or -1: no outcome yet */
    uint32_t cycle_profile, cycle_victims;
    double cycle_start;
    double next_sched_metrics;     /* monotonic: when the scheduler's families are rendered next */
} ms_scheduler_loop;

/* The scheduler's binder, evictor and reporter: the loop's. */
void ms_scheduler_loop_callbacks(ms_scheduler_loop *r, ms_scheduler_options *so);

/* The policy set's log, report (log lines and Events about reloads) and
 * wake-up of the loop. */
void ms_scheduler_loop_policy_hooks(ms_scheduler_loop *r, ms_policy_set_options *po);

/* The HTTP handlers (ctx: the loop): the plain port serves health only,
 * unless --plain-metrics; the secure port serves everything, /debug/
 * through the scheduler thread. */
void ms_scheduler_loop_serve_plain(void *ctx, const char *path, ms_http_answer *out);
void ms_scheduler_loop_serve_secure(void *ctx, const char *path, ms_http_answer *out);

/* Runs the loop until SIGINT/SIGTERM on `sfd` (-1: none) and the binds in
 * flight are answered or the grace period is over, or until the lease is
 * lost (MS_ESTATE) or poll fails. */
ms_rc ms_scheduler_loop_run(ms_scheduler_loop *r, int sfd, ms_error *err);

/* Answers the binder has: applied to the scheduler (at teardown, once the
 * binder stopped). */
void ms_scheduler_loop_drain_binds(ms_scheduler_loop *r);

/* Every figure: the scheduler thread's, the poster's and the reporter's. */
ms_run_stats ms_scheduler_loop_stats(const ms_scheduler_loop *r);

/* Whether this replica leads (always without election). */
bool ms_scheduler_loop_leading(const ms_scheduler_loop *r);

#endif
