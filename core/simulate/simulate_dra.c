/* simulate's resource.k8s.io objects: kept as read, fed before the first cycle. */
#include "simulate/simulate_dra.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "scheduler/apply.h"
#include "scheduler/dra_events.h"
#include "codec/decode_dra.h"

void ms_sim_dra_free(ms_sim_dra *v) {
    for (uint32_t i = 0; i < v->n; i++) ms_dra_unref(v->objs[i]);
    free(v->objs);
    memset(v, 0, sizeof *v);
}

ms_rc ms_sim_dra_keep(ms_sim_dra *v, const ms_decoder *d, ms_dra_kind kind, const cJSON *obj, ms_error *err) {
    ms_dra_object *o;
    ms_rc rc = ms_dra_decode(d, kind, obj, &o, err);
    if (rc != MS_OK) return rc;
    if (!ms_array_grow((void **)&v->objs, &v->cap, v->n + 1, sizeof *v->objs)) {
        ms_dra_unref(o);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    v->objs[v->n++] = o;
    return MS_OK;
}

/* Through the scheduler's one entry point, as run's informers deliver. */
static ms_rc deliver(ms_scheduler *sched, ms_delta_type type, ms_dra_object *o, double now) {
    ms_delta d = {.type = (uint8_t)type, .kind = (uint8_t)(MS_KIND_DEVICE_CLASS + o->kind), .dra = o};
    return ms_scheduler_apply(sched, &d, now);
}

ms_rc ms_sim_dra_feed(const ms_sim_dra *v, ms_scheduler *sched, ms_error *err) {
    /* The files are the whole cluster: a claim they lack does not exist. */
    ms_scheduler_dra_provided(sched);
    for (uint32_t i = 0; i < v->n; i++)
        if (deliver(sched, MS_DELTA_ADD, v->objs[i], 0) != MS_OK) return ms_error_set(err, MS_ENOMEM, "out of memory");
    return MS_OK;
}

void ms_sim_dra_describe(const ms_scheduler *sched, const ms_interner *in, const ms_pod *pod, char *buf,
                         size_t n) {
    const ms_dra_store *store = ms_scheduler_dra_store(sched);
    size_t len = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < pod->nresource_claims && len < n; i++) {
        const ms_dra_object *o = ms_dra_store_pod_claim(store, pod, i);
        if (!o || !o->u.claim.allocated) continue;
        for (uint32_t k = 0; k < o->u.claim.nresults && len < n; k++) {
            const ms_device_result *r = &o->u.claim.results[k];
            int w = snprintf(buf + len, n - len, "%s%s=%s/%s/%s", len ? ", " : "",
                             ms_str_get(in, pod->resource_claims[i].name), ms_str_get(in, r->driver),
                             ms_str_get(in, r->pool), ms_str_get(in, r->device));
            if (w < 0) break;
            len += (size_t)w;
        }
    }
}

/* The resourceclaim controller's part when a pod is deleted: the pod leaves
 * its claims' status.reservedFor, and a claim reserved for nobody is
 * deallocated (its devices are free again). */
ms_rc ms_sim_dra_pod_deleted(ms_scheduler *sched, const ms_pod *pod, double now) {
    const ms_dra_store *store = ms_scheduler_dra_store(sched);
    for (uint32_t i = 0; i < pod->nresource_claims; i++) {
        const ms_dra_object *o = ms_dra_store_pod_claim(store, pod, i);
        if (!o) continue;
        ms_dra_object *w = ms_dra_claim_unreserve((ms_dra_object *)o, pod->meta.uid, true);
        if (!w) return MS_ENOMEM;
        ms_rc rc = deliver(sched, MS_DELTA_UPDATE, w, now);
        ms_dra_unref(w);
        if (rc != MS_OK) return rc;
    }
    return MS_OK;
}

ms_rc ms_sim_dra_save(const ms_scheduler *sched, const ms_pod *pod, ms_sim_dra *saved) {
    ms_sim_dra_free(saved);
    const ms_dra_store *store = ms_scheduler_dra_store(sched);
    for (uint32_t i = 0; i < pod->nresource_claims; i++) {
        const ms_dra_object *o = ms_dra_store_pod_claim(store, pod, i);
        if (!o) continue;
        if (!ms_array_grow((void **)&saved->objs, &saved->cap, saved->n + 1, sizeof *saved->objs)) return MS_ENOMEM;
        saved->objs[saved->n++] = ms_dra_ref((ms_dra_object *)o);
    }
    return MS_OK;
}

ms_rc ms_sim_dra_restore(ms_scheduler *sched, ms_sim_dra *saved, double now) {
    ms_rc rc = MS_OK;
    for (uint32_t i = 0; i < saved->n && rc == MS_OK; i++) rc = deliver(sched, MS_DELTA_UPDATE, saved->objs[i], now);
    ms_sim_dra_free(saved);
    return rc;
}
