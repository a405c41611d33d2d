/* The per-cycle view of the cluster. Updated incrementally from the cache:
 * only NodeInfos whose generation is newer than the snapshot's are copied. */
#ifndef MOONSCHED_BACKEND_CACHE_SNAPSHOT_H
#define MOONSCHED_BACKEND_CACHE_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/map.h"
#include "moonsched/nodeinfo.h"

/* A NodeInfo the snapshot copied (new or changed) or dropped. `since` is
 * the snapshot's generation when the change was made: a consumer that last
 * looked at the snapshot when its generation was g has not seen the changes
 * with since >= g. */
typedef struct ms_snapshot_change {
    ms_str name;
    uint64_t since;
} ms_snapshot_change;

typedef struct ms_snapshot {
    ms_node_info **nodes;        /* nodes with a Node object, in node-tree order
                                  * (round-robin across zones, as upstream) */
    uint32_t nnodes, nodecap;
    ms_node_info **have_pods_with_affinity;
    uint32_t nhave_affinity, affcap;
    ms_node_info **have_pods_with_required_anti_affinity;
    uint32_t nhave_anti, anticap;
    ms_map by_name;              /* node name id -> ms_node_info* (owned) */
    uint64_t generation;
    uint64_t tree_version;       /* the cache's node-tree version `nodes` was built from */
    /* What the last update changed, for plugins that keep counts from one
     * cycle to the next: every ms_cache_update_snapshot increments
     * update_seq and lists in `updated` the NodeInfos it copied (new ones
     * included). updated_all says the list is not the whole story (NodeInfos
     * were dropped, or the update failed): start over. */
    uint64_t update_seq;
    ms_node_info **updated;
    uint32_t nupdated, updcap;
    bool updated_all;
    /* Journal of changes, oldest first, so that plugins keeping state
     * derived from NodeInfos across cycles (PodTopologySpread's counts) pay
     * for what changed, not for every node. Bounded: old entries are dropped
     * and changes_from raised; it holds every change with since >=
     * changes_from. */
    ms_snapshot_change *changes;
    uint32_t nchanges, changecap;
    uint64_t changes_from;
} ms_snapshot;

/* The snapshot's NodeInfos are borrowed copies (see ms_node_info_copy_into):
 * they point at pods and nodes the cache holds. A pod or node the cache
 * drops stays alive until the cache's next ms_cache_update_snapshot, so a
 * cycle can keep reading its snapshot while the cache changes under it. */
void ms_snapshot_init(ms_snapshot *s);
void ms_snapshot_free(ms_snapshot *s);
ms_node_info *ms_snapshot_get(const ms_snapshot *s, ms_str node_name);

/* The changes a consumer that last looked at the snapshot at generation
 * `seen` has not applied (a name may appear more than once; look it up again
 * with ms_snapshot_get: absent means dropped). false when the journal no
 * longer reaches back to `seen`: the consumer must rebuild from the whole
 * snapshot. Valid until the next ms_cache_update_snapshot. */
bool ms_snapshot_changes(const ms_snapshot *s, uint64_t seen, const ms_snapshot_change **out,
                         uint32_t *n);

/* For ms_cache_update_snapshot (both record the change in the journal).
 * The NodeInfo for a name, created empty (and *created set) when absent;
 * NULL when out of memory. */
ms_node_info *ms_snapshot_slot(ms_snapshot *s, ms_str node_name, bool *created);
/* Frees the NodeInfo of a name (not in the lists afterwards only once they
 * are rebuilt). */
void ms_snapshot_drop(ms_snapshot *s, ms_str node_name);
/* For ms_cache_update_snapshot: starts the change list of an update, and
 * adds a NodeInfo to it (when that fails, updated_all is set instead). */
void ms_snapshot_begin_update(ms_snapshot *s);
void ms_snapshot_note_updated(ms_snapshot *s, ms_node_info *ni);
/* `nodes` becomes by_name's NodeInfos in the given order (names that are
 * absent are skipped), each told its position (index), and the affinity
 * lists are rebuilt from it (in `nodes`' order). 0 or -1 (out of memory). */
int ms_snapshot_rebuild_lists(ms_snapshot *s, const ms_str *order, uint32_t n);
/* For ms_cache_update_snapshot, after a NodeInfo of `nodes` was copied:
 * keeps the affinity lists current by adding or removing it when it gained
 * or lost pods with (anti-)affinity (had_*: before the copy), so that
 * placing such a pod does not cost a pass over every node. The lists are
 * then in no particular order (their consumers only sum over them).
 * 0 or -1 (out of memory: rebuild). */
int ms_snapshot_note_affinity(ms_snapshot *s, ms_node_info *ni, bool had_affinity, bool had_anti);

#endif
