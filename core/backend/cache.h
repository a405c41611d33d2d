/* The scheduler cache: NodeInfos for every node, and the pod states behind
 * them (added by the informer, or assumed by the scheduler while binding).
 * Mirrors upstream's internal/cache. Owned by the scheduler thread.
 *
 * Assumed pods: ms_cache_assume_pod adds a pod to its node before the bind is
 * sent. ms_cache_finish_binding marks the bind as sent; only from then on can
 * the assumption expire (after ttl, when the informer never confirmed it).
 * While a bind is in flight an assumed pod never expires. The informer's add
 * of the same pod (same uid) confirms it.
 *
 * Pods are keyed by meta.uid_hash. "Takes a reference": the cache acquires
 * its own; the caller keeps the one it had. Every change to a NodeInfo gives
 * it a new generation from a counter of this cache and moves it to the head
 * of a most-recently-updated list, so that ms_cache_update_snapshot costs
 * O(NodeInfos changed since the last update). Pods and nodes the cache drops
 * are released at the next ms_cache_update_snapshot (one snapshot per cache). */
#ifndef MOONSCHED_CACHE_H
#define MOONSCHED_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "backend/cache_snapshot.h"
#include "moonsched/error.h"
#include "moonsched/intern.h"
#include "moonsched/node.h"
#include "moonsched/nodeinfo.h"
#include "moonsched/pod.h"

typedef struct ms_cache ms_cache;

/* ttl: seconds an assumed pod whose bind finished waits for confirmation;
 * 0 means never expire. */
ms_cache *ms_cache_new(ms_interner *in, double assumed_ttl);
void ms_cache_free(ms_cache *c);

/* Add and update both insert or replace by node name (as upstream); a node
 * that only had pods so far gets its node. MS_EINVAL without a name. */
ms_rc ms_cache_add_node(ms_cache *c, ms_node *node);               /* takes a reference */
ms_rc ms_cache_update_node(ms_cache *c, ms_node *node);            /* by name; takes a reference */
/* MS_ENOENT when no such node. Its pods stay (a NodeInfo with node == NULL,
 * not in snapshots) until they are removed. */
ms_rc ms_cache_remove_node(ms_cache *c, ms_str name);

/* A pod with nodeName from the informer (takes a reference). Confirms an
 * assumed pod of the same uid (moving it if it landed on another node).
 * Terminal pods are ignored (and removed if present). MS_EEXIST when the uid
 * is already added (not assumed); MS_EINVAL without nodeName. */
ms_rc ms_cache_add_pod(ms_cache *c, ms_pod *pod);
/* Replaces the pod of new_pod's uid (old_pod may be NULL; a different uid in
 * old_pod means delete old, add new). A pod that turned terminal is removed.
 * An update of an assumed pod confirms it like an add. MS_ENOENT when the
 * uid is unknown (MS_OK if the new pod is terminal anyway). */
ms_rc ms_cache_update_pod(ms_cache *c, ms_pod *old_pod, ms_pod *new_pod);
/* Removes the pod of this uid, assumed or not; MS_ENOENT when unknown. */
ms_rc ms_cache_remove_pod(ms_cache *c, const ms_pod *pod);

/* pod must have node_name set (see ms_pod_with_node); takes a reference.
 * MS_EEXIST when the uid is in the cache. */
ms_rc ms_cache_assume_pod(ms_cache *c, ms_pod *pod);
/* From now on the assumed pod expires at now + ttl unless confirmed. MS_OK
 * also when it was confirmed already; MS_ENOENT when unknown. */
ms_rc ms_cache_finish_binding(ms_cache *c, const ms_pod *pod, double now);
/* Undoes an assumption. MS_ENOENT when unknown; MS_ESTATE when the pod is
 * not assumed or pod->node_name (when set) is not where it was assumed. */
ms_rc ms_cache_forget_pod(ms_cache *c, const ms_pod *pod);
bool ms_cache_is_assumed(const ms_cache *c, const ms_pod *pod);
/* Removes assumed pods whose bind finished more than ttl ago (now > finish
 * time + ttl); returns count. Never expires anything when ttl is 0. */
uint32_t ms_cache_cleanup_assumed(ms_cache *c, double now);

/* The cached pod for a uid hash (bound or assumed), or NULL. */
ms_pod *ms_cache_get_pod(const ms_cache *c, uint64_t uid_hash);

/* Copies the NodeInfos changed since s was last updated; rebuilds s->nodes
 * (node-tree order) only when nodes were added, removed or moved zone, and
 * the affinity lists when one of them is affected. Pointers in s->nodes stay
 * valid unless their node was removed. MS_ENOMEM leaves s usable for a retry
 * (its lists empty until then). */
ms_rc ms_cache_update_snapshot(ms_cache *c, ms_snapshot *s);

/* Nodes with a Node object (the node tree); NodeInfos kept only for the
 * pods of a removed node are not counted. */
uint32_t ms_cache_node_count(const ms_cache *c);
/* Pods in the cache, assumed ones included. */
uint32_t ms_cache_pod_count(const ms_cache *c);
/* Assumed pods whose binding has not been confirmed by the informer yet. */
uint32_t ms_cache_assumed_count(const ms_cache *c);
/* The live NodeInfo (for reporting; scheduling reads the snapshot), also
 * one whose node was removed while pods remain. These two accessors first
 * settle image counts and the node-tree order (work deferred from node
 * events), which changes no observable state but generations. */
const ms_node_info *ms_cache_node_info(const ms_cache *c, ms_str name);
/* Iterates live NodeInfos in node-tree order: i < ms_cache_node_count,
 * NULL beyond. */
const ms_node_info *ms_cache_node_at(const ms_cache *c, uint32_t i);
/* Every NodeInfo in no order, those kept only for the pods of a node that
 * is gone included: start with *it = 0; NULL at the end. */
const ms_node_info *ms_cache_node_info_next(const ms_cache *c, size_t *it);

#endif
