/* VolumeRestrictions: inline volumes that a node can attach for one pod
 * only. Two pods conflict on a node when they use
 *   - the same GCE persistent disk, unless both mount it read-only;
 *   - the same AWS EBS volume;
 *   - the same RBD image (same pool and image, at least one monitor in
 *     common), unless both mount it read-only;
 *   - the same ISCSI IQN, unless both mount it read-only.
 * And a claim with the ReadWriteOncePod access mode is used by one pod in
 * the whole cluster: while any pod (assumed ones included) uses it, every
 * node rejects the pod. A claim of the pod that does not exist makes it
 * unschedulable (upstream reads every claim here). In a dry run (victims
 * removed, nominated pods added) the count of claims in use follows the
 * working copy's pods, as upstream's AddPod/RemovePod make it: the pod
 * holding the claim can be preempted for one that wants it. */
#include <stdio.h>
#include <string.h>

#include "api/storage.h"
#include "backend/snapshot.h"
#include "backend/volume_store.h"
#include "builtin.h"
#include "moonsched/nodeinfo.h"

typedef struct vr_state {
    bool disks;                    /* the pod has a volume of the four kinds */
    uint32_t conflicting;          /* its ReadWriteOncePod claims in use */
    const ms_str *rwop;            /* its ReadWriteOncePod claims (the pod's namespace) */
    uint32_t nrwop;
} vr_state;

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

/* Is claim `name` of namespace `ns` used by a pod of the snapshot? */
static bool claim_in_use(const ms_snapshot *snap, ms_str ns, ms_str name) {
    for (uint32_t n = 0; n < snap->nnodes; n++) {
        const ms_node_info *ni = snap->nodes[n];
        for (uint32_t k = 0; k < ni->npods; k++) {
            const ms_pod *p = ni->pods[k];
            if (p->meta.namespace_ != ns) continue;
            for (uint32_t i = 0; i < p->nvolumes; i++)
                if (p->volumes[i].kind == MS_VOL_PVC && p->volumes[i].id == name)
                    return true;
        }
    }
    return false;
}

/* upstream's readWriteOncePodPVCsForPod and calPreFilterState: the
 * claims into rwop (room for the pod's volumes). */
static ms_code count_rwop(ms_cycle *c, uint32_t *conflicting, ms_str *rwop, uint32_t *nrwop, ms_status *st) {
    const ms_pod *pod = c->pod;
    *conflicting = *nrwop = 0;
    for (uint32_t i = 0; i < pod->nvolumes; i++) {
        const ms_volume *v = &pod->volumes[i];
        if (v->kind != MS_VOL_PVC) continue;
        const ms_storage_object *claim = ms_volume_store_get(c->h->volumes, MS_SK_PVC, pod->meta.namespace_, v->id);
        if (!claim) {
            char buf[400];
            snprintf(buf, sizeof buf, "persistentvolumeclaim \"%s\" not found", ms_str_get(c->h->in, v->id));
            const char *msg = ms_arena_strdup(c->arena, buf);
            return ms_status_set(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE, msg ? msg : "persistentvolumeclaim not found");
        }
        if (!(claim->u.pvc.access_modes & MS_ACCESS_RWOP)) continue;
        rwop[(*nrwop)++] = v->id;
        if (claim_in_use(c->snap, pod->meta.namespace_, v->id)) (*conflicting)++;
    }
    return MS_SUCCESS;
}

/* Skip when the pod has no volume of the four kinds and no
 * ReadWriteOncePod claim in use. */
static ms_code volume_restrictions_pre_filter(void *self, ms_cycle *c, ms_status *st) {
    (void)self;
    const ms_pod *pod = c->pod;
    if (!pod->nvolumes) return MS_SKIP;
    bool disks = false;
    for (uint32_t i = 0; i < pod->nvolumes; i++) disks |= conflict_source(pod->volumes[i].kind);
    uint32_t conflicting = 0, nrwop = 0;
    ms_str *rwop = MS_ARENA_NEW(c->arena, ms_str, pod->nvolumes);
    if (!rwop) return ms_status_set(st, MS_ERROR, "out of memory");
    ms_code code = count_rwop(c, &conflicting, rwop, &nrwop, st);
    if (code != MS_SUCCESS) return code;
    if (!disks && !conflicting) return MS_SKIP;
    vr_state *s = MS_ARENA_NEW(c->arena, vr_state, 1);
    if (!s) return ms_status_set(st, MS_ERROR, "out of memory");
    *s = (vr_state){disks, conflicting, rwop, nrwop};
    c->state[c->current] = s;
    return MS_SUCCESS;
}

/* How many of the pod's ReadWriteOncePod claims another pod uses
 * (upstream's conflictingPVCRefCountForPod, which also compares the
 * namespace here). */
static int64_t rwop_uses(const vr_state *s, const ms_pod *pod, const ms_pod *other) {
    int64_t n = 0;
    if (other->meta.namespace_ != pod->meta.namespace_) return 0;
    for (uint32_t i = 0; i < other->nvolumes; i++) {
        if (other->volumes[i].kind != MS_VOL_PVC) continue;
        for (uint32_t k = 0; k < s->nrwop; k++) n += other->volumes[i].id == s->rwop[k];
    }
    return n;
}

/* The claims in use as a working copy of a node sees them: PreFilter's
 * count, less the uses of the pods the copy lacks, plus those of the pods
 * it adds (upstream's RemovePod/AddPod on a cloned state). */
static int64_t rwop_conflicting(const ms_cycle *c, const vr_state *s, const ms_node_info *ni) {
    int64_t n = s->conflicting;
    const ms_node_info *base = c->snap ? ms_snapshot_get(c->snap, ni->name) : NULL;
    if (!base || base == ni) return n;
    if (base->npods == ni->npods &&
        (ni->npods == 0 || memcmp(base->pod_uids, ni->pod_uids, ni->npods * sizeof *ni->pod_uids) == 0))
        return n;
    for (uint32_t k = 0; k < base->npods; k++)
        if (ms_node_info_find_pod(ni, base->pod_uids[k]) < 0) n -= rwop_uses(s, c->pod, base->pods[k]);
    for (uint32_t k = 0; k < ni->npods; k++)
        if (ms_node_info_find_pod(base, ni->pod_uids[k]) < 0) n += rwop_uses(s, c->pod, ni->pods[k]);
    return n;
}

static ms_code volume_restrictions_filter(void *self, ms_cycle *c, const ms_node_info *ni,
                                          ms_status *st) {
    (void)self;
    /* without PreFilter's state: the disks only */
    const vr_state *s = c->state[c->current];
    bool disks = !s || s->disks;
    for (uint32_t k = 0; disks && k < ni->npods; k++) {
        const ms_pod *other = ni->pods[k];
        if (other->nvolumes && pod_conflicts(c->pod, other))
            return ms_status_set(st, MS_UNSCHEDULABLE, "node(s) had no available disk");
    }
    int64_t conflicting = !s ? 0 : s->nrwop && (ni->scratch || ni == c->h->scratch) ? rwop_conflicting(c, s, ni)
                                                                                    : s->conflicting;
    if (conflicting > 0)
        return ms_status_set(st, MS_UNSCHEDULABLE,
                             "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode");
    return MS_SUCCESS;
}

const ms_plugin_ops ms_plugin_volume_restrictions = {
    .name = "VolumeRestrictions",
    /* A disk or a claim is released when the pod using it leaves (or an
     * assumed pod is forgotten); a new node has no disk in use; a claim
     * created or changed may exist now or have lost ReadWriteOncePod
     * (upstream: Pod Delete, Node Add, PVC Add and Update). */
    .events = MS_EV_NODE_ADD | MS_EV_ASSIGNED_POD_DELETE | MS_EV_FORGET | MS_EV_PVC_ADD | MS_EV_PVC_UPDATE,
    .pre_filter = volume_restrictions_pre_filter,
    .filter = volume_restrictions_filter,
};
