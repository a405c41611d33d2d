/* Filter and Score results of node-local plugins kept per node for the
 * next pod with the same scheduling signature (upstream 1.35's
 * opportunistic batching, by node): a node whose NodeInfo has not changed
 * since gives the same verdict and the same raw scores, so those plugins
 * are not run on it again. The pass over the nodes, the window of
 * percentageOfNodesToScore, the normalization over the scored nodes and the
 * random tie-break are those of an unbatched cycle: decisions are the same.
 *
 * The signature is what node-local plugins read of the pod (see
 * ms_plugin_ops.node_local): requests, node selector, tolerations, host
 * ports, spec.nodeName, images. A pod with node affinity has none (its
 * terms are not compared). Besides the node, they may read the number of
 * nodes (ImageLocality's spread): another count starts a new epoch.
 * Plugins that are not node-local (InterPodAffinity, PodTopologySpread,
 * volumes, DRA, policies) run on every node as before. */
#ifndef MOONSCHED_FRAMEWORK_NODE_MEMO_H
#define MOONSCHED_FRAMEWORK_NODE_MEMO_H

#include <stdbool.h>
#include <stdint.h>

#include "framework/runners.h"
#include "moonsched/framework.h"
#include "moonsched/nodeinfo.h"
#include "moonsched/pod.h"

/* An entry holds for the NodeInfo `ni` at `generation` under `epoch`
 * (epochs start at 1: a zeroed entry holds for nothing). */
typedef struct ms_node_memo_key {
    const ms_node_info *ni;
    uint64_t generation;
    uint64_t epoch;
} ms_node_memo_key;

/* A node's whole Filter verdict in a pass with nominated pods, when every
 * step of the plan is node-local: it holds while the NodeInfo (key), the
 * node's nominated pods (the nominator's stamp) and the pod's priority
 * (which of them it must leave room for) are those it was given under. */
typedef struct ms_node_memo_verdict {
    ms_node_memo_key key;
    uint64_t nominees;
    int32_t priority;
    ms_status st;
} ms_node_memo_verdict;

typedef struct ms_node_memo {
    ms_pod *pod;                  /* the signature's pod (a reference), NULL: none */
    const ms_framework *fw;       /* its profile */
    uint32_t nnodes;              /* the snapshot's node count */
    /* The node-local plugins (bits by plugin index) whose results the
     * entries hold: another set starts a new epoch. */
    uint64_t filter_plugins, score_plugins;
    uint64_t score_layout;        /* the score plugins' positions (rows of raw) */
    uint64_t filter_epoch, score_epoch;
    /* The plan's steps after its last node-local one: a node they reject
     * has passed every node-local step. */
    uint64_t after_local;
    bool armed;                   /* this cycle's pod has the signature */
    /* The node-local Score plugins with no NormalizeScore: their raw
     * score is final, so a node's weighted sum of them is kept (sum) and
     * a cycle adds that one number instead of a row per plugin. The bits
     * of the last Score pass that used it, 0: none. */
    uint64_t summed;
    uint32_t cap, rows;
    ms_node_memo_key *filtered;   /* per snapshot index: the node-local filters passed */
    ms_node_memo_verdict *verdicts;   /* per snapshot index */
    ms_node_memo_key *scored;     /* per snapshot index: raw[.. + index] and sum[index] hold */
    int64_t *raw;                 /* raw score of the k-th Score plugin: raw[k * cap + index] */
    /* per snapshot index: the weighted sum of the summed plugins' raw
     * scores, MS_NODE_MEMO_OUT_OF_RANGE when one is outside [0, 100] */
    int64_t *sum;
} ms_node_memo;

#define MS_NODE_MEMO_OUT_OF_RANGE INT64_MIN

void ms_node_memo_init(ms_node_memo *m);
void ms_node_memo_free(ms_node_memo *m);
/* Room for `cap` snapshot indexes and `rows` Score plugins (entries
 * forgotten when it grows). false when out of memory. */
bool ms_node_memo_reserve(ms_node_memo *m, uint32_t cap, uint32_t rows);
/* Whether two pods have the same scheduling signature. */
bool ms_pod_same_signature(const ms_pod *a, const ms_pod *b);
/* At the start of a Filter pass over `plan` (after PreFilter): arms the
 * memo for c->pod, starting a new epoch when its signature, profile or
 * node-local plugins differ from the last pod's, and puts into *rest the
 * plan's other steps (in order). false: nothing to reuse (no node-local
 * step, or the pod has no signature); the memo stays disarmed. */
bool ms_node_memo_begin_filter(ms_node_memo *m, const ms_framework *fw, const ms_cycle *c,
                               const ms_filter_plan *plan, ms_filter_plan *rest);
/* The memo is consulted for this cycle no more (after a pass it did not
 * see, or before a Score over nodes without snapshot indexes). */
static inline void ms_node_memo_disarm(ms_node_memo *m) { m->armed = false; }

static inline bool ms_node_memo_holds(const ms_node_memo_key *k, const ms_node_info *ni, uint64_t epoch) {
    return k->ni == ni && k->generation == ni->generation && k->epoch == epoch;
}
/* Whether a node's result under the full plan (`code`, `st`) says that its
 * node-local steps passed. */
static inline bool ms_node_memo_local_passed(const ms_node_memo *m, ms_code code, const ms_status *st) {
    return code == MS_SUCCESS || (code != MS_ERROR && st->plugin >= 0 && (m->after_local >> st->plugin & 1));
}
static inline void ms_node_memo_note(ms_node_memo_key *k, const ms_node_info *ni, uint64_t epoch) {
    k->ni = ni;
    k->generation = ni->generation;
    k->epoch = epoch;
}

static inline bool ms_node_memo_verdict_holds(const ms_node_memo_verdict *v, const ms_node_info *ni,
                                              uint64_t epoch, uint64_t nominees, int32_t priority) {
    return ms_node_memo_holds(&v->key, ni, epoch) && v->nominees == nominees && v->priority == priority;
}
static inline void ms_node_memo_keep_verdict(ms_node_memo_verdict *v, const ms_node_info *ni, uint64_t epoch,
                                             uint64_t nominees, int32_t priority, const ms_status *st) {
    ms_node_memo_note(&v->key, ni, epoch);
    v->nominees = nominees;
    v->priority = priority;
    v->st = *st;
}

/* ms_framework_run_score with the memo armed: nodes[j] is the snapshot's
 * node at index at[j]. Node-local Score plugins run only on the nodes whose
 * raw scores the memo does not hold; the rest is as ms_framework_run_score
 * (same totals, same per_plugin rows). */
ms_code ms_framework_run_score_memo(const ms_framework *fw, ms_cycle *c, ms_node_memo *m,
                                    ms_node_info *const *nodes, const uint32_t *at, uint32_t n,
                                    int64_t *totals, int64_t *per_plugin, ms_status *st);
/* After ms_framework_run_score_memo: the weighted score of the k-th Score
 * plugin on the snapshot's node at index `at`, which sits at j among the
 * n scored nodes. The rows of per_plugin of the summed plugins are not
 * written by the pass: their scores come from the memo. */
int64_t ms_node_memo_weighted_score(const ms_framework *fw, const ms_node_memo *m, const int64_t *per_plugin,
                                    uint32_t n, uint32_t k, uint32_t j, uint32_t at);
/* Writes the summed plugins' rows of per_plugin (n nodes at `at`), for a
 * reader of every node's scores. */
void ms_node_memo_fill_summed_rows(const ms_framework *fw, const ms_node_memo *m, const uint32_t *at,
                                   uint32_t n, int64_t *per_plugin);

#endif
