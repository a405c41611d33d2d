/* The cluster a descheduling pass looks at: NodeInfos of its own, built
 * from nodes and bound pods (a file, a list from the API server, or the
 * scheduler cache's NodeInfos), holding references so that they stay put
 * while a placement oracle changes the scheduler's cache under the pass. */
#ifndef MOONSCHED_DESCHEDULER_CLUSTER_H
#define MOONSCHED_DESCHEDULER_CLUSTER_H

#include <stdint.h>

#include "moonsched/error.h"
#include "moonsched/nodeinfo.h"

typedef struct ms_desched_cluster {
    ms_interner *in;
    uint32_t nnodes;
    ms_node_info **nodes;
} ms_desched_cluster;

/* nodes in order; each bound pod on its node's NodeInfo, terminal ones
 * too (RemoveFailedPods looks for them); pods of unknown nodes are left
 * out. */
ms_rc ms_desched_cluster_build(ms_desched_cluster *c, ms_interner *in, ms_node *const *nodes,
                               uint32_t nnodes, ms_pod *const *pods, uint32_t npods, ms_error *err);
void ms_desched_cluster_free(ms_desched_cluster *c);
/* The NodeInfo of a node, or NULL. */
ms_node_info *ms_desched_cluster_node(const ms_desched_cluster *c, ms_str name);

#endif
