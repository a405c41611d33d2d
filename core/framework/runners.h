/* The runners of each extension point for one profile, with upstream's
 * semantics (stop at the first non-success in PreFilter/Filter/Reserve/
 * PreBind; Skip bookkeeping; weights): what a scheduling cycle, the queue
 * and preemption call. */
#ifndef MOONSCHED_FRAMEWORK_RUNNERS_H
#define MOONSCHED_FRAMEWORK_RUNNERS_H

#include <stdbool.h>
#include <stdint.h>

#include "moonsched/cluster_event.h"
#include "moonsched/framework.h"
#include "moonsched/plugin.h"
#include "moonsched/status.h"

/* Allocates the per-plugin state slots from c->arena, clears skip bits and
 * sets c->h and c->fw. MS_ENOMEM when the arena cannot grow. */
ms_rc ms_framework_begin_cycle(const ms_framework *fw, ms_cycle *c);

/* PreFilter: on rejection `st` carries the plugin and reason. */
ms_code ms_framework_run_pre_filter(const ms_framework *fw, ms_cycle *c, ms_status *st);
/* Dry runs (see ms_cycle.dry): begin gives c a new dry-run id started
 * from the current one and returns the current one, which end restores.
 * pre_filter_extension runs AddPod (add) or RemovePod for pods[0..n)
 * changed on ni, the dry run's copy, in PreFilter order, skipping plugins
 * that skipped PreFilter; without such plugins it costs a bit test. */
static inline uint32_t ms_framework_dry_begin(ms_cycle *c) {
    uint32_t outer = c->dry;
    c->dry_base = outer;
    c->dry = ++c->dry_seq;
    return outer;
}
static inline void ms_framework_dry_end(ms_cycle *c, uint32_t outer) {
    c->dry = outer;
    c->dry_base = 0;
}
ms_code ms_framework_run_pre_filter_extension_slow(const ms_framework *fw, ms_cycle *c, bool add,
                                                   ms_pod *const *pods, uint32_t n,
                                                   const ms_node_info *ni, ms_status *st);
/* Inline: the dry runs call it for every victim removed or put back. */
static inline ms_code ms_framework_run_pre_filter_extension(const ms_framework *fw, ms_cycle *c,
                                                            bool add, ms_pod *const *pods,
                                                            uint32_t n, const ms_node_info *ni,
                                                            ms_status *st) {
    if (!(fw->pre_filter_extensions & ~c->skip_filter)) return MS_SUCCESS;
    return ms_framework_run_pre_filter_extension_slow(fw, c, add, pods, n, ni, st);
}
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
/* The whole Filter phase on one node: the per-node plugins, then each
 * batch plugin called for this node alone. What asks "does the pod fit
 * this node" outside the cycle's pass over the snapshot (preemption's dry
 * runs, a nominated-pods pass on a copy) calls this, so that a policy's
 * verdict is the one the cycle would give. With no batch plugin it costs
 * ms_framework_run_filter and one bit test (inline: dry runs call it for
 * every victim tried). ms_framework_run_filter_batch_node: the batch
 * plugins alone, once the per-node ones passed. */
ms_code ms_framework_run_filter_batch_node(const ms_framework *fw, ms_cycle *c,
                                           const ms_node_info *ni, ms_status *st);
static inline ms_code ms_framework_run_filter_node(const ms_framework *fw, ms_cycle *c,
                                                   const ms_node_info *ni, ms_status *st) {
    ms_code code = ms_framework_run_filter(fw, c, ni, st);
    if (code != MS_SUCCESS || !(fw->batch_filters & ~c->skip_filter)) return code;
    return ms_framework_run_filter_batch_node(fw, c, ni, st);
}
ms_code ms_framework_run_filter_batch(const ms_framework *fw, ms_cycle *c,
                                      ms_node_info *const *nodes, uint32_t n,
                                      ms_status *statuses);
/* Filter with nominated pods taken into account (upstream's two-pass
 * RunFilterPluginsWithNominatedPods): when higher-or-equal priority pods are
 * nominated to the node, the pod must fit with them added and without.
 * Nominated pods come from c->h->queue; the pass with them added runs on
 * c->h->scratch (see ms_handle). That pass runs the whole Filter phase
 * (ms_framework_run_filter_node): the copy is in no batch. The pass on the
 * node itself runs the per-node plugins only, the caller then putting the
 * node through ms_framework_run_filter_batch with the others. */
ms_code ms_framework_run_filter_with_nominated(const ms_framework *fw, ms_cycle *c,
                                               const ms_node_info *ni, ms_status *st);
/* The same for a caller that has the node's nominated pods at hand
 * (ms_queue_nominated_for): no second lookup. */
ms_code ms_framework_run_filter_with_nominees(const ms_framework *fw, ms_cycle *c,
                                              const ms_node_info *ni, ms_pod *const *nominated,
                                              uint32_t n, ms_status *st);
/* Both passes through the whole Filter phase: for a caller with no batch
 * of its own (preemption's dry runs, a single node). */
ms_code ms_framework_run_filter_node_with_nominated(const ms_framework *fw, ms_cycle *c,
                                                    const ms_node_info *ni, ms_status *st);
ms_code ms_framework_run_filter_node_with_nominees(const ms_framework *fw, ms_cycle *c,
                                                   const ms_node_info *ni,
                                                   ms_pod *const *nominated, uint32_t n,
                                                   ms_status *st);
ms_code ms_framework_run_post_filter(const ms_framework *fw, ms_cycle *c,
                                     const ms_status *statuses, ms_str *nominated,
                                     ms_status *st);
ms_code ms_framework_run_pre_score(const ms_framework *fw, ms_cycle *c,
                                   ms_node_info *const *nodes, uint32_t n, ms_status *st);
/* Fills totals[n] with the weighted sum over Score plugins. When
 * per_plugin is non-NULL it receives the weighted score of each score plugin
 * (row-major: per_plugin[k * n + i] for the k-th score plugin), except the
 * rows of plugins whose PreScore said Skip, which are left unwritten: their
 * score is 0 (ms_framework_score_skipped), and
 * ms_framework_clear_skipped_scores writes those zeros for a reader of
 * every row. */
ms_code ms_framework_run_score(const ms_framework *fw, ms_cycle *c, ms_node_info *const *nodes,
                               uint32_t n, int64_t *totals, int64_t *per_plugin, ms_status *st);
bool ms_framework_score_skipped(const ms_framework *fw, const ms_cycle *c, uint32_t k);
void ms_framework_clear_skipped_scores(const ms_framework *fw, const ms_cycle *c,
                                       int64_t *per_plugin, uint32_t n);
/* On failure the Unreserve of every Reserve plugin has already run, in
 * reverse order: the caller only forgets the assumed pod. */
ms_code ms_framework_run_reserve(const ms_framework *fw, ms_cycle *c, ms_str node, ms_status *st);
void ms_framework_run_unreserve(const ms_framework *fw, ms_cycle *c, ms_str node);
/* MS_WAIT when a plugin asked to wait and none rejected: *timeout is the
 * smallest wait asked for, capped at upstream's 15 minutes. */
ms_code ms_framework_run_permit(const ms_framework *fw, ms_cycle *c, ms_str node,
                                double *timeout, ms_status *st);
/* PreBind from the plugin at position *next (0 at first). MS_WAIT: the
 * plugin at *next asked to wait up to *timeout seconds (VolumeBinding
 * waiting for its claims to be bound); call again with the same *next to
 * ask it again: after a cluster event in its `events` with *timeout 0, at
 * the deadline with *timeout -1 (the plugin then gives its final answer).
 * Set *timeout to 0 for the first call. c->pod is the assumed pod. */
ms_code ms_framework_run_pre_bind(const ms_framework *fw, ms_cycle *c, ms_str node,
                                  uint32_t *next, double *timeout, ms_status *st);
/* The first Bind plugin that does not return MS_SKIP decides; MS_SKIP when
 * every plugin skipped. */
ms_code ms_framework_run_bind(const ms_framework *fw, const ms_pod *pod, ms_str node,
                              ms_status *st);
void ms_framework_run_post_bind(const ms_framework *fw, const ms_pod *pod, ms_str node);

/* QueueSort of this profile. */
bool ms_framework_less(void *fw, const ms_queued_pod *a, const ms_queued_pod *b);
/* PreEnqueue plugins in order until one refuses: false, with its reason
 * and plugin index (either out pointer may be NULL). */
bool ms_framework_pre_enqueue(const ms_framework *fw, const ms_pod *pod, const char **reason,
                              int32_t *plugin);
/* Events that could help a pod rejected by the plugins in `plugins` (bits).
 * A plugin that declares no events counts as interested in all of them (as
 * upstream's plugins without EnqueueExtensions); so does an empty set (the
 * pod failed for a reason no plugin owns, e.g. an error). */
ms_event_mask ms_framework_interest(const ms_framework *fw, uint64_t plugins);
/* Whether event `ev` (old_obj into new_obj) may help a pod that `plugins`
 * rejected: some of them registered it, with no hint or a hint saying so
 * (upstream's QueueingHint per plugin; 0 plugins: any event may). */
bool ms_framework_queueing_hint(const ms_framework *fw, uint64_t plugins, const ms_pod *pod, ms_event_mask ev,
                                const void *old_obj, const void *new_obj);

#endif
