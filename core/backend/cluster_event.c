#include "moonsched/cluster_event.h"

const char *ms_event_name(ms_event_mask ev) {
    switch (ev) {
    case MS_EV_NODE_ADD: return "NodeAdd";
    case MS_EV_NODE_DELETE: return "NodeDelete";
    case MS_EV_NODE_ALLOCATABLE: return "NodeAllocatableChange";
    case MS_EV_NODE_LABEL: return "NodeLabelChange";
    case MS_EV_NODE_TAINT: return "NodeTaintChange";
    case MS_EV_NODE_CONDITION: return "NodeConditionChange";
    case MS_EV_NODE_UNSCHEDULABLE: return "NodeSpecUnschedulableChange";
    case MS_EV_NODE_OTHER: return "NodeChange";
    case MS_EV_ASSIGNED_POD_ADD: return "AssignedPodAdd";
    case MS_EV_ASSIGNED_POD_UPDATE: return "AssignedPodUpdate";
    case MS_EV_ASSIGNED_POD_DELETE: return "AssignedPodDelete";
    case MS_EV_UNSCHEDULED_POD_UPDATE: return "UnscheduledPodUpdate";
    case MS_EV_NAMESPACE: return "NamespaceChange";
    case MS_EV_POLICY_RELOAD: return "PolicyReload";
    case MS_EV_FORGET: return "AssumedPodForget";
    default: return "Unknown";
    }
}
