/* The scheduler cache: NodeInfos for every node, and the pod states behind
 * them (added by the informer, or assumed by the scheduler while binding).
 * Mirrors upstream's internal/cache. Owned by the scheduler thread.
 *
 * Assumed pods: ms_cache_assume_pod adds a pod to its node before the bind is
 * sent. ms_cache_finish_binding marks the bind as sent; only from then on can
 * the assumption expire (after ttl, when the informer never confirmed it).
 * While a bind is in flight an assumed pod never expires. The informer's add
 * of the same pod (same uid) confirms it. */
#ifndef MOONSCHED_CACHE_H
#define MOONSCHED_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "moonsched/error.h"
#include "moonsched/intern.h"
#include "moonsched/node.h"
#include "moonsched/nodeinfo.h"
#include "moonsched/pod.h"
#include "moonsched/snapshot.h"

typedef struct ms_cache ms_cache;

/* ttl: seconds an assumed pod whose bind finished waits for confirmation;
 * 0 means never expire. */
ms_cache *ms_cache_new(ms_interner *in, double assumed_ttl);
void ms_cache_free(ms_cache *c);

ms_rc ms_cache_add_node(ms_cache *c, ms_node *node);               /* takes a reference */
ms_rc ms_cache_update_node(ms_cache *c, ms_node *node);            /* by name; takes a reference */
ms_rc ms_cache_remove_node(ms_cache *c, ms_str name);

/* A pod with nodeName from the informer. Confirms an assumed pod of the same
 * uid (moving it if it landed on another node). Terminal pods are ignored
 * (and removed if present). */
ms_rc ms_cache_add_pod(ms_cache *c, ms_pod *pod);
ms_rc ms_cache_update_pod(ms_cache *c, ms_pod *old_pod, ms_pod *new_pod);
ms_rc ms_cache_remove_pod(ms_cache *c, const ms_pod *pod);

/* pod must have node_name set (see ms_pod_with_node). */
ms_rc ms_cache_assume_pod(ms_cache *c, ms_pod *pod);
ms_rc ms_cache_finish_binding(ms_cache *c, const ms_pod *pod, double now);
ms_rc ms_cache_forget_pod(ms_cache *c, const ms_pod *pod);
bool ms_cache_is_assumed(const ms_cache *c, const ms_pod *pod);
/* Removes assumed pods whose bind finished more than ttl ago; returns count. */
uint32_t ms_cache_cleanup_assumed(ms_cache *c, double now);

/* The cached pod for a uid hash (bound or assumed), or NULL. */
ms_pod *ms_cache_get_pod(const ms_cache *c, uint64_t uid_hash);

ms_rc ms_cache_update_snapshot(ms_cache *c, ms_snapshot *s);

uint32_t ms_cache_node_count(const ms_cache *c);
uint32_t ms_cache_pod_count(const ms_cache *c);
/* The live NodeInfo (for reporting; scheduling reads the snapshot). */
const ms_node_info *ms_cache_node_info(const ms_cache *c, ms_str name);
/* Iterates live NodeInfos in node-tree order. */
const ms_node_info *ms_cache_node_at(const ms_cache *c, uint32_t i);

#endif
