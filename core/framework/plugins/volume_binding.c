/* VolumeBinding (upstream's volumebinding plugin): a pod's
 * PersistentVolumeClaims decide where it can run.
 *   PreFilter: every claim exists, is not lost and not being deleted;
 *     unbound claims of an Immediate class (or prebound ones) make the pod
 *     wait for the PV controller ("pod has unbound immediate
 *     PersistentVolumeClaims"); the WaitForFirstConsumer ones get their
 *     candidate PVs (volume_binding_find.c).
 *   Filter: bound PVs' node affinity, then a PV or a provisioning for each
 *     unbound claim on this node.
 *   Reserve: the choice for the chosen node goes into the volume store's
 *     assume layer (PV claimRef, claim selected-node), so that the next pod
 *     does not take the same PV; Unreserve undoes it.
 *   PreBind: the writes go to the volume binder, then the plugin waits
 *     (MS_WAIT, up to bindTimeoutSeconds) until the store shows the claims
 *     bound.
 * Scoring (VolumeCapacityPriority / StorageCapacityScoring) is behind an
 * alpha feature gate upstream, off by default: not done. */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cache_snapshot.h"
#include "builtin.h"
#include "plugin_args.h"
#include "volume_binding.h"

#define PLUGIN "VolumeBinding"
#define DEFAULT_BIND_TIMEOUT 600

typedef struct volume_binding {
    double bind_timeout;
} volume_binding;

static ms_rc vb_create(const cJSON *args, const ms_handle *h, void **self, ms_error *err) {
    static const char *const fields[] = {"bindTimeoutSeconds", "shape", NULL};
    (void)h;
    volume_binding *vb = calloc(1, sizeof *vb);
    if (!vb) return ms_error_set(err, MS_ENOMEM, PLUGIN " args: out of memory");
    vb->bind_timeout = DEFAULT_BIND_TIMEOUT;
    if (args && !cJSON_IsNull(args)) {
        ms_rc rc = ms_args_check_object(args, fields, PLUGIN, "", err);
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(args, "bindTimeoutSeconds");
        int64_t v = 0;
        if (!rc && t && !cJSON_IsNull(t) && !(rc = ms_args_int(t, PLUGIN, "bindTimeoutSeconds", &v, err))) {
            char text[32];
            snprintf(text, sizeof text, "%lld", (long long)v);
            if (v < 0)
                rc = ms_args_invalid(PLUGIN, "bindTimeoutSeconds", text,
                                     "invalid BindTimeoutSeconds, should not be a negative value", err);
            else vb->bind_timeout = (double)v;
        }
        if (rc) {
            free(vb);
            return rc;
        }
    }
    *self = vb;
    return MS_OK;
}

static void vb_destroy(void *self) { free(self); }

/* ---- PreFilter ---- */

static const char *say(ms_cycle *c, const char *fmt, const char *a, const char *b) {
    char buf[600];
    snprintf(buf, sizeof buf, fmt, a, b);
    const char *s = ms_arena_strdup(c->arena, buf);
    return s ? s : "out of memory";
}

/* upstream's podHasPVCs: the claim of every PVC or ephemeral volume must
 * exist, not be lost, not be being deleted (and an ephemeral one must be
 * the pod's). */
static ms_code check_claims(ms_cycle *c, const ms_volume_store *vs, bool *has, ms_status *st) {
    const ms_pod *pod = c->pod;
    const ms_interner *in = c->h->in;
    *has = false;
    for (uint32_t i = 0; i < pod->nvolumes; i++) {
        const ms_volume *v = &pod->volumes[i];
        if (v->kind != MS_VOL_PVC && v->kind != MS_VOL_EPHEMERAL) continue;
        *has = true;
        const char *name = ms_str_get(in, v->id);
        const ms_storage_object *o = ms_volume_store_get(vs, MS_SK_PVC, pod->meta.namespace_, v->id);
        if (!o)
            return ms_status_set(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE,
                                 say(c, v->kind == MS_VOL_EPHEMERAL
                                            ? "waiting for ephemeral volume controller to create the persistentvolumeclaim \"%s\"%s"
                                            : "persistentvolumeclaim \"%s\" not found%s", name, ""));
        if (o->u.pvc.phase == MS_CLAIM_LOST)
            return ms_status_set(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE,
                                 say(c, "persistentvolumeclaim \"%s\" bound to non-existent persistentvolume \"%s\"",
                                     name, ms_str_get(in, o->u.pvc.volume_name)));
        if (o->meta.deletion != 0)
            return ms_status_set(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE,
                                 say(c, "persistentvolumeclaim \"%s\" is being deleted%s", name, ""));
        const ms_owner_ref *owner = ms_meta_controller(&o->meta);
        if (v->kind == MS_VOL_EPHEMERAL && (!owner || strcmp(owner->uid, pod->meta.uid) != 0))
            return ms_status_set(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE,
                                 say(c, "PVC %s was not created for pod %s (pod is not owner)", name,
                                     ms_str_get(in, pod->meta.name)));
    }
    return MS_SUCCESS;
}

static int cmp_requests(const void *pa, const void *pb) {
    const ms_vb_claim *a = pa, *b = pb;
    int64_t ra = a->pvc->u.pvc.request, rb = b->pvc->u.pvc.request;
    return ra < rb ? -1 : ra > rb;
}

/* GetPodVolumeClaims: bound claims (volumeName and bind-completed),
 * delay-binding ones, and the rest (immediate, or prebound by name). */
static ms_code classify(ms_cycle *c, const ms_volume_store *vs, ms_vb_state *s, ms_status *st) {
    const ms_pod *pod = c->pod;
    if (!(s->bound_pvs = MS_ARENA_NEW(c->arena, const ms_storage_object *, pod->nvolumes)) ||
        !(s->unbound = MS_ARENA_NEW(c->arena, ms_vb_claim, pod->nvolumes)))
        return ms_status_set(st, MS_ERROR, "out of memory");
    for (uint32_t i = 0; i < pod->nvolumes; i++) {
        const ms_volume *v = &pod->volumes[i];
        if (v->kind != MS_VOL_PVC && v->kind != MS_VOL_EPHEMERAL) continue;
        const ms_storage_object *o = ms_volume_store_get(vs, MS_SK_PVC, pod->meta.namespace_, v->id);
        const ms_pvc *pvc = &o->u.pvc;
        if (pvc->volume_name != MS_STR_NONE && pvc->bind_completed) {
            s->bound_pvs[s->nbound++] = ms_volume_store_get(vs, MS_SK_PV, MS_STR_NONE, pvc->volume_name);
            continue;
        }
        const ms_storage_object *sc =
            pvc->storage_class == MS_STR_NONE ? NULL
                                              : ms_volume_store_get(vs, MS_SK_STORAGE_CLASS, MS_STR_NONE, pvc->storage_class);
        if (!sc || sc->u.sc.binding_mode != MS_BINDING_WAIT_FOR_FIRST_CONSUMER || pvc->volume_name != MS_STR_NONE)
            return ms_status_set(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE,
                                 "pod has unbound immediate PersistentVolumeClaims");
        s->unbound[s->nunbound++] = (ms_vb_claim){.pvc = o, .sc = sc};
    }
    qsort(s->unbound, s->nunbound, sizeof *s->unbound, cmp_requests);
    for (uint32_t i = 0; i < s->nunbound; i++)
        if (!ms_vb_prepare_claim(&s->unbound[i], vs, c->h->in, c->arena))
            return ms_status_set(st, MS_ERROR, "out of memory");
    return MS_SUCCESS;
}

static ms_code vb_pre_filter(void *self, ms_cycle *c, ms_status *st) {
    (void)self;
    const ms_pod *pod = c->pod;
    uint32_t i = 0;
    while (i < pod->nvolumes && pod->volumes[i].kind != MS_VOL_PVC && pod->volumes[i].kind != MS_VOL_EPHEMERAL) i++;
    if (i == pod->nvolumes) return MS_SKIP;
    const ms_volume_store *vs = c->h->volumes;
    bool has;
    ms_code code = check_claims(c, vs, &has, st);
    if (code != MS_SUCCESS) return code;
    ms_vb_state *s = MS_ARENA_NEW(c->arena, ms_vb_state, 1);
    if (!s) return ms_status_set(st, MS_ERROR, "out of memory");
    if ((code = classify(c, vs, s, st)) != MS_SUCCESS) return code;
    c->state[c->current] = s;
    return MS_SUCCESS;
}

/* ---- Filter ---- */

static const char *const reason_texts[] = {
    "node(s) had volume node affinity conflict",
    "node(s) didn't find available persistent volumes to bind",
    "node(s) did not have enough free storage",
    "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)",
};

static ms_code vb_filter(void *self, ms_cycle *c, const ms_node_info *ni, ms_status *st) {
    (void)self;
    const ms_vb_state *s = c->state[c->current];
    if (!s) return MS_SUCCESS;
    uint32_t why = ms_vb_find(s, c->h->volumes, c->h->in, ni, NULL, NULL);
    if (!why) return MS_SUCCESS;
    ms_status_set(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE, NULL);
    for (uint32_t k = 0; k < 4; k++)
        if (why & (1u << k)) ms_status_add_reason(st, reason_texts[k]);
    return MS_UNSCHEDULABLE_AND_UNRESOLVABLE;
}

/* ---- Reserve / Unreserve ---- */

/* AssumePodVolumes: a copy of the PV with the claimRef, or of the claim
 * with the selected node, into the assume layer. */
static ms_rc assume_pick(ms_volume_store *vs, ms_vb_pick *p, ms_str node) {
    bool is_static = p->pv_name != MS_STR_NONE;
    const ms_storage_object *claim = ms_volume_store_get(vs, MS_SK_PVC, p->pvc_namespace, p->pvc_name);
    const ms_storage_object *orig = is_static ? ms_volume_store_get(vs, MS_SK_PV, MS_STR_NONE, p->pv_name) : claim;
    if (!claim || !orig) return MS_ENOENT;
    ms_storage_object *copy = ms_storage_copy((ms_storage_object *)orig);
    if (!copy) return MS_ENOMEM;
    if (is_static) {
        p->bound_by_controller = !ms_vb_bound_to_claim(&orig->u.pv, claim);
        copy->u.pv.has_claim_ref = true;
        copy->u.pv.claim_namespace = claim->meta.namespace_;
        copy->u.pv.claim_name = claim->meta.name;
        copy->u.pv.claim_uid = ms_arena_strdup(&copy->arena, claim->meta.uid);
        if (!copy->u.pv.claim_uid) {
            ms_storage_unref(copy);
            return MS_ENOMEM;
        }
    } else {
        copy->u.pvc.selected_node = node;
    }
    p->version = orig->version;
    ms_rc rc = ms_volume_store_assume(vs, copy);
    ms_storage_unref(copy);
    return rc;
}

static void restore_picks(ms_volume_store *vs, const ms_vb_state *s, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        const ms_vb_pick *p = &s->picks[i];
        if (p->pv_name != MS_STR_NONE) ms_volume_store_restore(vs, MS_SK_PV, MS_STR_NONE, p->pv_name);
        else ms_volume_store_restore(vs, MS_SK_PVC, p->pvc_namespace, p->pvc_name);
    }
}

static ms_code vb_reserve(void *self, ms_cycle *c, ms_str node, ms_status *st) {
    (void)self;
    ms_vb_state *s = c->state[c->current];
    if (!s || !s->nunbound) return MS_SUCCESS;
    const ms_node_info *ni = ms_snapshot_get(c->snap, node);
    if (!ni || !ni->node) return ms_status_set(st, MS_ERROR, "no pod volumes found for node");
    if (ms_vb_find(s, c->h->volumes, c->h->in, ni, c->arena, s) != 0)
        return ms_status_set(st, MS_ERROR, "no pod volumes found for node");
    for (uint32_t i = 0; i < s->npicks; i++) {
        if (assume_pick(c->h->volumes, &s->picks[i], node) != MS_OK) {
            restore_picks(c->h->volumes, s, i);
            s->npicks = 0;
            return ms_status_set(st, MS_ERROR, "assuming pod volumes failed");
        }
    }
    return MS_SUCCESS;
}

static void vb_unreserve(void *self, ms_cycle *c, ms_str node) {
    (void)self;
    (void)node;
    ms_vb_state *s = c->state[c->current];
    if (!s) return;
    restore_picks(c->h->volumes, s, s->npicks);
    if (s->sent && c->h->volume_binder && c->h->volume_binder->cancel)
        c->h->volume_binder->cancel(c->h->volume_binder->ctx, c->pod);
    s->npicks = 0;
}

/* ---- PreBind ---- */

static ms_code send_writes(ms_cycle *c, ms_vb_state *s, ms_str node, ms_status *st) {
    const ms_volume_binder *b = c->h->volume_binder;
    const ms_volume_store *vs = c->h->volumes;
    if (!b || !b->bind) return ms_status_set(st, MS_ERROR, "binding volumes: no volume binder");
    ms_volume_binding *all = MS_ARENA_NEW(c->arena, ms_volume_binding, s->npicks);
    if (!all) return ms_status_set(st, MS_ERROR, "out of memory");
    for (uint32_t i = 0; i < s->npicks; i++) {
        const ms_vb_pick *p = &s->picks[i];
        all[i].pvc = (ms_storage_object *)ms_volume_store_get(vs, MS_SK_PVC, p->pvc_namespace, p->pvc_name);
        if (p->pv_name != MS_STR_NONE)
            all[i].pv = (ms_storage_object *)ms_volume_store_get(vs, MS_SK_PV, MS_STR_NONE, p->pv_name);
        all[i].bound_by_controller = p->bound_by_controller;
        if (!all[i].pvc || (p->pv_name != MS_STR_NONE && !all[i].pv))
            return ms_status_set(st, MS_ERROR, "binding volumes: a claim or volume disappeared");
    }
    ms_pod_volumes v = {s->nstatic, all, s->npicks - s->nstatic, all + s->nstatic};
    ms_error err;
    s->sent = true;
    if (b->bind(b->ctx, c->pod, node, &v, &err) != MS_OK)
        return ms_status_set(st, MS_ERROR, say(c, "binding volumes: %s%s", err.msg, ""));
    return MS_SUCCESS;
}

static ms_code vb_pre_bind(void *self, ms_cycle *c, ms_str node, double *timeout, ms_status *st) {
    volume_binding *vb = self;
    ms_vb_state *s = c->state[c->current];
    if (!s || !s->npicks) return MS_SUCCESS;   /* every claim bound already */
    bool deadline = *timeout < 0;
    if (!s->sent) {
        ms_code code = send_writes(c, s, node, st);
        if (code != MS_SUCCESS) return code;
    }
    const char *why = NULL;
    int done = ms_vb_check_bindings(s, c->h->volumes, node, c->h->in, c->arena, &why);
    if (done > 0) return MS_SUCCESS;
    if (done < 0) return ms_status_set(st, MS_ERROR, why);
    if (deadline) return ms_status_set(st, MS_ERROR, "binding volumes: timed out waiting for the condition");
    *timeout = vb->bind_timeout;
    return ms_status_set(st, MS_WAIT, "waiting for the volumes to be bound");
}

const ms_plugin_ops ms_plugin_volume_binding = {
    .name = "VolumeBinding",
    /* upstream's EventsToRegister (node taints included, as upstream
     * without queueing hints). */
    .events = MS_EV_STORAGE_CLASS_ADD | MS_EV_STORAGE_CLASS_UPDATE | MS_EV_PVC_ADD | MS_EV_PVC_UPDATE |
              MS_EV_PV_ADD | MS_EV_PV_UPDATE | MS_EV_NODE_ADD | MS_EV_NODE_LABEL | MS_EV_NODE_TAINT |
              MS_EV_CSI_NODE_ADD | MS_EV_CSI_NODE_UPDATE | MS_EV_CSI_DRIVER_UPDATE |
              MS_EV_CSI_CAPACITY_ADD | MS_EV_CSI_CAPACITY_UPDATE,
    .create = vb_create,
    .destroy = vb_destroy,
    .pre_filter = vb_pre_filter,
    .filter = vb_filter,
    .reserve = vb_reserve,
    .unreserve = vb_unreserve,
    .pre_bind = vb_pre_bind,
};
