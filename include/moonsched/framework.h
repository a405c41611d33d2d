/* One profile's plugins, instantiated: construction from a profile's
 * configuration, the checks a reload must pass, and what reports ask of a
 * profile. The runners of the extension points are core/framework/runners.h. */
#ifndef MOONSCHED_FRAMEWORK_H
#define MOONSCHED_FRAMEWORK_H

#include <stdbool.h>
#include <stdint.h>

#include "moonsched/config.h"
#include "moonsched/error.h"
#include "moonsched/plugin.h"
#include "moonsched/status.h"

#pragma GCC visibility push(default)

typedef struct ms_framework_plugin {
    const ms_plugin_ops *ops;
    void *self;
    int32_t weight;
    uint32_t points;               /* enabled extension points (bits) */
} ms_framework_plugin;

struct ms_framework {
    char scheduler_name[128];
    uint32_t nplugins;
    ms_framework_plugin plugins[MS_MAX_PLUGINS];
    uint8_t order[MS_EP_COUNT][MS_MAX_PLUGINS];   /* plugin indexes per point */
    uint8_t norder[MS_EP_COUNT];
    /* Filter plugins with filter_batch only (policies), as bits: the
     * single-node runner tests this once instead of walking the order. */
    uint64_t batch_filters;
    /* PreFilter plugins with add_pod or remove_pod, as bits. */
    uint64_t pre_filter_extensions;
    /* Filter plugins that read more of a NodeInfo than its node, pod
     * count and built-in requests, as bits: without them, the nominated
     * pods' pass needs no copy of the NodeInfo (framework/nominated.c). */
    uint64_t pod_reading_filters;
    int32_t percentage_of_nodes_to_score;         /* resolved for this profile */
    const ms_handle *h;
};

/* Instantiates the profile's plugins from the built-in registry. Fails when a
 * plugin is unknown, a plugin's create fails, a plugin is named at a point
 * it does not implement (explicit_points), a Score weight is negative, or
 * the profile lacks exactly one QueueSort or at least one Bind plugin (as
 * upstream). A plugin enabled at a point through multiPoint that it does not
 * implement is not called there. A Score weight of 0 means 1. */
ms_rc ms_framework_init(ms_framework *fw, const ms_profile_config *pc, int32_t global_pct,
                        const ms_handle *h, ms_error *err);
/* The same with out-of-tree plugins (upstream's WithFrameworkOutOfTreeRegistry,
 * e.g. policies) looked up beside the built-ins; a name may not be both. */
ms_rc ms_framework_init_with(ms_framework *fw, const ms_profile_config *pc, int32_t global_pct,
                             const ms_handle *h, const ms_plugin_ops *const *out_of_tree,
                             uint32_t n_out_of_tree, ms_error *err);
void ms_framework_destroy(ms_framework *fw);

/* Out-of-tree plugins whose set of implemented points changes at run time
 * (a policy reload that adds or removes hooks). `pc` is the configuration
 * the framework was built from.
 * check_ops: would the profile still pass ms_framework_init's checks (a
 * point named explicitly is implemented, positive Score weights, one
 * QueueSort, a Bind) if the plugin whose ops are `live` had `candidate`'s?
 * *queue_sort (may be NULL) is then the name of its QueueSort plugin.
 * fw is not changed.
 * refresh_points: re-derives each point's plugins from pc and the ops as
 * they are now; on error fw is unchanged. */
ms_rc ms_framework_check_ops(const ms_framework *fw, const ms_profile_config *pc,
                             const ms_plugin_ops *live, const ms_plugin_ops *candidate,
                             const char **queue_sort, ms_error *err);
ms_rc ms_framework_refresh_points(ms_framework *fw, const ms_profile_config *pc, ms_error *err);
/* Whether one of the profile's plugins has these ops. */
bool ms_framework_runs(const ms_framework *fw, const ms_plugin_ops *ops);

/* Upstream name of the plugin at an index (ms_status.plugin), "" for -1. */
const char *ms_framework_plugin_name(const ms_framework *fw, int32_t index);
/* Number of Score plugins and the name of the k-th (for reports). */
uint32_t ms_framework_nscore(const ms_framework *fw);
const char *ms_framework_score_name(const ms_framework *fw, uint32_t k);

#pragma GCC visibility pop

#endif
