/* VolumeBinding's matching (upstream's volumebinding/binder.go and the PV
 * controller's FindMatchingVolume): for one node, does every bound claim's
 * PV allow it, does every WaitForFirstConsumer claim find the smallest
 * available PV that fits there, or else can its class provision there
 * (allowed topologies, CSIStorageCapacity)? And after the writes, are the
 * claims bound (checkBindings)?
 *
 * What does not depend on the node is done once per pod
 * (ms_vb_prepare_claim): the PVs of the claim's class that pass class,
 * claimRef, capacity, volume mode, phase, selector and access modes. Their
 * node affinity is left for the node; a PV whose affinity is one `key In
 * (value)` (a local volume's hostname) goes into a hash table under that
 * pair, so that a node looks up its own PVs: 5000 local PVs cost a few
 * compares per node. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "volume_binding.h"

#define NO_PROVISIONER "kubernetes.io/no-provisioner"

bool ms_vb_bound_to_claim(const ms_pv *pv, const ms_storage_object *claim) {
    if (!pv->has_claim_ref || pv->claim_name != claim->meta.name ||
        pv->claim_namespace != claim->meta.namespace_)
        return false;
    return !pv->claim_uid || !*pv->claim_uid || strcmp(pv->claim_uid, claim->meta.uid) == 0;
}

/* The (key, value) bucket of a single `key In (value)` affinity; 0 when
 * the affinity is anything else or the key is not (or cannot be) one of
 * the claim's bucket keys. */
static uint64_t bucket_of(const ms_pv *pv, ms_vb_claim *cl) {
    if (!pv->has_node_affinity || pv->node_affinity.n != 1) return 0;
    const ms_node_selector_term *t = &pv->node_affinity.terms[0];
    if (t->invalid || t->nexpr != 1 || t->nfields != 0) return 0;
    const ms_requirement *r = &t->expr[0];
    if (r->op != MS_OP_IN || r->nvalues != 1) return 0;
    uint32_t k = 0;
    while (k < cl->nkeys && cl->keys[k] != r->key) k++;
    if (k == cl->nkeys) {
        if (k == MS_VB_MAX_KEYS) return 0;
        cl->keys[cl->nkeys++] = r->key;
    }
    return (uint64_t)r->key << 32 | r->values[0];
}

static uint32_t slot_of(uint64_t bucket, uint32_t mask) {
    return (uint32_t)((bucket * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

/* Chains the bucketed candidates (from ngeneral on) by bucket in a table
 * of at least twice their number of slots. */
static bool index_buckets(ms_vb_claim *cl, ms_arena *a) {
    uint32_t n = cl->ncands - cl->ngeneral, size = 4;
    while (size < 2 * n) size *= 2;
    if (!(cl->slots = MS_ARENA_NEW(a, uint32_t, size))) return false;
    cl->mask = size - 1;
    for (uint32_t i = cl->ngeneral; i < cl->ncands; i++) {
        uint32_t at = slot_of(cl->cands[i].bucket, cl->mask);
        while (cl->slots[at] && cl->cands[cl->slots[at] - 1].bucket != cl->cands[i].bucket) at = (at + 1) & cl->mask;
        cl->cands[i].next = cl->slots[at] ? cl->slots[at] - 1 : UINT32_MAX;
        cl->slots[at] = i + 1;
    }
    return true;
}

/* FindMatchingVolume's checks that do not depend on the node. */
static bool pv_fits_claim(const ms_storage_object *pvo, const ms_storage_object *claim,
                          const ms_interner *in) {
    const ms_pv *pv = &pvo->u.pv;
    const ms_pvc *pvc = &claim->u.pvc;
    return pv->phase == MS_PV_AVAILABLE &&
           (!pvc->has_selector || ms_label_selector_matches(&pvc->selector, &pvo->meta.labels, in)) &&
           ms_access_modes_contain(pv->access_modes, pvc->access_modes);
}

bool ms_vb_prepare_claim(ms_vb_claim *cl, const ms_volume_store *vs, const ms_interner *in,
                         ms_arena *a) {
    const ms_storage_object *claim = cl->pvc;
    const ms_pvc *pvc = &claim->u.pvc;
    uint32_t n = ms_volume_store_class_pvs(vs, pvc->storage_class, NULL, 0);
    cl->ncands = cl->ngeneral = cl->nkeys = cl->mask = 0;
    cl->slots = NULL;
    cl->prebound = NULL;
    if (!n) return true;
    const ms_storage_object **pvs = MS_ARENA_NEW(a, const ms_storage_object *, n);
    if (!pvs || !(cl->cands = MS_ARENA_NEW(a, ms_vb_candidate, n))) return false;
    ms_volume_store_class_pvs(vs, pvc->storage_class, pvs, n);
    /* bucketed candidates from the end, general ones from the start */
    uint32_t end = n;
    for (uint32_t i = 0; i < n; i++) {
        const ms_storage_object *pvo = pvs[i];
        const ms_pv *pv = &pvo->u.pv;
        bool mine = ms_vb_bound_to_claim(pv, claim);
        if ((pv->has_claim_ref && !mine) || pv->capacity < pvc->request ||
            pv->volume_mode != pvc->volume_mode || pvo->meta.deletion != 0)
            continue;
        if (mine) {
            cl->prebound = pvo;
            continue;
        }
        if (!pv_fits_claim(pvo, claim, in)) continue;
        uint64_t bucket = bucket_of(pv, cl);
        if (bucket) cl->cands[--end] = (ms_vb_candidate){bucket, pvo, UINT32_MAX};
        else cl->cands[cl->ngeneral++] = (ms_vb_candidate){0, pvo, UINT32_MAX};
    }
    /* close the gap between the two groups */
    uint32_t nbucketed = n - end;
    memmove(cl->cands + cl->ngeneral, cl->cands + end, nbucketed * sizeof *cl->cands);
    cl->ncands = cl->ngeneral + nbucketed;
    return index_buckets(cl, a);
}

/* ---- one node ---- */

static bool taken(const ms_storage_object *pv, const ms_storage_object *const *chosen, uint32_t n) {
    for (uint32_t i = 0; i < n; i++)
        if (chosen[i] == pv) return true;
    return false;
}

/* The smaller of two PVs; equal sizes by name, so that the choice does
 * not depend on the store's order. */
static const ms_storage_object *smaller(const ms_storage_object *a, const ms_storage_object *b) {
    if (!a) return b;
    if (!b) return a;
    if (b->u.pv.capacity != a->u.pv.capacity) return b->u.pv.capacity < a->u.pv.capacity ? b : a;
    return b->meta.name < a->meta.name ? b : a;
}

/* The smallest candidate of `bucket` not already chosen. */
static const ms_storage_object *in_bucket(const ms_vb_claim *cl, uint64_t bucket,
                                          const ms_storage_object *const *chosen, uint32_t nchosen) {
    if (!cl->slots) return NULL;
    uint32_t at = slot_of(bucket, cl->mask);
    while (cl->slots[at] && cl->cands[cl->slots[at] - 1].bucket != bucket) at = (at + 1) & cl->mask;
    const ms_storage_object *best = NULL;
    for (uint32_t i = cl->slots[at] ? cl->slots[at] - 1 : UINT32_MAX; i != UINT32_MAX; i = cl->cands[i].next)
        if (!taken(cl->cands[i].pv, chosen, nchosen)) best = smaller(best, cl->cands[i].pv);
    return best;
}

/* FindMatchingVolume on `node`: the claim's own PV when one names it
 * (nothing when its affinity refuses the node), else the smallest fit. */
static const ms_storage_object *match(const ms_vb_claim *cl, const ms_node *node, const ms_interner *in,
                                      const ms_storage_object *const *chosen, uint32_t nchosen) {
    if (cl->prebound && !taken(cl->prebound, chosen, nchosen))
        return ms_pv_matches_node(&cl->prebound->u.pv, &node->meta.labels, node->meta.name, in)
                   ? cl->prebound : NULL;
    const ms_storage_object *best = NULL;
    for (uint32_t i = 0; i < cl->ngeneral; i++) {
        const ms_storage_object *pv = cl->cands[i].pv;
        if (!taken(pv, chosen, nchosen) &&
            ms_pv_matches_node(&pv->u.pv, &node->meta.labels, node->meta.name, in))
            best = smaller(best, pv);
    }
    for (uint32_t k = 0; k < cl->nkeys; k++) {
        ms_str v = ms_labels_get(&node->meta.labels, cl->keys[k]);
        if (v != MS_STR_NONE) best = smaller(best, in_bucket(cl, (uint64_t)cl->keys[k] << 32 | v, chosen, nchosen));
    }
    return best;
}

/* hasEnoughCapacity: only for CSI drivers that publish capacity. */
static bool enough_capacity(const ms_vb_claim *cl, const ms_volume_store *vs, const ms_interner *in,
                            const ms_node *node) {
    const ms_storage_class *sc = &cl->sc->u.sc;
    int64_t want = cl->pvc->u.pvc.request;
    if (want <= 0) return true;
    const ms_storage_object *drv = ms_volume_store_get(vs, MS_SK_CSI_DRIVER, MS_STR_NONE, sc->provisioner);
    if (!drv || !drv->u.csi_driver.storage_capacity) return true;
    const ms_storage_object *o;
    for (size_t it = 0; (o = ms_volume_store_next(vs, MS_SK_CSI_CAPACITY, &it));) {
        const ms_csi_capacity *cap = &o->u.capacity;
        bool has_limit = cap->has_max_volume_size || cap->has_capacity;
        int64_t limit = cap->has_max_volume_size ? cap->max_volume_size : cap->capacity;
        if (cap->storage_class == cl->sc->meta.name && has_limit && limit >= want &&
            ms_label_selector_matches(&cap->node_topology, &node->meta.labels, in))
            return true;
    }
    return false;
}

/* checkVolumeProvisions for one claim: 0, MS_VB_BIND_CONFLICT or
 * MS_VB_NOT_ENOUGH_SPACE. */
static uint32_t provision(const ms_vb_claim *cl, const ms_volume_store *vs, const ms_interner *in,
                          const ms_node *node) {
    const ms_storage_class *sc = &cl->sc->u.sc;
    const char *prov = ms_str_get(in, sc->provisioner);
    if (sc->provisioner == MS_STR_NONE || strcmp(prov, NO_PROVISIONER) == 0) return MS_VB_BIND_CONFLICT;
    if (sc->has_allowed_topologies &&
        !ms_node_selector_matches(&sc->allowed_topologies, &node->meta.labels, node->meta.name, in))
        return MS_VB_BIND_CONFLICT;
    return enough_capacity(cl, vs, in, node) ? 0 : MS_VB_NOT_ENOUGH_SPACE;
}

static uint32_t check_bound(const ms_vb_state *st, const ms_node *node, const ms_interner *in) {
    for (uint32_t i = 0; i < st->nbound; i++) {
        const ms_storage_object *pv = st->bound_pvs[i];
        if (!pv) return MS_VB_PV_NOT_EXIST;
        if (!ms_pv_matches_node(&pv->u.pv, &node->meta.labels, node->meta.name, in)) return MS_VB_NODE_CONFLICT;
    }
    return 0;
}

static void pick(ms_vb_state *out, const ms_storage_object *claim, const ms_storage_object *pv) {
    if (out)
        out->picks[out->npicks++] = (ms_vb_pick){claim->meta.namespace_, claim->meta.name,
                                                 pv ? pv->meta.name : MS_STR_NONE, 0, false};
}

uint32_t ms_vb_find(const ms_vb_state *st, const ms_volume_store *vs, const ms_interner *in,
                    const ms_node_info *ni, ms_arena *a, ms_vb_state *out) {
    const ms_node *node = ni->node;
    uint32_t reasons = check_bound(st, node, in);
    uint32_t n = st->nunbound;
    if (!n) return reasons;
    /* claims that already have a selected node are provisioned there only */
    for (uint32_t i = 0; i < n; i++) {
        ms_str sel = st->unbound[i].pvc->u.pvc.selected_node;
        if (sel != MS_STR_NONE && sel != node->meta.name) return reasons | MS_VB_BIND_CONFLICT;
    }
    const ms_storage_object *chosen[n];
    const ms_vb_claim *to_provision[n];
    uint32_t nchosen = 0, nprov = 0;
    if (out && !(out->picks = MS_ARENA_NEW(a, ms_vb_pick, n))) return reasons | MS_VB_BIND_CONFLICT;
    if (out) out->npicks = 0;
    for (uint32_t i = 0; i < n; i++)
        if (st->unbound[i].pvc->u.pvc.selected_node != MS_STR_NONE) to_provision[nprov++] = &st->unbound[i];
    for (uint32_t i = 0; i < n; i++) {
        const ms_vb_claim *cl = &st->unbound[i];
        if (cl->pvc->u.pvc.selected_node != MS_STR_NONE) continue;
        const ms_storage_object *pv = match(cl, node, in, chosen, nchosen);
        if (!pv) {
            to_provision[nprov++] = cl;
            continue;
        }
        chosen[nchosen++] = pv;
        pick(out, cl->pvc, pv);
    }
    if (out) out->nstatic = out->npicks;
    for (uint32_t i = 0; i < nprov; i++) {
        uint32_t why = provision(to_provision[i], vs, in, node);
        if (why) return reasons | why;
        pick(out, to_provision[i]->pvc, NULL);
    }
    return reasons;
}

/* ---- after the writes ---- */

static int fail(ms_arena *a, const char **why, const char *fmt, const char *name) {
    char buf[512];
    snprintf(buf, sizeof buf, fmt, name);
    *why = ms_arena_strdup(a, buf);
    if (!*why) *why = "binding volumes: out of memory";
    return -1;
}

static bool fully_bound(const ms_storage_object *claim) {
    return claim->u.pvc.volume_name != MS_STR_NONE && claim->u.pvc.bind_completed;
}

int ms_vb_check_bindings(const ms_vb_state *st, const ms_volume_store *vs, ms_str node,
                         const ms_interner *in, ms_arena *a, const char **why) {
    for (uint32_t i = 0; i < st->npicks; i++) {
        const ms_vb_pick *p = &st->picks[i];
        const char *claim_name = ms_str_get(in, p->pvc_name);
        const ms_storage_object *pvc = ms_volume_store_api_get(vs, MS_SK_PVC, p->pvc_namespace, p->pvc_name);
        if (!pvc)
            return fail(a, why, "binding volumes: failed to check binding: persistentvolumeclaim \"%s\" not found",
                        claim_name);
        if (p->pv_name != MS_STR_NONE) {
            const ms_storage_object *pv = ms_volume_store_api_get(vs, MS_SK_PV, MS_STR_NONE, p->pv_name);
            if (!pv)
                return fail(a, why, "binding volumes: failed to check binding: persistentvolume \"%s\" not found",
                            ms_str_get(in, p->pv_name));
            /* our write has not come back yet */
            if (pv->version <= p->version && !ms_vb_bound_to_claim(&pv->u.pv, pvc)) return 0;
            /* (a claim without a uid, as in simulate's files, is matched by name) */
            if (!pv->u.pv.has_claim_ref ||
                (*pvc->meta.uid && (!pv->u.pv.claim_uid || !*pv->u.pv.claim_uid)))
                return fail(a, why, "binding volumes: ClaimRef got reset for pv \"%s\"", ms_str_get(in, p->pv_name));
        } else {
            if (pvc->version <= p->version && pvc->u.pvc.selected_node != node) return 0;
            if (pvc->u.pvc.selected_node != node)
                return fail(a, why, "binding volumes: provisioning failed for PVC \"%s\"", claim_name);
            if (pvc->u.pvc.volume_name != MS_STR_NONE &&
                !ms_volume_store_api_get(vs, MS_SK_PV, MS_STR_NONE, pvc->u.pvc.volume_name))
                return 0;
        }
        if (!fully_bound(pvc)) return 0;
    }
    return 1;
}
