/* The built-in plugins' ops, one definition per file in core/framework/plugins. The
 * registry lists them; tests call them directly. */
#ifndef MOONSCHED_PLUGINS_BUILTIN_H
#define MOONSCHED_PLUGINS_BUILTIN_H

#include "moonsched/plugin.h"

extern const ms_plugin_ops ms_plugin_scheduling_gates;
extern const ms_plugin_ops ms_plugin_priority_sort;
extern const ms_plugin_ops ms_plugin_node_name;
extern const ms_plugin_ops ms_plugin_node_unschedulable;
extern const ms_plugin_ops ms_plugin_node_ports;
extern const ms_plugin_ops ms_plugin_taint_toleration;
extern const ms_plugin_ops ms_plugin_default_binder;
extern const ms_plugin_ops ms_plugin_node_resources_fit;
extern const ms_plugin_ops ms_plugin_node_resources_balanced_allocation;
extern const ms_plugin_ops ms_plugin_node_affinity;
extern const ms_plugin_ops ms_plugin_inter_pod_affinity;
extern const ms_plugin_ops ms_plugin_image_locality;
extern const ms_plugin_ops ms_plugin_dynamic_resources;
extern const ms_plugin_ops ms_plugin_default_preemption;
extern const ms_plugin_ops ms_plugin_volume_restrictions;
extern const ms_plugin_ops ms_plugin_node_volume_limits;
extern const ms_plugin_ops ms_plugin_volume_binding;
extern const ms_plugin_ops ms_plugin_volume_zone;
extern const ms_plugin_ops ms_plugin_pod_topology_spread;

#endif
