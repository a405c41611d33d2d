/* `moonsched simulate`: schedules the pending pods of a cluster described in
 * files (and/or generated) through the real cache, queue and framework, with
 * an in-memory binder and a virtual clock, and prints where each pod went
 * and why. The reference is docs/simulate.md. */
#ifndef MOONSCHED_SIMULATE_H
#define MOONSCHED_SIMULATE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "moonsched/error.h"
#include "moonsched/intern.h"
#include "moonsched/pod.h"

#pragma GCC visibility push(default)

/* HTML: one self-contained page (simulate only; docs/simulate.md). */
typedef enum ms_output_format { MS_OUTPUT_TABLE = 0, MS_OUTPUT_JSON, MS_OUTPUT_HTML } ms_output_format;

/* `moonsched deschedule` runs its pass through simulate, on what the API
 * server listed, and acts through these. */
typedef struct ms_deschedule_hooks {
    /* An eviction the scheduler found a new node (`to`) for: NULL once
     * done (or with nothing to do, as a dry run), else why it did not
     * happen (n bytes at why; the move is taken back and the pod listed
     * as skipped). */
    const char *(*evict)(void *ctx, const ms_interner *in, const ms_pod *pod, const char *profile,
                         const char *strategy, ms_str to, char *why, size_t n);
    /* A strategy's run is over: its wall time in seconds. May be NULL. */
    void (*strategy_done)(void *ctx, const char *profile, const char *strategy, double seconds);
    /* Reads the DeschedulerPolicy file, its Lua files and the --policy
     * files (`text` malloc'd), in place of the disk: the last version
     * that loaded. May be NULL. */
    ms_rc (*read_file)(void *ctx, const char *path, char **text, size_t *len, ms_error *err);
    void *ctx;
} ms_deschedule_hooks;

typedef struct ms_simulate_options {
    const char *const *cluster_files;   /* "-" is standard input */
    uint32_t ncluster_files;
    const char *config_file;            /* KubeSchedulerConfiguration, or NULL */
    const char *const *policy_files;    /* Lua policies added to every profile (--policy) */
    uint32_t npolicy_files;
    /* Beside policy_files: each one's init args (--policy-args), a JSON
     * object's text or NULL; the array may be NULL. */
    const char *const *policy_args;
    /* Lua policies in shadow mode beside every profile (--shadow): their
     * choices compared with the profiles', never applied; the counts and
     * disagreements follow the output. */
    const char *const *shadow_files;
    const char *const *shadow_args;     /* as policy_args */
    uint32_t nshadow_files;
    bool no_watch;                      /* do not reload changed policy files */
    /* What calls the configuration's extenders (ms_scheduler_options.http);
     * NULL: a configuration with extenders is refused. */
    const struct ms_http_caller *http;
    const char *generate;               /* generator spec (generator.h), or NULL */
    bool has_seed;
    uint64_t seed;                      /* tie-breaking; else the config's, else 1 */
    ms_output_format output;
    bool quiet;                         /* no placements and no node summary */
    bool stats;                         /* statistics on the diagnostics stream */
    double max_virtual_time;            /* seconds of virtual clock; 0: 3600 */
    /* --evictions: after the pending pods are placed, the taint eviction
     * timeline (which bound pods NoExecute taints evict, when, and where
     * they would be placed again) instead of the placements. */
    bool evictions;
    /* --explain NS/NAME: after the run, why that pod is where it is (its
     * last cycle, and for a pod left pending every node's Filter status or
     * scores computed again), instead of the placements; text, or JSON
     * with MS_OUTPUT_JSON (docs/explain.md). */
    const char *explain;
    /* --deschedule POLICY: after the pending pods are placed, one
     * descheduling pass with this DeschedulerPolicy, each eviction tried on
     * the scheduler first; prints utilisation before and after and every
     * move (docs/descheduler.md). NULL: none. */
    const char *deschedule;
    /* Objects as text (a NodeList, a PodList, ... as the API server sends
     * them), read after the files; `cluster_text_names` name them in
     * errors. */
    const char *const *cluster_texts;
    const size_t *cluster_text_lens;
    const char *const *cluster_text_names;
    uint32_t ncluster_texts;
    /* With --deschedule: act on a real cluster. Only the pods bound in
     * the input are candidates (pending ones are placed first, as the
     * scheduler would place them, and left alone). NULL: a simulation. */
    const ms_deschedule_hooks *deschedule_hooks;
    /* What the HTML report says ran ("v0.1.0 (commit 1ffb955)"); NULL:
     * not shown. */
    const char *version;
} ms_simulate_options;

void ms_simulate_options_default(ms_simulate_options *o);

/* What a run did (all counts over the whole run). */
typedef struct ms_simulate_result {
    uint32_t objects;                   /* objects read from files */
    uint32_t skipped;                   /* of other kinds */
    uint32_t nodes;
    uint32_t bound_pods;
    uint32_t pending_pods;              /* pending pods of one of our profiles */
    uint32_t ignored_pods;              /* pending pods of other schedulers, terminal pods */
    uint32_t scheduled;
    uint32_t unschedulable;
    uint32_t gated;                     /* held back by spec.schedulingGates */
    uint32_t preempted;                 /* victims evicted by preemption */
    uint32_t preempted_placed;          /* of them, pods this run had placed */
    uint32_t attempts;                  /* scheduling cycles run */
    double wall_seconds;                /* the whole run */
    double schedule_seconds;            /* the scheduling loop */
    double pods_per_second;             /* scheduled / schedule_seconds */
    /* The process's CPU time over the scheduling loop: unlike the wall
     * clock, it leaves out time other processes had the CPU. */
    double schedule_cpu_seconds;
    double pods_per_cpu_second;         /* scheduled / schedule_cpu_seconds */
    double latency_p50, latency_p99;    /* seconds per cycle, bind included */
    double peak_rss_mib;
    double virtual_seconds;             /* where the virtual clock stopped */
    /* Lua policies (configured and --policy), over all profiles. */
    uint32_t policies;
    uint64_t policy_calls, policy_failures, policy_disabled;
    uint64_t policy_reloads, policy_reloads_failed;
    double reload_latency_max;          /* seconds from a file's write to its swap */
    uint32_t descheduled;               /* --deschedule: evictions kept */
    uint32_t deschedule_skipped;        /* --deschedule: pods refused, with a reason */
    double deschedule_seconds;          /* --deschedule: the pass, placements included */
} ms_simulate_result;

/* Output goes to `out`; warnings and --stats to `diag`. Bad input returns
 * MS_EINVAL or MS_EIO with err naming the file, object and field
 * ("cluster.yaml: Pod default/web: spec.containers[0]...: why"). `result`
 * may be NULL. */
ms_rc ms_simulate_run(const ms_simulate_options *o, FILE *out, FILE *diag,
                      ms_simulate_result *result, ms_error *err);

#pragma GCC visibility pop

#endif
