/* One profile's plugins, instantiated, and the runners for each extension
 * point, with upstream's semantics (stop at the first non-success in
 * PreFilter/Filter/Reserve/PreBind; Skip bookkeeping; weights). */
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

/* Allocates the per-plugin state slots from c->arena, clears skip bits and
 * sets c->h and c->fw. MS_ENOMEM when the arena cannot grow. */
ms_rc ms_framework_begin_cycle(const ms_framework *fw, ms_cycle *c);

/* PreFilter: on rejection `st` carries the plugin and reason. */
ms_code ms_framework_run_pre_filter(const ms_framework *fw, ms_cycle *c, ms_status *st);
/* All Filter plugins on one node; stops at the first failure. */
ms_code ms_framework_run_filter(const ms_framework *fw, ms_cycle *c, const ms_node_info *ni,
                                ms_status *st);
/* The per-node Filter plugins of one cycle, resolved after PreFilter
 * (Skips and batch-only plugins left out): the filter loop then makes no
 * lookups per node. Valid while c->skip_filter is unchanged. */
typedef struct ms_filter_plan {
    uint32_t n;
    struct {
        ms_code (*filter)(void *self, ms_cycle *c, const ms_node_info *ni, ms_status *st);
        void *self;
        uint32_t plugin;
    } steps[MS_MAX_PLUGINS];
} ms_filter_plan;
void ms_framework_filter_plan(const ms_framework *fw, const ms_cycle *c, ms_filter_plan *plan);
/* Completes the status of a plugin's Filter failure (code, plugin index)
 * as ms_framework_run_filter does; returns the code. */
ms_code ms_framework_filter_failed(ms_status *st, ms_code code, uint32_t plugin);
/* ms_framework_run_filter through a plan: the same results. Inline: the
 * loop over nodes calls it for every node. */
static inline ms_code ms_framework_run_filter_plan(const ms_filter_plan *plan, ms_cycle *c,
                                                   const ms_node_info *ni, ms_status *st) {
    const uint32_t n = plan->n;
    for (uint32_t k = 0; k < n; k++) {
        const uint32_t i = plan->steps[k].plugin;
        c->current = i;
        st->nreasons = 0;
        ms_code code = plan->steps[k].filter(plan->steps[k].self, c, ni, st);
        if (code != MS_SUCCESS) return ms_framework_filter_failed(st, code, i);
    }
    ms_status_ok(st);
    return MS_SUCCESS;
}
/* Plugins with only filter_batch (Lua policies) are left out by
 * ms_framework_run_filter and run here, once per plugin over many nodes:
 * statuses[i] holds nodes[i]'s result of the per-node plugins; nodes still
 * at Success go to each batch plugin in Filter order, and a rejection
 * replaces their status (plugin index set). MS_ERROR when a plugin failed
 * as a whole (its nodes then carry the error); MS_SUCCESS otherwise, also
 * when nodes were rejected. Scratch arrays come from c->arena. */
bool ms_framework_has_filter_batch(const ms_framework *fw);
ms_code ms_framework_run_filter_batch(const ms_framework *fw, ms_cycle *c,
                                      ms_node_info *const *nodes, uint32_t n,
                                      ms_status *statuses);
/* Filter with nominated pods taken into account (upstream's two-pass
 * RunFilterPluginsWithNominatedPods): when higher-or-equal priority pods are
 * nominated to the node, the pod must fit with them added and without.
 * Nominated pods come from c->h->queue; the pass with them added runs on
 * c->h->scratch (see ms_handle). */
ms_code ms_framework_run_filter_with_nominated(const ms_framework *fw, ms_cycle *c,
                                               const ms_node_info *ni, ms_status *st);
/* The same for a caller that has the node's nominated pods at hand
 * (ms_queue_nominated_for): no second lookup. */
ms_code ms_framework_run_filter_with_nominees(const ms_framework *fw, ms_cycle *c,
                                              const ms_node_info *ni, ms_pod *const *nominated,
                                              uint32_t n, ms_status *st);
ms_code ms_framework_run_post_filter(const ms_framework *fw, ms_cycle *c,
                                     const ms_status *statuses, ms_str *nominated,
                                     ms_status *st);
ms_code ms_framework_run_pre_score(const ms_framework *fw, ms_cycle *c,
                                   ms_node_info *const *nodes, uint32_t n, ms_status *st);
/* Fills totals[n] with the weighted sum over Score plugins. When
 * per_plugin is non-NULL it receives the weighted score of each score plugin
 * (row-major: per_plugin[k * n + i] for the k-th score plugin). */
ms_code ms_framework_run_score(const ms_framework *fw, ms_cycle *c, ms_node_info *const *nodes,
                               uint32_t n, int64_t *totals, int64_t *per_plugin, ms_status *st);
/* On failure the Unreserve of every Reserve plugin has already run, in
 * reverse order: the caller only forgets the assumed pod. */
ms_code ms_framework_run_reserve(const ms_framework *fw, ms_cycle *c, ms_str node, ms_status *st);
void ms_framework_run_unreserve(const ms_framework *fw, ms_cycle *c, ms_str node);
/* MS_WAIT when a plugin asked to wait and none rejected: *timeout is the
 * smallest wait asked for, capped at upstream's 15 minutes. */
ms_code ms_framework_run_permit(const ms_framework *fw, ms_cycle *c, ms_str node,
                                double *timeout, ms_status *st);
ms_code ms_framework_run_pre_bind(const ms_framework *fw, const ms_pod *pod, ms_str node,
                                  ms_status *st);
/* The first Bind plugin that does not return MS_SKIP decides; MS_SKIP when
 * every plugin skipped. */
ms_code ms_framework_run_bind(const ms_framework *fw, const ms_pod *pod, ms_str node,
                              ms_status *st);
void ms_framework_run_post_bind(const ms_framework *fw, const ms_pod *pod, ms_str node);

/* QueueSort of this profile. */
bool ms_framework_less(void *fw, const ms_queued_pod *a, const ms_queued_pod *b);
bool ms_framework_pre_enqueue(const ms_framework *fw, const ms_pod *pod, const char **reason);
/* Events that could help a pod rejected by the plugins in `plugins` (bits).
 * A plugin that declares no events counts as interested in all of them (as
 * upstream's plugins without EnqueueExtensions); so does an empty set (the
 * pod failed for a reason no plugin owns, e.g. an error). */
ms_event_mask ms_framework_interest(const ms_framework *fw, uint64_t plugins);
/* Upstream name of the plugin at an index (ms_status.plugin), "" for -1. */
const char *ms_framework_plugin_name(const ms_framework *fw, int32_t index);
/* Number of Score plugins and the name of the k-th (for reports). */
uint32_t ms_framework_nscore(const ms_framework *fw);
const char *ms_framework_score_name(const ms_framework *fw, uint32_t k);

#pragma GCC visibility pop

#endif
