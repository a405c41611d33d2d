/* PodTopologySpread internals shared by its files: the constraints of one
 * pod (pod_topology_spread.c), the match counts per topology domain kept
 * across cycles (pod_topology_spread_counts.c), Filter
 * (pod_topology_spread_filter.c) and Score (pod_topology_spread_score.c). */
#ifndef MOONSCHED_PLUGINS_POD_TOPOLOGY_SPREAD_H
#define MOONSCHED_PLUGINS_POD_TOPOLOGY_SPREAD_H

#include <stdbool.h>
#include <stdint.h>

#include "base/map.h"
#include "moonsched/plugin.h"
#include "moonsched/selector.h"

#define PTS_NAME "PodTopologySpread"
#define PTS_MAX_TABLES 16

/* upstream's topologySpreadConstraint: a pod's constraint with its selector
 * resolved (matchLabelKeys merged, or the default selector). */
typedef struct pts_constraint {
    int32_t max_skew;
    int32_t min_domains;           /* >= 1 */
    ms_str key;
    bool honor_affinity;           /* nodeAffinityPolicy Honor */
    bool honor_taints;             /* nodeTaintsPolicy Honor */
    /* Scoring counts hostname constraints on the node itself, whatever the
     * policies say; the tables keep that count per node, with no domains. */
    bool per_node;
    ms_label_selector sel;
} pts_constraint;

/* The constraints of one pod for one extension point. */
typedef struct pts_set {
    uint32_t n;
    pts_constraint *c;
    const ms_pod *pod;             /* its nodeSelector, affinity and tolerations for the policies */
    ms_str ns;
    /* Only nodes with every constraint's topology key count (always in
     * Filter; in Score unless the system defaults apply). Otherwise a node
     * without a key counts in the domain of the empty value, as upstream's
     * map lookup of a missing label gives "". */
    bool require_all;
    bool scoring;
} pts_set;

/* Counts of pods matching each constraint per topology domain, over the
 * nodes that pass the node inclusion policies, for every pod whose
 * constraints count the same way (same namespace, selectors, keys, policies
 * and, where a policy honours them, node affinity and tolerations). Kept in
 * step with the snapshot through its change journal. */
typedef struct pts_domains {
    ms_map index;                  /* value id -> domain index + 1 */
    uint32_t n, cap;
    ms_str *value;
    int64_t *count;                /* matching pods */
    uint32_t *nodes;               /* eligible nodes; 0: the domain does not exist */
    uint32_t *mark;                /* PreScore: the pass that last saw the domain */
    uint32_t live;                 /* domains with nodes */
    /* Minimum count over live domains and how many domains have it; dirty
     * when the last domain at the minimum went up (recomputed on demand). */
    int64_t min;
    uint32_t nmin;
    bool dirty;
} pts_domains;

typedef struct pts_table {
    uint32_t *sig;                 /* what the counts depend on */
    uint32_t siglen;
    uint64_t sighash;
    uint64_t last_used;
    const ms_snapshot *snap;       /* synced with this snapshot ... */
    uint64_t seen;                 /* ... at this generation */
    uint64_t tree_version;         /* ... whose nodes were in these positions */
    bool synced;
    uint32_t nc;
    bool require_all;
    pts_domains *dom;              /* nc */
    /* Per position in the snapshot's nodes (ms_node_info.index), so that
     * Filter finds a node's entry with one array read and the arrays follow
     * the node count, not the name ids interned before the nodes: the
     * snapshot's NodeInfo the entry was computed from (NULL: none) at which
     * generation, and per constraint the domain the node counts in (-1: it
     * does not) and what it adds (per node constraints: the node's count),
     * and whether the node lacks the constraint's key. */
    uint32_t nnodes, nodecap;
    const ms_node_info **ni;
    uint64_t *gen;
    uint8_t *has_keys;             /* the node has every constraint's topology key */
    int32_t *dc;                   /* [node][constraint][domain, count] */
    uint8_t *missing;              /* [node][constraint] */
    uint32_t pass;                 /* PreScore passes, for pts_domains.mark */
} pts_table;

typedef struct pts_tables {
    pts_table *t[PTS_MAX_TABLES];
    uint32_t n;
    uint64_t clock;
    uint32_t *sigbuf;              /* signature of the current pod */
    uint32_t sigcap;
    ms_str *values;                /* scratch: a node's value per constraint */
    uint32_t nvalues;
} pts_tables;

typedef struct pts_plugin {
    ms_interner *in;
    ms_arena arena;                /* default constraints */
    bool system_defaulted;
    uint32_t ndefaults;
    ms_topology_spread *defaults;
    ms_str hostname_key;           /* kubernetes.io/hostname */
    ms_str zone_key;               /* topology.kubernetes.io/zone */
    ms_str api_v1, api_apps_v1, kind_rc, kind_rs, kind_ss;
    ms_str per_pod_labels[3];      /* labels a StatefulSet sets per pod */
    const struct ms_workload_set *workloads;   /* NULL: none known */
    pts_tables tables;
} pts_plugin;

/* The pod's constraints with whenUnsatisfiable `when`, or the default ones
 * when it has none (see pod_topology_spread.c). false when out of memory. */
bool pts_constraints(const pts_plugin *pl, ms_arena *a, const ms_pod *pod, uint8_t when,
                     pts_set *out);

/* upstream's matchNodeInclusionPolicies for constraint k. */
bool pts_node_included(const pts_set *s, uint32_t k, const ms_node *node, const ms_interner *in);
/* upstream's nodeLabelsMatchSpreadConstraints. */
bool pts_node_has_keys(const pts_set *s, const ms_node *node);
/* upstream's countPodsMatchSelector: pods of namespace ns, not being
 * deleted, that the selector matches. */
int32_t pts_count_matching(const ms_node_info *ni, const ms_label_selector *sel, ms_str ns,
                           const ms_interner *in);

/* The table for s, synced with snap (which must not be NULL). NULL when
 * out of memory. The table stays valid until the plugin's next PreFilter or
 * PreScore. */
pts_table *pts_tables_sync(pts_tables *ts, const pts_set *s, const ms_snapshot *snap,
                           const ms_interner *in);
void pts_tables_free(pts_tables *ts);

/* The position of the table's entry for ni's node, or -1 when it has none.
 * The snapshot's NodeInfo is found at its own position (Filter and
 * PreScore look there first, inline); a working copy (nominated pods
 * added, preemption's victims removed) may not know it, and is found by
 * its name. */
int32_t pts_node(const pts_table *t, const ms_node_info *ni);
/* The table's entry at position i: NULL when it has none. */
static inline const ms_node_info *pts_node_info(const pts_table *t, int32_t i) {
    return i >= 0 && (uint32_t)i < t->nnodes ? t->ni[i] : NULL;
}
static inline int32_t pts_node_domain(const pts_table *t, int32_t i, uint32_t k) {
    return t->dc[((size_t)i * t->nc + k) * 2];
}
static inline int32_t pts_node_count(const pts_table *t, int32_t i, uint32_t k) {
    return t->dc[((size_t)i * t->nc + k) * 2 + 1];
}
/* Domain of a value for constraint k, or -1. */
static inline int32_t pts_domain(const pts_table *t, uint32_t k, ms_str value) {
    return (int32_t)(uintptr_t)ms_map_get(&t->dom[k].index, value) - 1;
}
/* Minimum count over the live domains of constraint k (INT32_MAX when there
 * are none, as upstream's critical paths start). */
int64_t pts_min(pts_table *t, uint32_t k);
/* The minimum if domain d of constraint k counted `delta` more. */
int64_t pts_min_with(const pts_table *t, uint32_t k, int32_t d, int64_t delta);

/* PreFilter / Filter and PreScore / Score / NormalizeScore. */
ms_code pts_pre_filter(void *self, ms_cycle *c, ms_status *st);
ms_code pts_filter(void *self, ms_cycle *c, const ms_node_info *ni, ms_status *st);
ms_code pts_pre_score(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n,
                      ms_status *st);
ms_code pts_score(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n, int64_t *scores,
                  ms_status *st);
ms_code pts_normalize_score(void *self, ms_cycle *c, int64_t *scores, uint32_t n, ms_status *st);

/* The plugin's slot in the cycle: PreFilter's and PreScore's state. */
typedef struct pts_filter_state pts_filter_state;
typedef struct pts_score_state pts_score_state;
typedef struct pts_cycle_state {
    pts_filter_state *filter;
    pts_score_state *score;
} pts_cycle_state;

pts_cycle_state *pts_cycle_state_of(ms_cycle *c);

#endif
