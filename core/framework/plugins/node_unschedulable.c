/* NodeUnschedulable: spec.unschedulable nodes are out unless the pod
 * tolerates the node.kubernetes.io/unschedulable:NoSchedule taint. */
#include <stdlib.h>

#include "builtin.h"
#include "api/toleration.h"

typedef struct node_unschedulable {
    ms_taint taint;   /* the taint a cordoned node is treated as having */
} node_unschedulable;

static ms_rc node_unschedulable_create(const cJSON *args, const ms_handle *h, void **self,
                                       ms_error *err) {
    (void)args;
    if (!h || !h->in) return ms_error_set(err, MS_EINVAL, "NodeUnschedulable needs an interner");
    node_unschedulable *p = calloc(1, sizeof *p);
    if (!p) return ms_error_set(err, MS_ENOMEM, "out of memory");
    p->taint.key = ms_intern_cstr(h->in, "node.kubernetes.io/unschedulable");
    p->taint.effect = MS_EFFECT_NO_SCHEDULE;
    if (p->taint.key == MS_STR_NONE) {
        free(p);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    *self = p;
    return MS_OK;
}

static void node_unschedulable_destroy(void *self) { free(self); }

static ms_code node_unschedulable_filter(void *self, ms_cycle *c, const ms_node_info *ni,
                                         ms_status *st) {
    const node_unschedulable *p = self;
    if (!ni->node) return ms_status_set(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE,
                                        "node(s) had unknown conditions");
    if (!ni->node->unschedulable) return MS_SUCCESS;
    const ms_pod *pod = c->pod;
    if (ms_tolerations_tolerate_taint(pod->tolerations, pod->ntolerations, &p->taint))
        return MS_SUCCESS;
    return ms_status_set(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) were unschedulable");
}

const ms_plugin_ops ms_plugin_node_unschedulable = {
    .name = "NodeUnschedulable",
    .events = MS_EV_NODE_ADD | MS_EV_NODE_UNSCHEDULABLE,
    .create = node_unschedulable_create,
    .destroy = node_unschedulable_destroy,
    .filter = node_unschedulable_filter,
    .node_local = true,
};
