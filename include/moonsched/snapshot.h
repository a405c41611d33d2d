/* The per-cycle view of the cluster. Updated incrementally from the cache:
 * only NodeInfos whose generation is newer than the snapshot's are copied. */
#ifndef MOONSCHED_SNAPSHOT_H
#define MOONSCHED_SNAPSHOT_H

#include <stdint.h>

#include "moonsched/map.h"
#include "moonsched/nodeinfo.h"

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
} ms_snapshot;

void ms_snapshot_init(ms_snapshot *s);
void ms_snapshot_free(ms_snapshot *s);
ms_node_info *ms_snapshot_get(const ms_snapshot *s, ms_str node_name);

#endif
