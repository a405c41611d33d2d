/* NodeInfo: a node and what the pods on it (bound and assumed) use.
 * Mirrors upstream's framework.NodeInfo. */
#ifndef MOONSCHED_NODEINFO_H
#define MOONSCHED_NODEINFO_H

#include <stdbool.h>
#include <stdint.h>

#include "moonsched/intern.h"
#include "moonsched/node.h"
#include "moonsched/pod.h"
#include "moonsched/resources.h"

#pragma GCC visibility push(default)

/* Host ports in use: (ip, protocol, port) triples; 0.0.0.0 conflicts with
 * every address, as upstream's HostPortInfo. */
typedef struct ms_used_port {
    ms_str ip;           /* interned "0.0.0.0" for wildcard */
    uint8_t protocol;
    int32_t port;
    uint32_t count;      /* pods using it */
} ms_used_port;

/* An image on this node with its cluster-wide spread (upstream ImageStateSummary). */
typedef struct ms_image_state {
    ms_str name;
    int64_t size;
    uint32_t num_nodes;  /* nodes in the cluster that have this image */
} ms_image_state;

typedef struct ms_node_info {
    ms_str name;                 /* node name (also set when node is NULL) */
    ms_node *node;               /* NULL while pods reference a node not yet seen */
    uint32_t npods, podcap;
    ms_pod **pods;               /* referenced (borrowed when `borrowed`) */
    uint64_t *pod_uids;          /* pods[i]->meta.uid_hash: removal scans this, not the pods */
    uint32_t npods_with_affinity;
    uint32_t npods_with_required_anti_affinity;
    ms_resources requested;      /* sum of pods' requests (pods count in v[MS_RES_PODS]) */
    int64_t non_zero_cpu;        /* NonZeroRequested */
    int64_t non_zero_mem;
    uint32_t nports, portcap;
    ms_used_port *ports;
    uint32_t nimages, imagecap;
    ms_image_state *images;      /* sorted by name id; set by the cache */
    /* Bumped by the cache on every change (the NodeInfo functions leave it
     * alone): a snapshot copies only NodeInfos newer than itself. */
    uint64_t generation;
    /* Snapshot and scratch copies: pods and node are borrowed, never
     * referenced or released (copying a NodeInfo must not touch every pod). */
    bool borrowed;
    /* A working copy that Filter may see in place of the snapshot's NodeInfo
     * of the same node (nominated pods added, preemption victims removed):
     * plugins that keep counts per snapshot compare the two (upstream's
     * AddPod / RemovePod). Set by the copy's owner; copies leave it alone. */
    bool scratch;
    /* A snapshot's NodeInfo: its position in the snapshot's `nodes`, so
     * that state kept per node can be sized by the node count rather than
     * by the highest name id (set when the list is rebuilt; copies leave
     * it alone). */
    uint32_t index;
} ms_node_info;

/* "Takes a reference": the NodeInfo acquires its own reference (unless
 * borrowed); the caller keeps the one it had. */
ms_node_info *ms_node_info_new(ms_str name);
void ms_node_info_free(ms_node_info *ni);
/* Deep enough copy for a snapshot: shares pods and node without referencing
 * them (dst becomes borrowed, so dst must not own references). Reuses dst's
 * arrays: no allocation when their capacity suffices. Returns 0 or -1 (out
 * of memory; dst is then left consistent but incomplete). */
int ms_node_info_copy_into(ms_node_info *dst, const ms_node_info *src);
void ms_node_info_set_node(ms_node_info *ni, ms_node *node);   /* takes a reference; releases the old node */
/* Adds the pod's requests (+1 pod), non-zero requests, host ports and
 * affinity counts. `in` interns "0.0.0.0" for ports without hostIP. 0 or -1. */
int ms_node_info_add_pod(ms_node_info *ni, ms_pod *pod, ms_interner *in);   /* takes a reference */
/* Removes the pod with pod->meta.uid_hash; MS_ENOENT when absent. The pod
 * stored in the NodeInfo (same uid; maybe another object) is accounted. */
int ms_node_info_remove_pod(ms_node_info *ni, const ms_pod *pod, ms_interner *in);
/* Like remove, but hands the NodeInfo's reference to the stored pod to the
 * caller instead of releasing it (the cache defers releases until no
 * snapshot can point at the pod). NULL when absent. */
ms_pod *ms_node_info_take_pod(ms_node_info *ni, uint64_t uid_hash, ms_interner *in);
/* Index of the pod with this uid hash in ni->pods, or -1. */
int32_t ms_node_info_find_pod(const ms_node_info *ni, uint64_t uid_hash);
/* Replaces the image list (copied; entries sorted by name id). 0 or -1. */
int ms_node_info_set_images(ms_node_info *ni, const ms_image_state *images, uint32_t n);
/* The image entry for a name id, or NULL. */
const ms_image_state *ms_node_info_image(const ms_node_info *ni, ms_str name);
/* upstream HostPortInfo.CheckConflict: hp->host_ip MS_STR_NONE or wildcard
 * conflicts with the same protocol and port on any address; a specific
 * address conflicts with itself and with the wildcard. */
bool ms_node_info_port_conflict(const ms_node_info *ni, const ms_host_port *hp, ms_str wildcard);

#pragma GCC visibility pop

#endif
