/* NodeName: a pod that names its node (spec.nodeName) fits only there. */
#include "builtin.h"

static ms_code node_name_filter(void *self, ms_cycle *c, const ms_node_info *ni, ms_status *st) {
    (void)self;
    ms_str want = c->pod->node_name;
    if (want == MS_STR_NONE || want == ni->name) return MS_SUCCESS;
    return ms_status_set(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE,
                         "node(s) didn't match the requested node name");
}

const ms_plugin_ops ms_plugin_node_name = {
    .name = "NodeName",
    /* Only a new node can carry the requested name. */
    .events = MS_EV_NODE_ADD,
    .filter = node_name_filter,
    .node_local = true,
};
