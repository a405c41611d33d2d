/* VolumeZone (upstream's volumezone plugin): a pod whose bound PVs carry
 * zone or region labels runs only on nodes in those zones and regions.
 * PreFilter collects the PVs' topology labels (a value "a__b" lists
 * several zones); unbound claims of a WaitForFirstConsumer class are left
 * to VolumeBinding. Filter passes nodes without any topology label, and
 * otherwise requires the node's value (the beta label read through its GA
 * key when the node has only that) to be among the PV's. */
#include <stdio.h>
#include <string.h>

#include "api/storage.h"
#include "backend/volume_store.h"
#include "builtin.h"

#define PLUGIN "VolumeZone"

static const char *const topology_keys[] = {
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
    "failure-domain.beta.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/region",
};
#define NKEYS 4

/* One PV label to honour: its key (index in topology_keys) and value. */
typedef struct vz_topology {
    uint32_t key;
    const char *values;            /* "__"-separated zones */
} vz_topology;

typedef struct vz_state {
    ms_str keys[NKEYS];
    uint32_t n;
    vz_topology *t;
} vz_state;

static const char *say(ms_cycle *c, const char *fmt, const char *a) {
    char buf[512];
    snprintf(buf, sizeof buf, fmt, a);
    const char *s = ms_arena_strdup(c->arena, buf);
    return s ? s : "out of memory";
}

/* upstream's getPVbyPod for one claim: its PV, NULL with MS_SUCCESS when
 * the claim waits for its first consumer. */
static ms_code claim_pv(ms_cycle *c, const ms_volume *v, const ms_storage_object **pv, ms_status *st) {
    const ms_volume_store *vs = c->h->volumes;
    const ms_interner *in = c->h->in;
    const char *name = ms_str_get(in, v->id);
    *pv = NULL;
    const ms_storage_object *o = ms_volume_store_get(vs, MS_SK_PVC, c->pod->meta.namespace_, v->id);
    if (!o)
        return ms_status_set(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE,
                             say(c, "persistentvolumeclaim \"%s\" not found", name));
    const ms_pvc *pvc = &o->u.pvc;
    if (pvc->volume_name == MS_STR_NONE) {
        if (pvc->storage_class == MS_STR_NONE)
            return ms_status_set(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE,
                                 "PersistentVolumeClaim had no pv name and storageClass name");
        const ms_storage_object *sc = ms_volume_store_get(vs, MS_SK_STORAGE_CLASS, MS_STR_NONE, pvc->storage_class);
        if (!sc)
            return ms_status_set(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE,
                                 say(c, "storageclass.storage.k8s.io \"%s\" not found",
                                     ms_str_get(in, pvc->storage_class)));
        if (sc->u.sc.binding_mode == MS_BINDING_WAIT_FOR_FIRST_CONSUMER) return MS_SUCCESS;
        return ms_status_set(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE, "PersistentVolume had no name");
    }
    *pv = ms_volume_store_get(vs, MS_SK_PV, MS_STR_NONE, pvc->volume_name);
    if (!*pv)
        return ms_status_set(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE,
                             say(c, "persistentvolume \"%s\" not found", ms_str_get(in, pvc->volume_name)));
    return MS_SUCCESS;
}

static bool add_topologies(ms_cycle *c, vz_state *s, const ms_storage_object *pv, uint32_t cap) {
    for (uint32_t k = 0; k < NKEYS; k++) {
        if (s->keys[k] == MS_STR_NONE) continue;
        ms_str v = ms_labels_get(&pv->meta.labels, s->keys[k]);
        if (v == MS_STR_NONE) continue;
        if (s->n == cap) return false;
        s->t[s->n++] = (vz_topology){k, ms_str_get(c->h->in, v)};
    }
    return true;
}

static ms_code vz_pre_filter(void *self, ms_cycle *c, ms_status *st) {
    (void)self;
    const ms_pod *pod = c->pod;
    uint32_t nclaims = 0;
    for (uint32_t i = 0; i < pod->nvolumes; i++)
        nclaims += pod->volumes[i].kind == MS_VOL_PVC || pod->volumes[i].kind == MS_VOL_EPHEMERAL;
    if (!nclaims) return MS_SKIP;
    vz_state *s = MS_ARENA_NEW(c->arena, vz_state, 1);
    uint32_t cap = nclaims * NKEYS;
    if (!s || !(s->t = MS_ARENA_NEW(c->arena, vz_topology, cap))) return ms_status_set(st, MS_ERROR, "out of memory");
    for (uint32_t k = 0; k < NKEYS; k++) s->keys[k] = ms_intern_find(c->h->in, topology_keys[k], strlen(topology_keys[k]));
    for (uint32_t i = 0; i < pod->nvolumes; i++) {
        const ms_volume *v = &pod->volumes[i];
        if (v->kind != MS_VOL_PVC && v->kind != MS_VOL_EPHEMERAL) continue;
        const ms_storage_object *pv;
        ms_code code = claim_pv(c, v, &pv, st);
        if (code != MS_SUCCESS) return code;
        if (pv && !add_topologies(c, s, pv, cap)) return ms_status_set(st, MS_ERROR, "out of memory");
    }
    if (!s->n) return MS_SKIP;
    c->state[c->current] = s;
    return MS_SUCCESS;
}

/* LabelZonesToSet: is `zone` one of the "__"-separated values? */
static bool zone_in(const char *values, const char *zone) {
    size_t zl = strlen(zone);
    for (const char *p = values;;) {
        const char *end = strstr(p, "__");
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == zl && memcmp(p, zone, zl) == 0) return true;
        if (!end) return false;
        p = end + 2;
    }
}

static ms_code vz_filter(void *self, ms_cycle *c, const ms_node_info *ni, ms_status *st) {
    (void)self;
    const vz_state *s = c->state[c->current];
    const ms_labels *labels = &ni->node->meta.labels;
    bool constrained = false;
    for (uint32_t k = 0; k < NKEYS && !constrained; k++)
        constrained = s->keys[k] != MS_STR_NONE && ms_labels_has(labels, s->keys[k]);
    if (!constrained) return MS_SUCCESS;
    for (uint32_t i = 0; i < s->n; i++) {
        ms_str v = ms_labels_get(labels, s->keys[s->t[i].key]);
        /* a beta key on the PV may match the node's GA label */
        if (v == MS_STR_NONE && s->t[i].key >= 2 && s->keys[s->t[i].key - 2] != MS_STR_NONE)
            v = ms_labels_get(labels, s->keys[s->t[i].key - 2]);
        if (v == MS_STR_NONE || !zone_in(s->t[i].values, ms_str_get(c->h->in, v)))
            return ms_status_set(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) had no available volume zone");
    }
    return MS_SUCCESS;
}

const ms_plugin_ops ms_plugin_volume_zone = {
    .name = PLUGIN,
    .events = MS_EV_STORAGE_CLASS_ADD | MS_EV_NODE_ADD | MS_EV_NODE_LABEL | MS_EV_NODE_TAINT |
              MS_EV_PVC_ADD | MS_EV_PVC_UPDATE | MS_EV_PV_ADD | MS_EV_PV_UPDATE,
    .pre_filter = vz_pre_filter,
    .filter = vz_filter,
};
