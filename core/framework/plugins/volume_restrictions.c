/* VolumeRestrictions: inline volumes that a node can attach for one pod
 * only. Two pods conflict on a node when they use
 *   - the same GCE persistent disk, unless both mount it read-only;
 *   - the same AWS EBS volume;
 *   - the same RBD image (same pool and image, at least one monitor in
 *     common), unless both mount it read-only;
 *   - the same ISCSI IQN, unless both mount it read-only.
 * Upstream's ReadWriteOncePod check needs PersistentVolumeClaim objects,
 * which the scheduler does not watch yet: it is not done here. */
#include "builtin.h"

static bool conflict_source(uint8_t kind) {
    return kind == MS_VOL_GCE_PD || kind == MS_VOL_AWS_EBS || kind == MS_VOL_RBD ||
           kind == MS_VOL_ISCSI;
}

static bool monitors_overlap(const ms_volume *a, const ms_volume *b) {
    for (uint32_t i = 0; i < a->nmonitors; i++)
        for (uint32_t j = 0; j < b->nmonitors; j++)
            if (a->monitors[i] == b->monitors[j]) return true;
    return false;
}

/* upstream's isVolumeConflict for one volume of the incoming pod against
 * one volume of a pod on the node. Identities are interned: an empty or
 * absent field is MS_STR_NONE on both sides, and equal as upstream's "" == "". */
static bool volumes_conflict(const ms_volume *v, const ms_volume *e) {
    if (v->kind != e->kind) return false;
    switch (v->kind) {
    case MS_VOL_GCE_PD:
    case MS_VOL_ISCSI:
        return v->id == e->id && !(v->read_only && e->read_only);
    case MS_VOL_AWS_EBS:
        return v->id == e->id;
    case MS_VOL_RBD:
        return v->pool == e->pool && v->id == e->id && !(v->read_only && e->read_only) &&
               monitors_overlap(v, e);
    default:
        return false;
    }
}

static bool pod_conflicts(const ms_pod *pod, const ms_pod *other) {
    for (uint32_t i = 0; i < pod->nvolumes; i++) {
        const ms_volume *v = &pod->volumes[i];
        if (!conflict_source(v->kind)) continue;
        for (uint32_t j = 0; j < other->nvolumes; j++)
            if (volumes_conflict(v, &other->volumes[j])) return true;
    }
    return false;
}

/* Skip when the pod has no volume of the four kinds: then Filter has nothing
 * to compare (upstream also skips unless a ReadWriteOncePod claim is in use,
 * which is not checked here). */
static ms_code volume_restrictions_pre_filter(void *self, ms_cycle *c, ms_status *st) {
    (void)self;
    (void)st;
    const ms_pod *pod = c->pod;
    for (uint32_t i = 0; i < pod->nvolumes; i++)
        if (conflict_source(pod->volumes[i].kind)) return MS_SUCCESS;
    return MS_SKIP;
}

static ms_code volume_restrictions_filter(void *self, ms_cycle *c, const ms_node_info *ni,
                                          ms_status *st) {
    (void)self;
    for (uint32_t k = 0; k < ni->npods; k++) {
        const ms_pod *other = ni->pods[k];
        if (other->nvolumes && pod_conflicts(c->pod, other))
            return ms_status_set(st, MS_UNSCHEDULABLE, "node(s) had no available disk");
    }
    return MS_SUCCESS;
}

const ms_plugin_ops ms_plugin_volume_restrictions = {
    .name = "VolumeRestrictions",
    /* A disk is released when the pod using it leaves (or an assumed pod is
     * forgotten); a new node has none in use. spec.volumes is immutable, so
     * pod updates do not help. */
    .events = MS_EV_NODE_ADD | MS_EV_ASSIGNED_POD_DELETE | MS_EV_FORGET,
    .pre_filter = volume_restrictions_pre_filter,
    .filter = volume_restrictions_filter,
};
