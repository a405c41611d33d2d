/* NodeVolumeLimits: upstream's CSI volume limits (CSILimits). Per CSI
 * driver, the volumes a node would have attached with the pod must stay
 * within the driver's limit: the CSINode's drivers[].allocatable.count, or
 * the node's attachable-volumes-csi-<driver> allocatable. A volume is
 * identified as upstream does, so that one volume used by several pods of
 * the node counts once:
 *   - persistentVolumeClaim and ephemeral volumes: the claim's bound PV
 *     (spec.csi driver and volumeHandle; an in-tree source is translated
 *     when the node's CSINode says its plugin is migrated), else the
 *     claim's StorageClass provisioner with "<namespace>-<claim>" as the
 *     handle (the volume provisioning will create);
 *   - inline in-tree volumes CSI migration translates (GCE PD, AWS EBS,
 *     Azure disk and file, Cinder, vSphere, Portworx), under the same
 *     migration condition.
 * A missing claim of the incoming pod makes it unschedulable on every node
 * (UnschedulableAndUnresolvable); one of a pod already on the node is not
 * counted. */
#include <stdio.h>
#include <string.h>

#include "api/storage.h"
#include "backend/volume_store.h"
#include "base/map.h"
#include "builtin.h"

#define MAX_UNIQUE 512

/* Unique volumes: a 64-bit key (hash of driver and handle) and driver. */
typedef struct volume_set {
    uint32_t n;
    uint64_t key[MAX_UNIQUE];
    ms_str driver[MAX_UNIQUE];
} volume_set;

static void set_add(volume_set *s, ms_str driver, uint64_t key) {
    for (uint32_t i = 0; i < s->n; i++)
        if (s->key[i] == key) return;
    if (s->n == MAX_UNIQUE) return;
    s->key[s->n] = key;
    s->driver[s->n++] = driver;
}

static uint64_t volume_key(ms_str driver, char tag, ms_str a, ms_str b) {
    struct {
        ms_str driver, a, b;
        char tag;
    } k;
    memset(&k, 0, sizeof k);
    k.driver = driver, k.a = a, k.b = b, k.tag = tag;
    return ms_hash_bytes(&k, sizeof k);
}

/* upstream's isCSIMigrationOn: GCE PD, AWS EBS, Azure disk and Cinder are
 * migrated wherever a CSINode exists; Portworx only when the CSINode's
 * migrated-plugins annotation names it; the others never. */
static bool migrated(const ms_storage_object *csi_node, uint8_t plugin, const ms_interner *in) {
    if (!csi_node || !plugin) return false;
    switch (plugin) {
    case MS_INTREE_GCE_PD:
    case MS_INTREE_AWS_EBS:
    case MS_INTREE_AZURE_DISK:
    case MS_INTREE_CINDER:
        return true;
    case MS_INTREE_PORTWORX:
        for (uint32_t i = 0; i < csi_node->u.csi_node.nmigrated; i++)
            if (strcmp(ms_str_get(in, csi_node->u.csi_node.migrated[i]), ms_intree_plugin_name(plugin)) == 0)
                return true;
        return false;
    default:
        return false;
    }
}

typedef struct nvl_ctx {
    const ms_handle *h;
    const ms_storage_object *csi_node;
} nvl_ctx;

/* What does not depend on the node, found once per pod: the incoming
 * pod's volumes as a node without CSINode and as one with a CSINode that
 * names no migrated plugin see them (per node only when a Portworx volume
 * makes the annotation matter), and each driver's attachable-volumes-csi-*
 * resource name. */
typedef struct nvl_state {
    bool per_node;                 /* recompute the pod's volumes on each node */
    volume_set plain, migrated;
    ms_str limit_key[MAX_UNIQUE];  /* per migrated.driver[i] (a superset of plain's drivers) */
} nvl_state;

static ms_str intree_driver(const nvl_ctx *x, uint8_t plugin) {
    const char *d = ms_intree_csi_driver(plugin);
    return d ? ms_intern_find(x->h->in, d, strlen(d)) : MS_STR_NONE;
}

/* getCSIDriverInfoFromSC: the provisioner of the claim's class. */
static void from_class(const nvl_ctx *x, const ms_storage_object *claim, volume_set *out) {
    const ms_pvc *pvc = &claim->u.pvc;
    if (pvc->storage_class == MS_STR_NONE) return;
    const ms_storage_object *sc = ms_volume_store_get(x->h->volumes, MS_SK_STORAGE_CLASS, MS_STR_NONE, pvc->storage_class);
    if (!sc || sc->u.sc.provisioner == MS_STR_NONE) return;
    ms_str driver = sc->u.sc.provisioner;
    const char *prov = ms_str_get(x->h->in, driver);
    for (uint8_t p = MS_INTREE_GCE_PD; p <= MS_INTREE_PORTWORX; p++)
        if (strcmp(prov, ms_intree_plugin_name(p)) == 0) {
            if (!migrated(x->csi_node, p, x->h->in)) return;
            driver = intree_driver(x, p);
        }
    if (driver != MS_STR_NONE) set_add(out, driver, volume_key(driver, 'c', claim->meta.namespace_, claim->meta.name));
}

/* getCSIDriverInfo for one claim. */
static void claim_volume(const nvl_ctx *x, const ms_storage_object *claim, volume_set *out) {
    ms_str pv_name = claim->u.pvc.volume_name;
    const ms_storage_object *pvo =
        pv_name == MS_STR_NONE ? NULL : ms_volume_store_get(x->h->volumes, MS_SK_PV, MS_STR_NONE, pv_name);
    if (!pvo) {
        from_class(x, claim, out);
        return;
    }
    const ms_pv *pv = &pvo->u.pv;
    if (pv->plugin && !migrated(x->csi_node, pv->plugin, x->h->in)) return;
    if (pv->csi_driver == MS_STR_NONE || pv->volume_handle == MS_STR_NONE) return;
    set_add(out, pv->csi_driver, volume_key(pv->csi_driver, 'v', pv->volume_handle, 0));
}

/* filterAttachableVolumes. For the incoming pod (`status` set) a missing
 * claim is a rejection; for pods on the node it is skipped. */
static ms_code pod_volumes(const nvl_ctx *x, ms_cycle *c, const ms_pod *pod, volume_set *out, ms_status *status) {
    for (uint32_t i = 0; i < pod->nvolumes; i++) {
        const ms_volume *v = &pod->volumes[i];
        if (v->kind != MS_VOL_PVC && v->kind != MS_VOL_EPHEMERAL) {
            if (v->plugin && v->id != MS_STR_NONE && migrated(x->csi_node, v->plugin, x->h->in)) {
                ms_str driver = intree_driver(x, v->plugin);
                if (driver != MS_STR_NONE) set_add(out, driver, volume_key(driver, 'v', v->id, 0));
            }
            continue;
        }
        const ms_storage_object *claim = ms_volume_store_get(x->h->volumes, MS_SK_PVC, pod->meta.namespace_, v->id);
        if (!claim) {
            if (!status) continue;
            char buf[512];
            const char *ns = ms_str_get(x->h->in, pod->meta.namespace_), *name = ms_str_get(x->h->in, v->id);
            snprintf(buf, sizeof buf, "looking up PVC %s/%s: persistentvolumeclaim \"%s\" not found", ns, name, name);
            const char *msg = ms_arena_strdup(c->arena, buf);
            return ms_status_set(status, MS_UNSCHEDULABLE_AND_UNRESOLVABLE, msg ? msg : "persistentvolumeclaim not found");
        }
        claim_volume(x, claim, out);
    }
    return MS_SUCCESS;
}

/* The driver's limit on this node, or -1 for none: the CSINode's count,
 * else the node's allocatable `key` (attachable-volumes-csi-<driver>). */
static int64_t limit_of(const nvl_ctx *x, const ms_node_info *ni, ms_str driver, ms_str key) {
    for (uint32_t i = 0; x->csi_node && i < x->csi_node->u.csi_node.ndrivers; i++) {
        const ms_csi_node_driver *d = &x->csi_node->u.csi_node.drivers[i];
        if (d->name == driver && d->has_count) return d->count;
    }
    if (key == MS_STR_NONE) return -1;
    for (uint32_t i = 0; i < ni->node->allocatable.nscalar; i++)
        if (ni->node->allocatable.scalar[i].name == key) return ni->node->allocatable.scalar[i].value;
    return -1;
}

static ms_str key_of(const nvl_state *s, ms_str driver) {
    for (uint32_t i = 0; i < s->migrated.n; i++)
        if (s->migrated.driver[i] == driver) return s->limit_key[i];
    return MS_STR_NONE;
}


/* upstream's PreFilter test; *per_node: a Portworx volume (the CSINode's
 * annotation decides) or a missing claim (Filter rejects every node, as
 * upstream's Filter does). */
static bool needs_check(const ms_cycle *c, bool *per_node) {
    const ms_pod *pod = c->pod;
    bool any = false;
    *per_node = false;
    for (uint32_t i = 0; i < pod->nvolumes; i++) {
        const ms_volume *v = &pod->volumes[i];
        bool claim = v->kind == MS_VOL_PVC || v->kind == MS_VOL_EPHEMERAL;
        any |= claim || v->kind == MS_VOL_GCE_PD || v->kind == MS_VOL_AWS_EBS || v->kind == MS_VOL_CSI_MIGRATABLE;
        *per_node |= v->plugin == MS_INTREE_PORTWORX ||
                     (claim && !ms_volume_store_get(c->h->volumes, MS_SK_PVC, pod->meta.namespace_, v->id));
    }
    return any;
}

static ms_code node_volume_limits_pre_filter(void *self, ms_cycle *c, ms_status *st) {
    (void)self;
    bool per_node;
    if (!needs_check(c, &per_node)) return MS_SKIP;
    nvl_state *s = MS_ARENA_NEW(c->arena, nvl_state, 1);
    if (!s) return ms_status_set(st, MS_ERROR, "out of memory");
    /* any CSINode turns migration on for the plugins that only need one */
    static const ms_storage_object any_csi_node = {.kind = MS_SK_CSI_NODE};
    (void)st;
    nvl_ctx plain = {c->h, NULL}, migrated = {c->h, &any_csi_node};
    /* a missing claim is skipped here and rejected by Filter */
    pod_volumes(&plain, c, c->pod, &s->plain, NULL);
    pod_volumes(&migrated, c, c->pod, &s->migrated, NULL);
    s->per_node = per_node;
    for (uint32_t i = 0; i < s->migrated.n; i++) {
        char key[320];
        snprintf(key, sizeof key, "attachable-volumes-csi-%s", ms_str_get(c->h->in, s->migrated.driver[i]));
        s->limit_key[i] = ms_intern_find(c->h->in, key, strlen(key));
    }
    c->state[c->current] = s;
    return MS_SUCCESS;
}

static uint32_t count_driver(const volume_set *s, ms_str driver) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->n; i++) n += s->driver[i] == driver;
    return n;
}

/* Would the node exceed a driver's limit with `fresh` added to what its
 * pods have attached? */
static bool exceeds(const nvl_ctx *x, ms_cycle *c, const nvl_state *s, const ms_node_info *ni,
                    const volume_set *fresh) {
    volume_set attached, added;
    attached.n = added.n = 0;
    for (uint32_t k = 0; k < ni->npods; k++)
        if (ni->pods[k]->nvolumes) pod_volumes(x, c, ni->pods[k], &attached, NULL);
    /* a volume already attached for another pod costs nothing more */
    for (uint32_t i = 0; i < fresh->n; i++) {
        uint32_t j = 0;
        while (j < attached.n && attached.key[j] != fresh->key[i]) j++;
        if (j == attached.n) set_add(&added, fresh->driver[i], fresh->key[i]);
    }
    for (uint32_t i = 0; i < added.n; i++) {
        int64_t limit = limit_of(x, ni, added.driver[i], key_of(s, added.driver[i]));
        if (limit >= 0 && count_driver(&attached, added.driver[i]) + count_driver(&added, added.driver[i]) > limit)
            return true;
    }
    return false;
}

static ms_code node_volume_limits_filter(void *self, ms_cycle *c, const ms_node_info *ni, ms_status *st) {
    (void)self;
    const nvl_state *s = c->state[c->current];
    if (!s) return MS_SUCCESS;
    nvl_ctx x = {c->h, ms_volume_store_get(c->h->volumes, MS_SK_CSI_NODE, MS_STR_NONE, ni->node->meta.name)};
    const volume_set *fresh = x.csi_node ? &s->migrated : &s->plain;
    volume_set here;
    if (s->per_node) {
        here.n = 0;
        ms_code code = pod_volumes(&x, c, c->pod, &here, st);
        if (code != MS_SUCCESS) return code;
        fresh = &here;
    }
    if (!fresh->n) return MS_SUCCESS;
    bool limited = false;
    for (uint32_t i = 0; i < fresh->n && !limited; i++)
        limited = limit_of(&x, ni, fresh->driver[i], key_of(s, fresh->driver[i])) >= 0;
    if (limited && exceeds(&x, c, s, ni, fresh))
        return ms_status_set(st, MS_UNSCHEDULABLE, "node(s) exceed max volume count");
    return MS_SUCCESS;
}

const ms_plugin_ops ms_plugin_node_volume_limits = {
    .name = "NodeVolumeLimits",
    /* upstream's CSILimits.EventsToRegister: CSINode Add, Pod Delete, PVC
     * Add (and VolumeAttachment Delete, which moonsched does not watch);
     * an assumed pod forgotten frees its volumes too. */
    .events = MS_EV_CSI_NODE_ADD | MS_EV_ASSIGNED_POD_DELETE | MS_EV_FORGET | MS_EV_PVC_ADD,
    .pre_filter = node_volume_limits_pre_filter,
    .filter = node_volume_limits_filter,
};
