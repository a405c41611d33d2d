#include "api/delta.h"

static const char *const type_names[] = {"add", "update", "delete", "synced"};
static const char *const kind_names[] = {"Pod", "Node", "Object", "Namespace", "PodDisruptionBudget",
                                         "PersistentVolume", "PersistentVolumeClaim", "StorageClass",
                                         "CSINode", "CSIDriver", "CSIStorageCapacity", "DeviceClass",
                                         "ResourceSlice", "ResourceClaim", "ResourceClaimTemplate", "Service",
                                         "ReplicationController", "ReplicaSet", "StatefulSet"};

const char *ms_delta_type_name(ms_delta_type t) {
    return (unsigned)t < sizeof type_names / sizeof type_names[0] ? type_names[t] : "unknown";
}

const char *ms_object_kind_name(ms_object_kind k) {
    return (unsigned)k < sizeof kind_names / sizeof kind_names[0] ? kind_names[k] : "Object";
}
