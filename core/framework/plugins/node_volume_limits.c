/* NodeVolumeLimits: upstream's CSI volume limits (CSILimits). Upstream
 * counts, per CSI driver, the volumes a node would attach with the pod and
 * rejects the node when a driver's limit (CSINode allocatable count, or the
 * node's attachable-volumes-csi-* allocatable) would be exceeded. Every
 * volume it counts is found through storage objects:
 *   - persistentVolumeClaim and ephemeral volumes: the PVC, then its bound
 *     PV (CSI source or in-tree source translated by CSI migration), else
 *     its StorageClass's provisioner;
 *   - in-tree inline volumes CSI migration can translate (GCE PD, AWS EBS,
 *     Azure disk, Cinder, ...): only when the node's CSINode says the
 *     plugin is migrated; without a CSINode they count nothing.
 * The scheduler does not watch PVCs, PVs, StorageClasses or CSINodes yet,
 * so there is nothing to count: Filter admits every node. The plugin is
 * registered so that the default profile is upstream's and PreFilter skips
 * the same pods upstream skips. Not done: the limit check itself, and
 * upstream's rejection of a pod whose claim does not exist
 * (UnschedulableAndUnresolvable). */
#include "builtin.h"

/* upstream: Skip unless the pod has a claim, a generic ephemeral volume or
 * a migratable inline volume. */
static ms_code node_volume_limits_pre_filter(void *self, ms_cycle *c, ms_status *st) {
    (void)self;
    (void)st;
    const ms_pod *pod = c->pod;
    for (uint32_t i = 0; i < pod->nvolumes; i++)
        switch (pod->volumes[i].kind) {
        case MS_VOL_PVC:
        case MS_VOL_EPHEMERAL:
        case MS_VOL_GCE_PD:
        case MS_VOL_AWS_EBS:
        case MS_VOL_CSI_MIGRATABLE:
            return MS_SUCCESS;
        default:
            break;
        }
    return MS_SKIP;
}

/* Without storage objects no volume resolves to a CSI driver, so no driver
 * count can exceed its limit. */
static ms_code node_volume_limits_filter(void *self, ms_cycle *c, const ms_node_info *ni,
                                         ms_status *st) {
    (void)self;
    (void)c;
    (void)ni;
    (void)st;
    return MS_SUCCESS;
}

const ms_plugin_ops ms_plugin_node_volume_limits = {
    .name = "NodeVolumeLimits",
    /* Attachments free up when a pod leaves; a new node has none. */
    .events = MS_EV_NODE_ADD | MS_EV_ASSIGNED_POD_DELETE | MS_EV_FORGET,
    .pre_filter = node_volume_limits_pre_filter,
    .filter = node_volume_limits_filter,
};
