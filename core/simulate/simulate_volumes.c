/* simulate's storage: loading, the PV controller's first sync, and the
 * in-memory volume binder (see simulate_volumes.h). */
#include "simulate/simulate_volumes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cache.h"
#include "backend/volume_store.h"
#include "base/array.h"
#include "scheduler/apply.h"
#include "scheduler/storage_events.h"
#include "codec/decode_storage.h"

static ms_rc sim_volume_bind(void *ctx, const ms_pod *pod, ms_str node, const ms_pod_volumes *pv,
                             ms_error *err);

void ms_sim_volumes_init(ms_sim_volumes *v, ms_interner *in) {
    memset(v, 0, sizeof *v);
    v->in = in;
    v->binder.ctx = v;
    v->binder.bind = sim_volume_bind;
}

void ms_sim_volumes_free(ms_sim_volumes *v) {
    for (uint32_t i = 0; i < v->n; i++) ms_storage_unref(v->objs[i]);
    free(v->objs);
    free(v->decisions);
    memset(v, 0, sizeof *v);
}

ms_rc ms_sim_volumes_keep(ms_sim_volumes *v, const ms_decoder *d, ms_storage_kind kind,
                          const cJSON *obj, ms_error *err) {
    ms_storage_object *o;
    ms_rc rc = ms_storage_decode(d, kind, obj, &o, err);
    return rc == MS_OK ? ms_sim_volumes_add(v, o, err) : rc;
}

ms_rc ms_sim_volumes_add(ms_sim_volumes *v, ms_storage_object *o, ms_error *err) {
    if (!ms_array_grow((void **)&v->objs, &v->cap, v->n + 1, sizeof *v->objs)) {
        ms_storage_unref(o);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    v->objs[v->n++] = o;
    return MS_OK;
}

/* ---- the PV controller's first sync ---- */


/* A claim is bound when its PV points back at it. */
static bool pv_names_claim(const ms_storage_object *pv, const ms_storage_object *claim) {
    return pv->u.pv.has_claim_ref && pv->u.pv.claim_name == claim->meta.name &&
           pv->u.pv.claim_namespace == claim->meta.namespace_;
}

static ms_storage_object *settled_pv(ms_storage_object *o) {
    if (o->u.pv.phase != MS_PV_PENDING) return ms_storage_ref(o);
    ms_storage_object *c = ms_storage_copy(o);
    if (c) c->u.pv.phase = o->u.pv.has_claim_ref ? MS_PV_BOUND : MS_PV_AVAILABLE;
    return c;
}

static ms_storage_object *settled_claim(ms_sim_volumes *v, ms_storage_object *o) {
    const ms_pvc *pvc = &o->u.pvc;
    if (pvc->volume_name == MS_STR_NONE || pvc->bind_completed) return ms_storage_ref(o);
    for (uint32_t i = 0; i < v->n; i++) {
        const ms_storage_object *pv = v->objs[i];
        if (pv->kind != MS_SK_PV || pv->meta.name != pvc->volume_name || !pv_names_claim(pv, o)) continue;
        ms_storage_object *c = ms_storage_copy(o);
        if (c) {
            c->u.pvc.bind_completed = true;
            c->u.pvc.phase = MS_CLAIM_BOUND;
        }
        return c;
    }
    return ms_storage_ref(o);
}

ms_rc ms_sim_volumes_feed(ms_sim_volumes *v, ms_scheduler *sched, double now, ms_error *err) {
    v->sched = sched;
    for (uint32_t i = 0; i < v->n; i++) {
        ms_storage_object *o = v->objs[i];
        ms_storage_object *fed = o->kind == MS_SK_PV    ? settled_pv(o)
                                 : o->kind == MS_SK_PVC ? settled_claim(v, o)
                                                        : ms_storage_ref(o);
        if (!fed) return ms_error_set(err, MS_ENOMEM, "out of memory");
        ms_delta d = {.type = MS_DELTA_ADD, .kind = (uint8_t)(MS_KIND_PV + fed->kind), .storage = fed};
        ms_scheduler_apply(sched, &d, now);
        ms_storage_unref(fed);
    }
    return MS_OK;
}

/* ---- the binder ---- */

static bool record(ms_sim_volumes *v, const ms_pod *pod, ms_str claim, ms_str pv, bool provisioned) {
    if (!ms_array_grow((void **)&v->decisions, &v->decisioncap, v->ndecisions + 1, sizeof *v->decisions))
        return false;
    v->decisions[v->ndecisions++] = (ms_sim_volume_decision){pod->meta.uid_hash, claim, pv, provisioned};
    return true;
}

/* The claim bound to `pv_name`, one version newer. */
static ms_rc bind_claim(ms_sim_volumes *v, const ms_storage_object *claim, ms_str pv_name, ms_str node) {
    ms_storage_object *c = ms_storage_copy((ms_storage_object *)claim);
    if (!c) return MS_ENOMEM;
    c->u.pvc.volume_name = pv_name;
    c->u.pvc.bind_completed = true;
    c->u.pvc.phase = MS_CLAIM_BOUND;
    if (node != MS_STR_NONE) c->u.pvc.selected_node = node;
    c->version = claim->version + 1;
    ms_scheduler_storage_set(v->sched, c, 0);
    ms_storage_unref(c);
    return MS_OK;
}

static ms_rc bind_static(ms_sim_volumes *v, const ms_volume_binding *b) {
    ms_storage_object *pv = ms_storage_copy(b->pv);
    if (!pv) return MS_ENOMEM;
    const ms_storage_object *api = ms_volume_store_api_get(ms_scheduler_volume_store(v->sched), MS_SK_PV,
                                                           MS_STR_NONE, b->pv->meta.name);
    pv->u.pv.phase = MS_PV_BOUND;
    pv->version = (api ? api->version : b->pv->version) + 1;
    ms_scheduler_storage_set(v->sched, pv, 0);
    ms_storage_unref(pv);
    return bind_claim(v, b->pvc, b->pv->meta.name, MS_STR_NONE);
}

/* Node affinity on the node's values of `keys` (In, one value each). */
static ms_rc topology_affinity(ms_storage_object *pv, const ms_node *node, const ms_str *keys, uint32_t nkeys) {
    ms_requirement *reqs = MS_ARENA_NEW(&pv->arena, ms_requirement, nkeys ? nkeys : 1);
    ms_node_selector_term *term = MS_ARENA_NEW(&pv->arena, ms_node_selector_term, 1);
    if (!reqs || !term) return MS_ENOMEM;
    uint32_t n = 0;
    for (uint32_t k = 0; k < nkeys; k++) {
        ms_str val = ms_labels_get(&node->meta.labels, keys[k]);
        ms_str *vals = MS_ARENA_NEW(&pv->arena, ms_str, 1);
        if (!vals) return MS_ENOMEM;
        if (val == MS_STR_NONE) continue;
        vals[0] = val;
        reqs[n++] = (ms_requirement){.key = keys[k], .op = MS_OP_IN, .nvalues = 1, .values = vals};
    }
    if (!n) return MS_OK;
    *term = (ms_node_selector_term){.nexpr = n, .expr = reqs};
    pv->u.pv.has_node_affinity = true;
    pv->u.pv.node_affinity = (ms_node_selector){1, term};
    return MS_OK;
}

/* The topology keys the provisioner publishes for the node (CSINode), or
 * the node's zone key. */
static uint32_t topology_keys(ms_sim_volumes *v, ms_str provisioner, const ms_node *node, const ms_str **keys,
                              ms_str *zone) {
    const ms_storage_object *cn = ms_volume_store_get(ms_scheduler_volume_store(v->sched), MS_SK_CSI_NODE,
                                                      MS_STR_NONE, node->meta.name);
    for (uint32_t i = 0; cn && i < cn->u.csi_node.ndrivers; i++)
        if (cn->u.csi_node.drivers[i].name == provisioner) {
            *keys = cn->u.csi_node.drivers[i].topology_keys;
            return cn->u.csi_node.drivers[i].ntopology_keys;
        }
    *zone = ms_intern_cstr(v->in, "topology.kubernetes.io/zone");
    *keys = zone;
    return *zone == MS_STR_NONE ? 0 : 1;
}

static ms_str provisioned_name(ms_sim_volumes *v, const ms_storage_object *claim) {
    char buf[300];
    if (claim->meta.uid && *claim->meta.uid) snprintf(buf, sizeof buf, "pvc-%s", claim->meta.uid);
    else
        snprintf(buf, sizeof buf, "pvc-%s-%s", ms_str_get(v->in, claim->meta.namespace_),
                 ms_str_get(v->in, claim->meta.name));
    return ms_intern_cstr(v->in, buf);
}

static ms_rc provision(ms_sim_volumes *v, const ms_volume_binding *b, ms_str node_name, ms_str *pv_name) {
    const ms_storage_object *claim = b->pvc;
    const ms_volume_store *vs = ms_scheduler_volume_store(v->sched);
    const ms_storage_object *sc = ms_volume_store_get(vs, MS_SK_STORAGE_CLASS, MS_STR_NONE, claim->u.pvc.storage_class);
    const ms_node_info *ni = ms_cache_node_info(ms_scheduler_cache(v->sched), node_name);
    if (!sc || !ni || !ni->node) return MS_ENOENT;
    ms_storage_object *pv = ms_storage_alloc(MS_SK_PV);
    if (!pv) return MS_ENOMEM;
    *pv_name = provisioned_name(v, claim);
    pv->meta.name = *pv_name;
    pv->meta.uid = "";
    pv->meta.uid_hash = ms_hash_bytes(ms_str_get(v->in, *pv_name), ms_str_len(v->in, *pv_name));
    pv->meta.resource_version = "";
    pv->version = 1;
    ms_pv *p = &pv->u.pv;
    *p = (ms_pv){.capacity = claim->u.pvc.request, .access_modes = claim->u.pvc.access_modes,
                 .volume_mode = claim->u.pvc.volume_mode, .phase = MS_PV_BOUND,
                 .source = MS_PV_SOURCE_CSI, .storage_class = claim->u.pvc.storage_class,
                 .has_claim_ref = true, .claim_namespace = claim->meta.namespace_,
                 .claim_name = claim->meta.name, .claim_uid = claim->meta.uid,
                 .csi_driver = sc->u.sc.provisioner, .volume_handle = *pv_name};
    const ms_str *keys;
    ms_str zone;
    uint32_t nkeys = topology_keys(v, sc->u.sc.provisioner, ni->node, &keys, &zone);
    ms_rc rc = *pv_name == MS_STR_NONE ? MS_ENOMEM : topology_affinity(pv, ni->node, keys, nkeys);
    if (rc == MS_OK && !(p->claim_uid = ms_arena_strdup(&pv->arena, claim->meta.uid ? claim->meta.uid : "")))
        rc = MS_ENOMEM;
    if (rc == MS_OK) ms_scheduler_storage_set(v->sched, pv, 0);
    ms_storage_unref(pv);
    return rc == MS_OK ? bind_claim(v, claim, *pv_name, node_name) : rc;
}

/* One binding, with references held: each write replaces objects in the
 * store, which may free the ones the binder was given. */
static ms_rc bind_one(ms_sim_volumes *v, const ms_pod *pod, ms_str node, const ms_volume_binding *given, bool dynamic) {
    ms_volume_binding b = {ms_storage_ref(given->pvc), given->pv ? ms_storage_ref(given->pv) : NULL,
                           given->bound_by_controller};
    ms_str pv_name = MS_STR_NONE;
    ms_rc rc = dynamic ? provision(v, &b, node, &pv_name) : bind_static(v, &b);
    if (!dynamic) pv_name = b.pv->meta.name;
    if (rc == MS_OK && !record(v, pod, b.pvc->meta.name, pv_name, dynamic)) rc = MS_ENOMEM;
    ms_storage_unref(b.pvc);
    ms_storage_unref(b.pv);
    return rc;
}

static ms_rc sim_volume_bind(void *ctx, const ms_pod *pod, ms_str node, const ms_pod_volumes *pv,
                             ms_error *err) {
    ms_sim_volumes *v = ctx;
    for (uint32_t i = 0; i < pv->nbindings + pv->nprovisions; i++) {
        bool dynamic = i >= pv->nbindings;
        const ms_volume_binding *b = dynamic ? &pv->provisions[i - pv->nbindings] : &pv->bindings[i];
        ms_str claim = b->pvc->meta.name;
        ms_rc rc = bind_one(v, pod, node, b, dynamic);
        if (rc != MS_OK)
            return ms_error_set(err, rc, "%s %s: %s", dynamic ? "provisioning" : "binding",
                                ms_str_get(v->in, claim), ms_rc_str(rc));
    }
    return MS_OK;
}

void ms_sim_volumes_describe(const ms_sim_volumes *v, const ms_pod *pod, char *buf, size_t n) {
    size_t len = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < v->ndecisions && len < n; i++) {
        const ms_sim_volume_decision *d = &v->decisions[i];
        if (d->pod_uid != pod->meta.uid_hash) continue;
        int w = snprintf(buf + len, n - len, "%s%s=%s%s", len ? ", " : "", ms_str_get(v->in, d->claim),
                         ms_str_get(v->in, d->pv), d->provisioned ? " (provisioned)" : "");
        if (w < 0) break;
        len += (size_t)w;
    }
}
