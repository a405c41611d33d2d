/* NodePorts: the pod's host ports must be free on the node. */
#include "builtin.h"

/* The decoder already gathered the pod's host ports (containers and init
 * containers), so PreFilter only decides whether Filter has work to do. */
static ms_code node_ports_pre_filter(void *self, ms_cycle *c, ms_status *st) {
    (void)self;
    (void)st;
    return c->pod->nhost_ports ? MS_SUCCESS : MS_SKIP;
}

static ms_code node_ports_filter(void *self, ms_cycle *c, const ms_node_info *ni, ms_status *st) {
    (void)self;
    if (ni->nports == 0) return MS_SUCCESS;
    const ms_pod *pod = c->pod;
    for (uint32_t i = 0; i < pod->nhost_ports; i++)
        if (ms_node_info_port_conflict(ni, &pod->host_ports[i], c->h->wildcard_ip))
            return ms_status_set(st, MS_UNSCHEDULABLE,
                                 "node(s) didn't have free ports for the requested pod ports");
    return MS_SUCCESS;
}

const ms_plugin_ops ms_plugin_node_ports = {
    .name = "NodePorts",
    /* Ports free up when a pod leaves (or an assumed pod is forgotten); a new
     * node has all of them. Ports are immutable, so pod updates do not help. */
    .events = MS_EV_NODE_ADD | MS_EV_ASSIGNED_POD_DELETE | MS_EV_FORGET,
    .pre_filter = node_ports_pre_filter,
    .filter = node_ports_filter,
    .node_local = true,
};
