/* The effective scheduler configuration (KubeSchedulerConfiguration shape).
 * Defaults are upstream's; a file overrides them with upstream's merge
 * rules for plugins (enabled/disabled per extension point, '*' disables all
 * defaults of that point, multiPoint).
 *
 * The configuration does not know which extension points a plugin
 * implements: a plugin enabled through multiPoint is listed at every point
 * (where not disabled), and the framework keeps only the points the plugin
 * implements. Plugin names are not checked here either: the framework
 * validates them against its registry. */
#ifndef MOONSCHED_CONFIG_H
#define MOONSCHED_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "moonsched/error.h"

#pragma GCC visibility push(default)

typedef struct cJSON cJSON;

typedef enum ms_extension_point {
    MS_EP_PRE_ENQUEUE = 0,
    MS_EP_QUEUE_SORT,
    MS_EP_PRE_FILTER,
    MS_EP_FILTER,
    MS_EP_POST_FILTER,
    MS_EP_PRE_SCORE,
    MS_EP_SCORE,
    MS_EP_RESERVE,
    MS_EP_PERMIT,
    MS_EP_PRE_BIND,
    MS_EP_BIND,
    MS_EP_POST_BIND,
    MS_EP_COUNT
} ms_extension_point;

const char *ms_extension_point_name(ms_extension_point ep);   /* "preFilter", ... */

#define MS_MAX_PLUGINS 64

/* A plugin enabled in a profile, after merging with the defaults. */
typedef struct ms_plugin_config {
    char name[64];
    uint32_t points;               /* bit per ms_extension_point where it is enabled */
    /* Points where it was enabled by name (not through multiPoint). Upstream
     * rejects a plugin enabled at a point it does not implement; for the
     * other bits of `points` the framework just drops what is not implemented. */
    uint32_t explicit_points;
    int32_t weight;                /* score weight (>= 1 when enabled for score) */
    cJSON *args;                   /* pluginConfig args (owned), or NULL */
} ms_plugin_config;

typedef struct ms_profile_config {
    char scheduler_name[128];
    uint32_t nplugins;
    ms_plugin_config plugins[MS_MAX_PLUGINS];   /* in execution order */
    /* Order of plugins per extension point (indexes into plugins). */
    uint8_t order[MS_EP_COUNT][MS_MAX_PLUGINS];
    uint8_t norder[MS_EP_COUNT];
    int32_t percentage_of_nodes_to_score;   /* -1: use the global value */
} ms_profile_config;

/* leaderElection (component-base LeaderElectionConfiguration). */
typedef struct ms_leader_election {
    bool leader_elect;             /* true */
    double lease_duration;         /* seconds: 15 */
    double renew_deadline;         /* 10 */
    double retry_period;           /* 2 */
    char resource_lock[32];        /* "leases" */
    /* Not given: ms_config_default_lease_name derives it from the
     * profiles (kube-scheduler's "kube-scheduler" only when a profile is
     * default-scheduler, else the first profile's schedulerName), so that
     * a second scheduler never takes kube-scheduler's Lease by default. */
    char resource_name[256];
    char resource_namespace[64];   /* "kube-system" */
    bool resource_name_given;      /* resourceName was set (file or flag) */
} ms_leader_election;

typedef struct ms_config {
    uint32_t nprofiles;
    ms_profile_config *profiles;
    int32_t percentage_of_nodes_to_score;   /* 0: upstream's adaptive default */
    double pod_initial_backoff;             /* 1 */
    double pod_max_backoff;                 /* 10 */
    double pod_max_unschedulable;           /* 300 */
    double assumed_ttl;                     /* 0: never expire */
    double qps;                             /* clientConnection.qps: 50 */
    int32_t burst;                          /* clientConnection.burst: 100 */
    char *kubeconfig;                       /* clientConnection.kubeconfig (owned), or NULL */
    int32_t parallelism;                    /* 16 */
    ms_leader_election leader_election;
    /* metricsBindAddress / healthzBindAddress (v1beta1/v1beta2) as
     * written; "" when absent. `run` serves /metrics, /healthz and /readyz
     * there (docs/run.md). */
    char metrics_bind_address[128];
    char healthz_bind_address[128];
    cJSON *extenders;                       /* `extenders` as written (owned), or NULL */
    bool has_seed;
    uint64_t seed;
} ms_config;

/* Upstream's default profile (MS_DEFAULT_SCHEDULER_NAME) and settings. */
ms_rc ms_config_default(ms_config *c);
/* Reads a KubeSchedulerConfiguration (YAML or JSON; apiVersion
 * kubescheduler.config.k8s.io/v1, v1beta3, v1beta2 or v1beta1) on top of the
 * defaults. `c` is initialised by the call (do not call ms_config_default
 * first); on error it is left empty, so ms_config_free is always safe.
 * Errors are MS_EINVAL with the source name and the field path
 * ("sched.yaml: profiles[0].plugins.score.enabled[1]: weight must be
 * positive"). Unknown fields are reported to `warn` (may be NULL), one call
 * per field, with their path. A file holds one document; text starting
 * with '{' is JSON, anything else YAML; the path "-" reads stdin. */
ms_rc ms_config_load_file(ms_config *c, const char *path,
                          void (*warn)(void *ctx, const char *msg), void *warn_ctx,
                          ms_error *err);
ms_rc ms_config_load_json(ms_config *c, const cJSON *root, const char *source,
                          void (*warn)(void *ctx, const char *msg), void *warn_ctx,
                          ms_error *err);
/* Upstream's validation of the settings held in ms_config (for callers that
 * change a loaded configuration, e.g. from command-line flags). */
ms_rc ms_config_validate(const ms_config *c, ms_error *err);
void ms_config_free(ms_config *c);
const ms_profile_config *ms_config_profile(const ms_config *c, const char *scheduler_name);

/* leaderElection.resourceName when it was not given: "kube-scheduler"
 * when a profile is MS_DEFAULT_SCHEDULER_NAME, else the first profile's
 * schedulerName. Loading calls it; call it again after renaming a
 * profile. */
void ms_config_default_lease_name(ms_config *c);

/* Go's time.ParseDuration ("1h2m3.5s", "300ms", "0"), in seconds (the
 * form of metav1.Duration fields such as leaseDuration or httpTimeout). */
bool ms_parse_go_duration(const char *s, double *out);

/* Builds the default profile plugin set into p (used by defaults and tests). */
void ms_profile_config_default(ms_profile_config *p, const char *scheduler_name);

/* A profile's `plugins` as written: one set per extension point plus
 * multiPoint. Names are borrowed (they point into the parsed document). */
#define MS_EP_MULTI_POINT MS_EP_COUNT

typedef struct ms_plugin_ref {
    const char *name;
    int32_t weight;                /* 0: not given */
} ms_plugin_ref;

typedef struct ms_plugin_set {
    uint32_t nenabled;
    uint32_t ndisabled;
    ms_plugin_ref enabled[MS_MAX_PLUGINS];
    const char *disabled[MS_MAX_PLUGINS];   /* "*": every default of the point */
} ms_plugin_set;

typedef struct ms_plugins {
    ms_plugin_set set[MS_EP_COUNT + 1];     /* indexed by ms_extension_point, MS_EP_MULTI_POINT */
} ms_plugins;

/* Merges `custom` (NULL: none) into the default plugin set with upstream's
 * rules and expands multiPoint: per point, multiPoint plugins explicitly
 * enabled at that point come first (in that point's order), then the other
 * multiPoint plugins not disabled there, then the rest of the point's
 * enabled plugins; '*' disabled at a point leaves only that point's enabled
 * list. A score weight comes from the score list, else from multiPoint, else
 * 1. Clears args. */
ms_rc ms_profile_config_build(ms_profile_config *p, const char *scheduler_name,
                              const ms_plugins *custom, ms_error *err);

/* Lua policies are plugins named "lua:NAME" (docs/policies.md), NAME
 * being 1 to MS_POLICY_NAME_MAX letters, digits, '-', '_' or '.'. Each
 * needs pluginConfig args, decoded here. */
#define MS_POLICY_PREFIX "lua:"
#define MS_POLICY_NAME_MAX 59
/* budgetMs and initBudgetMs: greater than 0 and at most this (a literal:
 * the help texts spell it). */
#define MS_POLICY_BUDGET_MAX_MS 60000

typedef struct ms_policy_args {
    const char *file;              /* required; borrowed from the args object */
    const cJSON *args;             /* `args`: the policy's init args (an object), or NULL */
    double budget;                 /* budgetMs, in seconds; 0: the default */
    double init_budget;            /* initBudgetMs, in seconds; 0: the default */
    uint64_t memory;               /* memoryLimitMiB, in bytes; 0: the default */
    int32_t on_error;              /* onError: 0 "reject", 1 "skip"; -1: the default */
    int32_t max_failures;          /* maxConsecutiveFailures; -1: the default */
    /* onLoadError, when the file does not load as `run` starts: 0
     * "reject" (the default: the profile places no pod until it loads), 1
     * "skip" (the profile schedules without it meanwhile). */
    int32_t on_load_error;
    /* mode: "live" (false, the default) or "shadow": the policy is left
     * out of the profile and only evaluated beside it, its choice compared
     * with the profile's and never applied (docs/policies.md). */
    bool shadow;
} ms_policy_args;

bool ms_config_is_policy(const char *plugin_name);
bool ms_config_policy_name_valid(const char *plugin_name);
/* Whether a plugin is a Lua policy in shadow mode (args "mode": "shadow"). */
bool ms_config_plugin_is_shadow(const ms_plugin_config *pc);
/* Whether a profile enables a policy plugin. */
bool ms_config_has_policies(const ms_config *c);
/* Decodes a policy plugin's args strictly (unknown fields are errors).
 * Messages start with the field under `path`, the args' own path (NULL:
 * "args"): "profiles[0].pluginConfig[2].args.budgetMs: Invalid value: ...". */
ms_rc ms_config_policy_args(const cJSON *args, const char *path, ms_policy_args *out,
                            ms_error *err);

/* Adds a plugin to a built profile after those already enabled at each
 * point of `points` (as if through multiPoint: the framework drops the
 * points it does not implement), with a weight (< 1: 1) and args (taken
 * over, also on error). At MS_EP_QUEUE_SORT it replaces the profile's
 * QueueSort plugin. */
ms_rc ms_profile_config_add(ms_profile_config *p, const char *name, uint32_t points,
                            int32_t weight, cJSON *args, ms_error *err);

#pragma GCC visibility pop

#endif
