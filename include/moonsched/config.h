/* The effective scheduler configuration (KubeSchedulerConfiguration shape).
 * Defaults are upstream's; a file overrides them with upstream's merge
 * rules for plugins (enabled/disabled per extension point, '*' disables all
 * defaults of that point, multiPoint). */
#ifndef MOONSCHED_CONFIG_H
#define MOONSCHED_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "moonsched/error.h"

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

typedef struct ms_config {
    uint32_t nprofiles;
    ms_profile_config *profiles;
    int32_t percentage_of_nodes_to_score;   /* 0: upstream's adaptive default */
    double pod_initial_backoff;             /* 1 */
    double pod_max_backoff;                 /* 10 */
    double pod_max_unschedulable;           /* 300 */
    double assumed_ttl;                     /* 0: never expire */
    double qps;                             /* clientConnection.qps */
    int32_t burst;
    bool has_seed;
    uint64_t seed;
} ms_config;

/* Upstream's default profile ("default-scheduler") and settings. */
ms_rc ms_config_default(ms_config *c);
/* Reads a KubeSchedulerConfiguration (YAML or JSON) on top of the defaults.
 * Unknown fields are reported to `warn` (may be NULL), one call per field. */
ms_rc ms_config_load_file(ms_config *c, const char *path,
                          void (*warn)(void *ctx, const char *msg), void *warn_ctx,
                          ms_error *err);
ms_rc ms_config_load_json(ms_config *c, const cJSON *root, const char *source,
                          void (*warn)(void *ctx, const char *msg), void *warn_ctx,
                          ms_error *err);
void ms_config_free(ms_config *c);
const ms_profile_config *ms_config_profile(const ms_config *c, const char *scheduler_name);

/* Builds the default profile plugin set into p (used by defaults and tests). */
void ms_profile_config_default(ms_profile_config *p, const char *scheduler_name);

#endif
