/* Scheduler extenders: upstream's HTTPExtender (pkg/scheduler/extender.go)
 * and the `extenders` list of KubeSchedulerConfiguration.
 *
 * An extender is a web service the scheduler calls with JSON over HTTP(S):
 *   filter     POST <urlPrefix>/<filterVerb>     ExtenderArgs -> ExtenderFilterResult
 *   prioritize POST <urlPrefix>/<prioritizeVerb> ExtenderArgs -> HostPriorityList
 *   bind       POST <urlPrefix>/<bindVerb>       ExtenderBindingArgs -> ExtenderBindingResult
 *   preempt    POST <urlPrefix>/<preemptVerb>    ExtenderPreemptionArgs -> ExtenderPreemptionResult
 * with upstream's Go field names (k8s.io/kube-scheduler/extender/v1: "Pod",
 * "Nodes", "NodeNames", "FailedNodes", "Host", "Score", ...). Requests carry
 * the Pod and Node objects as the API server sent them: the decoder keeps a
 * compact copy of each object's JSON when ms_decoder.keep_raw is set (the
 * scheduler sets it when extenders are configured), because extenders read
 * fields the scheduler never decodes (container specs, annotations,
 * volumes). Responses are read like Go's encoding/json does: field names
 * match case-insensitively, null is "not given", unknown fields are
 * ignored, a wrongly typed field is an error.
 *
 * In a scheduling cycle (core/schedule_one.c): after the Filter plugins,
 * each extender interested in the pod (it manages no resources, or the pod
 * requests or limits one it manages) filters the feasible nodes in turn;
 * after the Score plugins, every interested prioritizer is called at once
 * and its 0..10 scores, times weight and MS_MAX_NODE_SCORE /
 * MS_MAX_EXTENDER_PRIORITY, are added to the totals; at Bind, the first
 * interested binder binds instead of the Bind plugins. Ignorable extenders
 * are called after the others (as upstream orders them). Nothing here runs
 * when no extender is configured. */
#ifndef MOONSCHED_EXTENDER_H
#define MOONSCHED_EXTENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/cache_snapshot.h"
#include "base/http_call.h"
#include "config/extender_config.h"
#include "framework/plugins/preemption.h"
#include "moonsched/arena.h"
#include "moonsched/error.h"
#include "moonsched/intern.h"
#include "moonsched/nodeinfo.h"
#include "moonsched/pod.h"
#include "moonsched/status.h"

typedef struct cJSON cJSON;

/* upstream extenderv1.MaxExtenderPriority: extender scores are 0..10 */
#define MS_MAX_EXTENDER_PRIORITY 10

/* An extender may answer any int64 Score, and upstream's Go arithmetic on
 * it (score * weight * 10, summed with the plugins' totals) wraps around on
 * overflow; these do the same without C's undefined signed overflow. */
static inline int64_t ms_go_int64_add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static inline int64_t ms_go_int64_mul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }

/* ---- the extenders of a scheduler -------------------------------------- */

typedef struct ms_extenders ms_extenders;

/* Copies the configurations (in call order: non-ignorable extenders first,
 * then the ignorable ones, each group in file order); the calls go through
 * http (copied; its ctx must outlive e; required when n > 0). Fails when a
 * TLS file cannot be read, TLS settings conflict (client-go's checks) or
 * http refuses a URL with its serverName. */
ms_rc ms_extenders_new(const ms_extender_config *cfg, uint32_t n, ms_interner *in, const ms_http_caller *http,
                       ms_extenders **out, ms_error *err);
void ms_extenders_free(ms_extenders *e);

uint32_t ms_extenders_count(const ms_extenders *e);
/* The i-th extender in call order. */
const ms_extender_config *ms_extenders_config(const ms_extenders *e, uint32_t i);
/* upstream IsInterested: it manages no resource, or the pod requests or
 * limits one of those it manages. */
bool ms_extenders_interested(const ms_extenders *e, uint32_t i, const ms_pod *pod);
/* Extenders with a prioritize verb: the rows of ms_extenders_prioritize. */
uint32_t ms_extenders_nprioritizers(const ms_extenders *e);

/* What one extender's filter call decided over its input nodes. */
typedef struct ms_extender_filter_result {
    uint32_t nfeasible;
    uint32_t *feasible;            /* indexes into the input, in the extender's order */
    /* One per input node: Unschedulable (FailedNodes) or
     * UnschedulableAndUnresolvable (FailedAndUnresolvableNodes, which wins)
     * with the extender's text, else Success (kept, or dropped without a
     * reason). plugin is -1. */
    ms_status *statuses;
} ms_extender_filter_result;

/* The i-th extender's filter call (upstream HTTPExtender.Filter) over
 * nodes[0..n). An extender without a filter verb keeps every node. Arrays
 * and reason texts come from `a`. Errors (transport, non-200 answers, an
 * undecodable body, the result's Error, a kept node that was not sent)
 * return MS_EIO with upstream's text in err ("failed filter with extender
 * at URL http://127.0.0.1:8888/filter, code 500"). */
ms_rc ms_extenders_filter(ms_extenders *e, uint32_t i, const ms_pod *pod,
                          ms_node_info *const *nodes, uint32_t n, ms_arena *a,
                          ms_extender_filter_result *res, ms_error *err);

/* Every prioritizer interested in the pod, called concurrently (upstream
 * runs one goroutine each). scores[k * n + j] receives the k-th
 * prioritizer's (ms_extenders_nprioritizers order) weighted score for
 * nodes[j]: Score x weight x (MS_MAX_NODE_SCORE / MS_MAX_EXTENDER_PRIORITY),
 * summed over repeated hosts; hosts that were not sent are ignored. A row
 * stays 0 when its extender is not interested or its call failed (upstream
 * ignores prioritize errors); *failed (may be NULL) counts failures. */
void ms_extenders_prioritize(ms_extenders *e, const ms_pod *pod, ms_node_info *const *nodes,
                             uint32_t n, int64_t *scores, uint32_t *failed);
/* The name of the k-th prioritizer (its urlPrefix, upstream's Name()). */
const char *ms_extenders_prioritizer_name(const ms_extenders *e, uint32_t k);

/* upstream extendersBinding: the first interested extender with a bind
 * verb binds the pod (ExtenderBindingArgs {PodName, PodNamespace, PodUID,
 * Node}). *bound is false when no extender took the pod (the Bind plugins
 * then run); an ignorable binder's failure passes the pod on to the next.
 * A failure of the binder that took it: *bound is true and MS_EIO. */
ms_rc ms_extenders_bind(ms_extenders *e, const ms_pod *pod, ms_str node, bool *bound,
                        ms_error *err);

/* upstream's preemption callExtenders, for DefaultPreemption once it has
 * its candidates: each interested extender with a preempt verb receives the
 * victims per node (full Pods, or only UIDs when nodeCacheCapable) and
 * answers NodeNameToMetaVictims, which replaces the candidates (victims
 * found by UID on the snapshot's node, NumPDBViolations as answered) for
 * the next extender and for the final choice. An ignorable extender's error
 * is skipped, as is a node it answers without victims; another's fails the
 * call (MS_EIO). *cands / *ncands are replaced (arrays from `a`); the
 * input arrays are not written. DefaultPreemption calls it between finding
 * its candidates and choosing one. */
ms_rc ms_extenders_preempt(ms_extenders *e, const ms_pod *pod, const ms_snapshot *snap,
                           ms_preemption_candidate **cands, uint32_t *ncands, ms_arena *a,
                           ms_error *err);

/* ---- wire format helpers (exposed for tests) ---------------------------- */

/* Go's encoding/json field matching: the last key of obj that equals name
 * under Unicode simple case folding (ASCII, plus the Kelvin sign for k and
 * the long s for s). NULL when absent. */
const cJSON *ms_extender_json_field(const cJSON *obj, const char *name);

#endif
