/* InterPodAffinity internals shared by its files: the plugin, its args
 * and the terms of one pod (inter_pod_affinity.c), the counts per topology
 * pair kept across cycles and PreFilter's state with AddPod / RemovePod
 * (inter_pod_affinity_counts.c), Filter (inter_pod_affinity_filter.c) and
 * Score (inter_pod_affinity_score.c). */
#ifndef MOONSCHED_PLUGINS_INTER_POD_AFFINITY_H
#define MOONSCHED_PLUGINS_INTER_POD_AFFINITY_H

#include <stdbool.h>
#include <stdint.h>

#include "base/map.h"
#include "moonsched/plugin.h"
#include "moonsched/selector.h"

#define IPA_NAME "InterPodAffinity"

/* ---- counts per topology pair ------------------------------------------ */

/* Counts (or scores) per (topologyKey, value), and the distinct topology
 * keys seen, so that a node is checked with one label lookup per key instead
 * of one map lookup per node label. Owned by the plugin, kept between cycles
 * and cleared (not freed) when counting starts over: nothing is allocated
 * once the arrays have grown. */
typedef struct ipa_pair_counts {
    ms_map slot;                   /* pair -> index + 1 into v */
    int64_t *v;
    uint32_t n, cap;
    uint32_t nonzero;              /* pairs whose count is not 0 */
    ms_str *keys;
    uint32_t nkeys, keycap;
    /* A bit per topology value (an interned id, so dense) that has a pair
     * under some key: Filter asks about every node it visits, and most of
     * them (a hostname no counted pod runs on) have none, which the bit
     * answers without probing the map. Words past nvalue_words are 0. */
    uint64_t *value_bits;
    uint32_t nvalue_words, value_word_cap;
} ipa_pair_counts;

static inline uint64_t ipa_pair_of(ms_str key, ms_str value) { return (uint64_t)key << 32 | value; }

/* The count of a pair, from the map alone: for readers whose values
 * usually have a pair (Score, over the feasible nodes). */
static inline int64_t ipa_pc_lookup(const ipa_pair_counts *pc, ms_str key, ms_str value) {
    uintptr_t i = (uintptr_t)ms_map_get(&pc->slot, ipa_pair_of(key, value));
    return i ? pc->v[i - 1] : 0;
}

/* The same, the value's bit tested first: for Filter, whose nodes mostly
 * have no pair. */
static inline int64_t ipa_pc_get(const ipa_pair_counts *pc, ms_str key, ms_str value) {
    uint32_t w = value >> 6;
    if (w >= pc->nvalue_words || !(pc->value_bits[w] >> (value & 63) & 1)) return 0;
    return ipa_pc_lookup(pc, key, value);
}

void ipa_pc_free(ipa_pair_counts *pc);
/* Empties the counts, keeping their memory. */
void ipa_pc_clear(ipa_pair_counts *pc);
/* Adds d (which may be negative: a node counted again first takes back
 * what it added) to the pair's count. 0 or -1 (out of memory). */
int ipa_pc_add(ipa_pair_counts *pc, ms_str key, ms_str value, int64_t d);

/* ---- terms ---------------------------------------------------------------- */

/* One of the incoming pod's terms, compiled for this cycle: the namespaces
 * it selects resolved to sorted ids (namespaceSelector listed against the
 * namespace store, as upstream's mergeAffinityTermNamespacesIfNotEmpty),
 * the label keys merged into the selector. */
typedef struct ipa_cterm {
    ms_str topology_key;
    int64_t weight;                /* Score: +weight affinity, -weight anti-affinity */
    bool all_namespaces;           /* namespaceSelector {} */
    uint32_t nns;
    ms_str *ns;                    /* sorted */
    ms_label_selector sel;
} ipa_cterm;

static inline bool ipa_has_id(const ms_str *ids, uint32_t n, ms_str id) {
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (ids[mid] == id) return true;
        if (ids[mid] < id) lo = mid + 1;
        else hi = mid;
    }
    return false;
}

static inline bool ipa_cterm_matches(const ipa_cterm *t, const ms_pod *target, const ms_interner *in) {
    if (!t->all_namespaces && !ipa_has_id(t->ns, t->nns, target->meta.namespace_)) return false;
    return ms_label_selector_matches(&t->sel, &target->meta.labels, in);
}

static inline bool ipa_matches_all(const ipa_cterm *terms, uint32_t n, const ms_pod *target,
                                   const ms_interner *in) {
    if (n == 0) return false;
    for (uint32_t i = 0; i < n; i++)
        if (!ipa_cterm_matches(&terms[i], target, in)) return false;
    return true;
}

/* One term of `pod` compiled for this cycle (allocated from a). 0 or -1. */
int ipa_compile_term(ms_arena *a, const ms_pod *pod, const ms_pod_affinity_term *t, int64_t weight,
                     const ms_namespaces *nss, const ms_interner *in, ipa_cterm *out);
/* The required terms of pa compiled; *out NULL when there are none. */
int ipa_compile_required(ms_arena *a, const ms_pod *pod, const ms_pod_affinity *pa,
                         const ms_namespaces *nss, const ms_interner *in, ipa_cterm **out);
/* An existing pod's (owner's) term against the incoming pod, uncompiled:
 * the same rules as ipa_compile_term + ipa_cterm_matches, evaluated in
 * place so that nothing is built per existing pod. ns_labels: the incoming
 * pod's namespace labels (empty when the namespace is unknown). */
bool ipa_term_matches(const ms_pod_affinity_term *t, const ms_pod *owner, const ms_pod *target,
                      const ms_labels *ns_labels, const ms_interner *in);

/* ---- the plugin and the counts kept between cycles ------------------------ */

enum { C_EXISTING_ANTI, C_AFFINITY, C_ANTI, C_SCORE, C_COUNT };

/* One count a node added: taken back when the node is counted again. */
typedef struct ipa_contrib {
    ms_str key, value;
    int32_t delta;
    uint32_t which;                /* C_* */
} ipa_contrib;

typedef struct ipa_node_rec {
    uint32_t n, cap;
    ipa_contrib *items;
} ipa_node_rec;

/* What a set of counts was taken from: a snapshot at an update, a pod
 * shape, the namespace store at a generation. */
typedef struct ipa_tracker {
    ms_map recs;                   /* node name -> ipa_node_rec* */
    uint64_t entries;              /* contributions over all records */
    const ms_snapshot *snap;
    uint64_t seq;
    uint64_t ns_generation;
    ms_pod *shape;                 /* referenced */
    bool valid;
} ipa_tracker;

/* ---- per-node anti-affinity verdicts (inter_pod_affinity_verdicts.c) ------ */

/* Filter asks, for every node it visits, whether the C_ANTI or
 * C_EXISTING_ANTI count at the node's value of some key is > 0: a label
 * lookup and a map probe per key. Here the answer is kept per node (by its
 * position in the snapshot's nodes, so the arrays follow the node count,
 * not the name ids interned before the nodes: pods' nodeName, events) and
 * changed only when a pair's count crosses 0, for the nodes that have that
 * pair's value (a chain per pair, hostname keys: one node), so Filter
 * reads one byte. It holds for the snapshot `snap` at `seq` and
 * `tree_version` (the positions move only with the node tree); the nodes
 * an update changed are checked for a new value at PreFilter, anything
 * else builds it again from the counts. */
#define IPA_VERDICT_KEYS 4

typedef struct ipa_verdicts {
    bool valid;
    const ms_snapshot *snap;
    uint64_t seq, tree_version;
    uint32_t nkeys;
    ms_str keys[IPA_VERDICT_KEYS];
    uint32_t cap;                  /* positions covered: the snapshot's node count */
    const ms_node_info **node;     /* per position: the snapshot's NodeInfo there */
    ms_str *value;                 /* value[k * cap + at]: its value for keys[k] */
    uint32_t *next;                /* next[k * cap + at]: the next node with that value, at + 1 */
    ms_map heads;                  /* (key, value) -> first node with it, at + 1 */
    /* Per position, for C_ANTI and C_EXISTING_ANTI: the keys whose count at
     * the node's value is > 0. */
    uint8_t *blocked[2];
    uint32_t node_cap, value_cap, next_cap, blocked_cap[2];
} ipa_verdicts;

/* Whether `ni` is covered (the snapshot's NodeInfo at its position): then
 * *anti and *existing hold the verdicts of the pod's and the existing pods'
 * anti-affinity terms. */
static inline bool ipa_verdicts_of(const ipa_verdicts *v, const ms_node_info *ni, bool *anti, bool *existing) {
    uint32_t at = ni->index;
    if (!v->valid || at >= v->cap || v->node[at] != ni) return false;
    *anti = v->blocked[0][at] != 0;
    *existing = v->blocked[1][at] != 0;
    return true;
}

typedef struct ipa_plugin {
    const ms_interner *in;
    const ms_handle *h;
    int64_t hard_pod_affinity_weight;
    bool ignore_preferred_terms_of_existing_pods;
    /* C_EXISTING_ANTI: existing pods' anti-affinity terms matching the pod;
     * C_AFFINITY: existing pods matching all the pod's affinity terms;
     * C_ANTI: existing pods matching the pod's anti-affinity terms
     * (upstream's preFilterState maps); C_SCORE: PreScore's topology scores. */
    ipa_pair_counts counts[C_COUNT];
    ipa_tracker filter_tracker, score_tracker;
    uint64_t filter_serial, score_serial;
    ipa_verdicts verdicts;
    /* Filter's difference for a working copy of a node (ipa_node_delta). */
    struct ipa_pair_delta *delta_buf;
    uint32_t delta_cap;
} ipa_plugin;

/* The counts live in the plugin, so a cycle's state is only good until the
 * next cycle's PreFilter (PreScore): `serial` says which one it was. */
typedef struct ipa_filter_state {
    uint64_t serial;
    uint32_t naff, nanti;
    ipa_cterm *aff, *anti;
    bool self_match;               /* the pod matches all its own affinity terms */
    const ms_labels *ns_labels;    /* the pod's namespace labels */
} ipa_filter_state;

typedef struct score_state {
    uint64_t serial;
} score_state;

/* ---- a working copy's difference (AddPod / RemovePod) ------------------- */

/* Filter may be handed a working copy of a node instead of the snapshot's
 * NodeInfo: the framework's pass with nominated pods added, or preemption's
 * dry run with victims removed (and some put back). Upstream updates its
 * PreFilter state for those pods with AddPod / RemovePod (updateWithPod,
 * +1 / -1 on the three maps). Here the counts belong to the snapshot and are
 * shared by every node, so the copy's difference is kept aside instead:
 * every pair such a pod touches is one of this node's own (key, the node's
 * value for key), so a change is one (map, key, delta) entry, and Filter
 * reads count + delta. */
typedef struct ipa_pair_delta {
    uint32_t which;                /* C_EXISTING_ANTI, C_AFFINITY, C_ANTI */
    ms_str key;                    /* the value is the node's label for key */
    int64_t d;
} ipa_pair_delta;

typedef struct ipa_node_delta {
    uint32_t n;
    ipa_pair_delta *v;             /* p->delta_buf */
} ipa_node_delta;

static inline int64_t ipa_delta_of(const ipa_node_delta *nd, uint32_t which, ms_str key) {
    int64_t d = 0;
    for (uint32_t i = 0; i < nd->n; i++)
        if (nd->v[i].which == which && nd->v[i].key == key) d += nd->v[i].d;
    return d;
}

/* The labels of namespace ns (none when it is unknown). */
const ms_labels *ipa_namespace_labels(const ms_handle *h, ms_str ns);
/* A cycle without a snapshot (framework tests) sees an empty cluster. */
const ms_snapshot *ipa_snapshot_of(const ms_cycle *c);
ms_code ipa_oom(ms_status *st);

/* Verdicts (inter_pod_affinity_verdicts.c). */
void ipa_verdicts_free(ipa_verdicts *v);
/* Before PreFilter's counting: gives them up unless the snapshot's nodes
 * and their values are those they were built from. */
void ipa_verdicts_check(ipa_verdicts *v, const ms_snapshot *snap);
/* The C_ANTI or C_EXISTING_ANTI count of (key, value) went from 0 to > 0
 * (d = 1) or back (d = -1). */
void ipa_verdicts_crossed(ipa_verdicts *v, uint32_t which, ms_str key, ms_str value, int d);
/* Those counts were emptied. */
void ipa_verdicts_cleared(ipa_verdicts *v);
/* After counting: built again from the counts when given up (left given
 * up when there are too many keys or memory runs out: Filter then reads
 * the counts). */
void ipa_verdicts_finish(ipa_verdicts *v, const ipa_plugin *p, const ms_snapshot *snap);

/* Counts (inter_pod_affinity_counts.c). */
/* Adds one count for node `name`, remembering it in the node's record
 * (created at the first count). 0 or -1. */
int ipa_emit(ipa_plugin *p, ipa_tracker *tr, ipa_node_rec **rp, ms_str name, uint32_t which, ms_str key,
             ms_str value, int32_t delta);
/* Takes back what a node added; returns its record (emptied) or NULL. */
ipa_node_rec *ipa_retract(ipa_plugin *p, ipa_tracker *tr, ms_str name);
/* Starting over: every record emptied, those of nodes that left the
 * snapshot freed. */
void ipa_tracker_reset(ipa_tracker *tr, const ms_snapshot *snap);
/* The counts can be brought up to date from the snapshot's change list:
 * same pod shape (required terms for Filter, preferred for Score), same
 * namespaces, and at most one update since. */
bool ipa_tracker_current(const ipa_tracker *tr, const ms_snapshot *snap, const ms_pod *pod,
                         uint64_t ns_generation, bool required);
void ipa_tracker_commit(ipa_tracker *tr, const ms_snapshot *snap, ms_pod *pod, uint64_t ns_generation);
void ipa_tracker_free(ipa_tracker *tr);
uint64_t ipa_ns_generation_of(const ms_handle *h);
/* The working copy's difference from the snapshot's NodeInfo of the same
 * node: RemovePod for the pods only the snapshot has, AddPod for those
 * only the copy has. 0 or -1 (out of memory). */
int ipa_node_difference(ipa_plugin *p, const ms_cycle *c, const ipa_filter_state *s, const ms_node_info *ni,
                        ipa_node_delta *nd);

/* Extension points. */
ms_code ipa_pre_filter(void *self, ms_cycle *c, ms_status *st);
ms_code ipa_filter(void *self, ms_cycle *c, const ms_node_info *ni, ms_status *st);
ms_code ipa_pre_score(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n, ms_status *st);
ms_code ipa_score(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n, int64_t *scores,
                  ms_status *st);
ms_code ipa_normalize(void *self, ms_cycle *c, int64_t *scores, uint32_t n, ms_status *st);

#endif
