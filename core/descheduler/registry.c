/* The descheduler's strategies by name (upstream's pluginregistry). */
#include <string.h>

#include "base/suggest.h"
#include "descheduler/plugin.h"

static const ms_desched_plugin_def *const plugins[] = {
    &ms_desched_remove_pods_violating_node_taints,
    &ms_desched_remove_pods_violating_node_affinity,
    &ms_desched_pod_life_time,
    &ms_desched_remove_failed_pods,
    &ms_desched_remove_pods_having_too_many_restarts,
    &ms_desched_remove_pods_violating_inter_pod_anti_affinity,
    &ms_desched_remove_duplicates,
    &ms_desched_remove_pods_violating_topology_spread_constraint,
    &ms_desched_low_node_utilization,
    &ms_desched_high_node_utilization,
};

const ms_desched_plugin_def *ms_desched_plugin_find(const char *name) {
    for (size_t i = 0; i < sizeof plugins / sizeof plugins[0]; i++)
        if (strcmp(plugins[i]->name, name) == 0) return plugins[i];
    return NULL;
}

const char *ms_desched_plugin_suggest(const char *name) {
    const char *names[sizeof plugins / sizeof plugins[0] + 1];
    size_t n = 0;
    for (size_t i = 0; i < sizeof plugins / sizeof plugins[0]; i++) names[n++] = plugins[i]->name;
    names[n++] = "DefaultEvictor";
    return ms_suggest(name, names, n);
}
