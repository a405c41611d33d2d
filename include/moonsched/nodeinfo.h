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
    ms_pod **pods;               /* referenced */
    uint32_t npods_with_affinity;
    uint32_t npods_with_required_anti_affinity;
    ms_resources requested;      /* sum of pods' requests (pods count in v[MS_RES_PODS]) */
    int64_t non_zero_cpu;        /* NonZeroRequested */
    int64_t non_zero_mem;
    uint32_t nports, portcap;
    ms_used_port *ports;
    uint32_t nimages;
    ms_image_state *images;      /* sorted by name id */
    uint64_t generation;
} ms_node_info;

ms_node_info *ms_node_info_new(ms_str name);
void ms_node_info_free(ms_node_info *ni);
/* Deep enough copy for a snapshot: shares pods and node by reference. */
int ms_node_info_copy_into(ms_node_info *dst, const ms_node_info *src);
void ms_node_info_set_node(ms_node_info *ni, ms_node *node);   /* takes a reference */
int ms_node_info_add_pod(ms_node_info *ni, ms_pod *pod, ms_interner *in);   /* takes a reference */
/* Removes the pod with pod->meta.uid_hash; MS_ENOENT when absent. */
int ms_node_info_remove_pod(ms_node_info *ni, const ms_pod *pod, ms_interner *in);
bool ms_node_info_port_conflict(const ms_node_info *ni, const ms_host_port *hp, ms_str wildcard);

#endif
