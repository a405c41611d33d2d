/* Cluster events that can make an unschedulable pod schedulable. Plugins
 * declare the events they care about; the queue moves a pod back only on an
 * event one of its rejecting plugins cares about (upstream's
 * EventsToRegister / QueueingHint idea). */
#ifndef MOONSCHED_CLUSTER_EVENT_H
#define MOONSCHED_CLUSTER_EVENT_H

#include <stdint.h>

typedef uint32_t ms_event_mask;

enum {
    MS_EV_NODE_ADD             = 1u << 0,
    MS_EV_NODE_DELETE          = 1u << 1,
    MS_EV_NODE_ALLOCATABLE     = 1u << 2,   /* allocatable changed */
    MS_EV_NODE_LABEL           = 1u << 3,
    MS_EV_NODE_TAINT           = 1u << 4,
    MS_EV_NODE_CONDITION       = 1u << 5,
    MS_EV_NODE_UNSCHEDULABLE   = 1u << 6,   /* spec.unschedulable changed */
    MS_EV_NODE_OTHER           = 1u << 7,   /* e.g. images */
    MS_EV_ASSIGNED_POD_ADD     = 1u << 8,
    MS_EV_ASSIGNED_POD_UPDATE  = 1u << 9,
    MS_EV_ASSIGNED_POD_DELETE  = 1u << 10,  /* also: a pod turned terminal */
    MS_EV_UNSCHEDULED_POD_UPDATE = 1u << 11, /* the pending pod itself changed */
    MS_EV_NAMESPACE            = 1u << 12,
    MS_EV_POLICY_RELOAD        = 1u << 13,  /* a policy was replaced */
    MS_EV_FORGET               = 1u << 14,  /* an assumed pod was forgotten */
    /* Storage objects (upstream's PersistentVolume, PersistentVolumeClaim,
     * StorageClass, CSINode, CSIDriver, CSIStorageCapacity resources). */
    MS_EV_PV_ADD               = 1u << 15,
    MS_EV_PV_UPDATE            = 1u << 16,
    MS_EV_PVC_ADD              = 1u << 17,
    MS_EV_PVC_UPDATE           = 1u << 18,
    MS_EV_STORAGE_CLASS_ADD    = 1u << 19,
    MS_EV_STORAGE_CLASS_UPDATE = 1u << 20,
    MS_EV_CSI_NODE_ADD         = 1u << 21,
    MS_EV_CSI_NODE_UPDATE      = 1u << 22,
    MS_EV_CSI_DRIVER_ADD       = 1u << 23,
    MS_EV_CSI_DRIVER_UPDATE    = 1u << 24,
    MS_EV_CSI_CAPACITY_ADD     = 1u << 25,
    MS_EV_CSI_CAPACITY_UPDATE  = 1u << 26,
    MS_EV_STORAGE_DELETE       = 1u << 27,  /* any of the six deleted */
    /* resource.k8s.io objects added or updated (DynamicResources registers
     * no deletions, as upstream) */
    MS_EV_RESOURCE_CLAIM       = 1u << 28,
    MS_EV_RESOURCE_SLICE       = 1u << 29,
    MS_EV_DEVICE_CLASS         = 1u << 30,
    MS_EV_ALL                  = 0xffffffffu,
};

#endif
