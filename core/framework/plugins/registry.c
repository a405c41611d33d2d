/* The in-tree plugins by name: what a profile's configuration can enable. */
#include <string.h>

#include "builtin.h"

static const ms_plugin_ops *const builtins[] = {
    &ms_plugin_scheduling_gates,
    &ms_plugin_priority_sort,
    &ms_plugin_node_name,
    &ms_plugin_node_unschedulable,
    &ms_plugin_node_ports,
    &ms_plugin_taint_toleration,
    &ms_plugin_node_affinity,
    &ms_plugin_node_resources_fit,
    &ms_plugin_volume_restrictions,
    &ms_plugin_node_volume_limits,
    &ms_plugin_volume_binding,
    &ms_plugin_volume_zone,
    &ms_plugin_pod_topology_spread,
    &ms_plugin_node_resources_balanced_allocation,
    &ms_plugin_inter_pod_affinity,
    &ms_plugin_image_locality,
    &ms_plugin_dynamic_resources,
    &ms_plugin_default_preemption,
    &ms_plugin_default_binder,
};

#define NBUILTINS (sizeof builtins / sizeof builtins[0])

const ms_plugin_ops *ms_plugin_lookup(const char *name) {
    for (size_t i = 0; i < NBUILTINS; i++)
        if (strcmp(builtins[i]->name, name) == 0) return builtins[i];
    return NULL;
}

const ms_plugin_ops *ms_plugin_at(uint32_t i) { return i < NBUILTINS ? builtins[i] : NULL; }

void ms_default_normalize_score(int64_t max_priority, bool reverse, int64_t *scores, uint32_t n) {
    int64_t max = 0;
    for (uint32_t i = 0; i < n; i++)
        if (scores[i] > max) max = scores[i];
    if (max == 0) {
        if (reverse)
            for (uint32_t i = 0; i < n; i++) scores[i] = max_priority;
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        int64_t s = max_priority * scores[i] / max;
        scores[i] = reverse ? max_priority - s : s;
    }
}
