#include "scheduler/apply.h"

#include "api/workload_set.h"
#include "scheduler/dra_events.h"
#include "scheduler/scheduler_priv.h"
#include "scheduler/storage_events.h"

static void apply_pod(ms_scheduler *s, const ms_delta *d, double now) {
    switch (d->type) {
    case MS_DELTA_ADD: ms_scheduler_pod_add(s, d->pod, now); break;
    case MS_DELTA_UPDATE: ms_scheduler_pod_update(s, d->pod, now); break;
    case MS_DELTA_DELETE: ms_scheduler_pod_delete(s, d->pod, now); break;
    default: break;
    }
}

static void apply_node(ms_scheduler *s, const ms_delta *d, double now) {
    switch (d->type) {
    case MS_DELTA_ADD: ms_scheduler_node_add(s, d->node, now); break;
    case MS_DELTA_UPDATE: ms_scheduler_node_update(s, d->node, now); break;
    case MS_DELTA_DELETE: ms_scheduler_node_delete(s, d->node->meta.name, now); break;
    default: break;
    }
}

static void apply_namespace(ms_scheduler *s, const ms_delta *d, double now) {
    switch (d->type) {
    case MS_DELTA_ADD:
    case MS_DELTA_UPDATE: ms_scheduler_namespace_add(s, d->ns, now); break;
    case MS_DELTA_DELETE: ms_scheduler_namespace_delete(s, d->ns->meta.name, now); break;
    default: break;
    }
}

static void apply_pdb(ms_scheduler *s, const ms_delta *d, double now) {
    switch (d->type) {
    case MS_DELTA_ADD: ms_scheduler_pdb_add(s, d->pdb, now); break;
    case MS_DELTA_UPDATE: ms_scheduler_pdb_update(s, d->pdb, now); break;
    case MS_DELTA_DELETE: ms_scheduler_pdb_delete(s, d->pdb->meta.namespace_, d->pdb->meta.name, now); break;
    default: break;
    }
}

static void apply_storage(ms_scheduler *s, const ms_delta *d, double now) {
    ms_storage_object *o = d->storage;
    switch (d->type) {
    case MS_DELTA_ADD:
    case MS_DELTA_UPDATE: ms_scheduler_storage_set(s, o, now); break;
    case MS_DELTA_DELETE:
        ms_scheduler_storage_delete(s, (ms_storage_kind)o->kind, o->meta.namespace_, o->meta.name, now);
        break;
    default: break;
    }
}

/* An object of the group means its source serves resource.k8s.io, so the
 * plugin sees the store from then on (run's informers: the group may be
 * missing on the server; simulate's files provide it before the first). */
static ms_rc apply_dra(ms_scheduler *s, const ms_delta *d, double now) {
    ms_dra_object *o = d->dra;
    ms_scheduler_dra_provided(s);
    switch (d->type) {
    case MS_DELTA_ADD:
    case MS_DELTA_UPDATE: return ms_scheduler_dra_set(s, o, now);
    case MS_DELTA_DELETE:
        ms_scheduler_dra_delete(s, (ms_dra_kind)o->kind, o->meta.namespace_, o->meta.name, now);
        return MS_OK;
    default: return MS_OK;
    }
}

/* Nothing is requeued: the objects only feed PodTopologySpread's default
 * constraints, a score, which cannot make a pod schedulable. */
static void apply_workload(ms_scheduler *s, const ms_delta *d) {
    ms_workload *w = d->workload;
    switch (d->type) {
    case MS_DELTA_ADD:
    case MS_DELTA_UPDATE:
        /* out of memory leaves the set as it was, as for PDBs */
        (void)ms_workload_set_update(s->workloads, w);
        break;
    case MS_DELTA_DELETE:
        ms_workload_set_delete(s->workloads, (ms_workload_kind)w->kind, w->meta.namespace_, w->meta.name);
        break;
    default: break;
    }
}

ms_rc ms_scheduler_apply(ms_scheduler *s, const ms_delta *d, double now) {
    if (!d->obj) return MS_OK;
    switch (d->kind) {
    case MS_KIND_POD: apply_pod(s, d, now); break;
    case MS_KIND_NODE: apply_node(s, d, now); break;
    case MS_KIND_NAMESPACE: apply_namespace(s, d, now); break;
    case MS_KIND_PDB: apply_pdb(s, d, now); break;
    default:
        if (d->kind >= MS_KIND_PV && d->kind <= MS_KIND_CSI_CAPACITY) apply_storage(s, d, now);
        else if (d->kind >= MS_KIND_DEVICE_CLASS && d->kind <= MS_KIND_RESOURCE_CLAIM_TEMPLATE) return apply_dra(s, d, now);
        else if (d->kind >= MS_KIND_SERVICE && d->kind <= MS_KIND_STATEFUL_SET) apply_workload(s, d);
        break;
    }
    return MS_OK;
}
