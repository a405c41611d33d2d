/* A descheduling pass's own NodeInfos. */
#include "descheduler/cluster.h"

#include <stdlib.h>
#include <string.h>

ms_node_info *ms_desched_cluster_node(const ms_desched_cluster *c, ms_str name) {
    for (uint32_t i = 0; i < c->nnodes; i++)
        if (c->nodes[i]->name == name) return c->nodes[i];
    return NULL;
}

ms_rc ms_desched_cluster_build(ms_desched_cluster *c, ms_interner *in, ms_node *const *nodes,
                               uint32_t nnodes, ms_pod *const *pods, uint32_t npods, ms_error *err) {
    memset(c, 0, sizeof *c);
    c->in = in;
    if (!(c->nodes = calloc(nnodes ? nnodes : 1, sizeof *c->nodes))) goto oom;
    for (uint32_t i = 0; i < nnodes; i++) {
        ms_node_info *ni = ms_node_info_new(nodes[i]->meta.name);
        if (!ni) goto oom;
        ms_node_info_set_node(ni, nodes[i]);
        c->nodes[c->nnodes++] = ni;
    }
    /* Nodes are few next to pods: a map would pay off only past a few
     * thousand nodes, and this runs once per pass. */
    for (uint32_t i = 0; i < npods; i++) {
        if (pods[i]->node_name == MS_STR_NONE) continue;
        ms_node_info *ni = ms_desched_cluster_node(c, pods[i]->node_name);
        if (ni && ms_node_info_add_pod(ni, pods[i], in) != 0) goto oom;
    }
    return MS_OK;
oom:
    ms_desched_cluster_free(c);
    return ms_error_set(err, MS_ENOMEM, "out of memory");
}

void ms_desched_cluster_free(ms_desched_cluster *c) {
    for (uint32_t i = 0; i < c->nnodes; i++) ms_node_info_free(c->nodes[i]);
    free(c->nodes);
    memset(c, 0, sizeof *c);
}
