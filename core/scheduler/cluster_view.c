/* ms_scheduler_view: references to what the scheduler holds. See
 * scheduler/cluster_view.h. */
#include "scheduler/cluster_view.h"

#include <stdlib.h>
#include <string.h>

#include "api/pdb_set.h"
#include "api/workload_set.h"
#include "base/array.h"
#include "backend/cache.h"
#include "backend/queue.h"
#include "backend/volume_store.h"
#include "moonsched/nodeinfo.h"
#include "scheduler/scheduler_priv.h"

typedef struct collect {
    ms_cluster_view *v;
    ms_cache *cache;
    uint32_t podcap, pdbcap, workloadcap;
    bool oom;
} collect;

static bool push_pod(collect *c, ms_pod *p) {
    if (!ms_array_grow((void **)&c->v->pods, &c->podcap, c->v->npods + 1, sizeof *c->v->pods))
        return !(c->oom = true);
    c->v->pods[c->v->npods++] = ms_pod_ref(p);
    return true;
}

static void add_pdb(void *ctx, const ms_pdb *pdb) {
    collect *c = ctx;
    if (!ms_array_grow((void **)&c->v->pdbs, &c->pdbcap, c->v->npdbs + 1, sizeof *c->v->pdbs)) {
        c->oom = true;
        return;
    }
    c->v->pdbs[c->v->npdbs++] = ms_pdb_ref((ms_pdb *)pdb);
}

static void add_workload(void *ctx, ms_workload *w) {
    collect *c = ctx;
    if (!ms_array_grow((void **)&c->v->workloads, &c->workloadcap, c->v->nworkloads + 1, sizeof *c->v->workloads)) {
        c->oom = true;
        return;
    }
    c->v->workloads[c->v->nworkloads++] = ms_workload_ref(w);
}

/* Pending: in the queue and not on a node (a pod being bound is both). */
static void add_pending(void *ctx, const ms_queued_pod *qp) {
    collect *c = ctx;
    if (!ms_cache_get_pod(c->cache, qp->pod->meta.uid_hash)) push_pod(c, qp->pod);
}

static int cmp_keys(const ms_interner *in, ms_str ans, ms_str an, ms_str bns, ms_str bn) {
    int r = strcmp(ms_str_get(in, ans), ms_str_get(in, bns));
    return r ? r : strcmp(ms_str_get(in, an), ms_str_get(in, bn));
}
static int cmp_pod(const void *a, const void *b, void *in) {
    const ms_pod *x = *(ms_pod *const *)a, *y = *(ms_pod *const *)b;
    return cmp_keys(in, x->meta.namespace_, x->meta.name, y->meta.namespace_, y->meta.name);
}
static int cmp_node(const void *a, const void *b, void *in) {
    const ms_node *x = *(ms_node *const *)a, *y = *(ms_node *const *)b;
    return cmp_keys(in, MS_STR_NONE, x->meta.name, MS_STR_NONE, y->meta.name);
}
static int cmp_ns(const void *a, const void *b, void *in) {
    const ms_namespace *x = *(ms_namespace *const *)a, *y = *(ms_namespace *const *)b;
    return cmp_keys(in, MS_STR_NONE, x->meta.name, MS_STR_NONE, y->meta.name);
}
static int cmp_pdb(const void *a, const void *b, void *in) {
    const ms_pdb *x = *(ms_pdb *const *)a, *y = *(ms_pdb *const *)b;
    return cmp_keys(in, x->meta.namespace_, x->meta.name, y->meta.namespace_, y->meta.name);
}

static int cmp_volume(const void *a, const void *b, void *in) {
    const ms_storage_object *x = *(ms_storage_object *const *)a, *y = *(ms_storage_object *const *)b;
    if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
    return cmp_keys(in, x->meta.namespace_, x->meta.name, y->meta.namespace_, y->meta.name);
}

static int cmp_workload(const void *a, const void *b, void *in) {
    const ms_workload *x = *(ms_workload *const *)a, *y = *(ms_workload *const *)b;
    if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
    return cmp_keys(in, x->meta.namespace_, x->meta.name, y->meta.namespace_, y->meta.name);
}

static bool take_volumes(ms_scheduler *s, ms_cluster_view *v) {
    uint32_t n = 0;
    for (int k = 0; k < MS_SK_COUNT; k++) n += ms_volume_store_count(s->volumes, (ms_storage_kind)k);
    v->volumes = calloc(n + 1, sizeof *v->volumes);
    if (!v->volumes) return false;
    for (int k = 0; k < MS_SK_COUNT; k++) {
        const ms_storage_object *o;
        for (size_t it = 0; v->nvolumes < n && (o = ms_volume_store_next(s->volumes, (ms_storage_kind)k, &it));)
            v->volumes[v->nvolumes++] = ms_storage_ref((ms_storage_object *)o);
    }
    return true;
}

static bool take_nodes(ms_scheduler *s, collect *c) {
    ms_cluster_view *v = c->v;
    uint32_t n = ms_cache_node_count(s->cache);
    v->nodes = calloc(n + 1, sizeof *v->nodes);
    if (!v->nodes) return false;
    for (uint32_t i = 0; i < n; i++) {
        const ms_node_info *ni = ms_cache_node_at(s->cache, i);
        if (!ni || !ni->node) continue;
        v->nodes[v->nnodes++] = ms_node_ref(ni->node);
        for (uint32_t k = 0; k < ni->npods; k++)
            if (!push_pod(c, ni->pods[k])) return false;
    }
    return true;
}

static bool take_namespaces(ms_scheduler *s, ms_cluster_view *v) {
    v->namespaces = calloc(ms_namespaces_count(&s->namespaces) + 1, sizeof *v->namespaces);
    if (!v->namespaces) return false;
    const ms_namespace *ns;
    for (size_t it = 0; (ns = ms_namespaces_next(&s->namespaces, &it));)
        v->namespaces[v->nnamespaces++] = ms_namespace_ref((ms_namespace *)ns);
    return true;
}

ms_rc ms_scheduler_view(ms_scheduler *s, ms_cluster_view *out) {
    memset(out, 0, sizeof *out);
    out->in = s->in;
    collect c = {.v = out, .cache = s->cache};
    bool ok = take_namespaces(s, out) && take_nodes(s, &c) && take_volumes(s, out);
    out->nbound = out->npods;
    if (ok) {
        ms_pdb_set_each(s->pdbs, add_pdb, &c);
        ms_workload_set_each(s->workloads, add_workload, &c);
        ms_queue_each(s->queue, add_pending, &c);
    }
    if (!ok || c.oom) {
        ms_cluster_view_free(out);
        return MS_ENOMEM;
    }
    qsort_r(out->namespaces, out->nnamespaces, sizeof *out->namespaces, cmp_ns, s->in);
    qsort_r(out->nodes, out->nnodes, sizeof *out->nodes, cmp_node, s->in);
    /* PDBs, workloads and pods are grown one at a time: NULL when there
     * is none, which qsort_r may not take */
    if (out->npdbs) qsort_r(out->pdbs, out->npdbs, sizeof *out->pdbs, cmp_pdb, s->in);
    if (out->nworkloads) qsort_r(out->workloads, out->nworkloads, sizeof *out->workloads, cmp_workload, s->in);
    qsort_r(out->volumes, out->nvolumes, sizeof *out->volumes, cmp_volume, s->in);
    if (out->npods) {
        qsort_r(out->pods, out->nbound, sizeof *out->pods, cmp_pod, s->in);
        qsort_r(out->pods + out->nbound, out->npods - out->nbound, sizeof *out->pods, cmp_pod, s->in);
    }
    return MS_OK;
}

void ms_cluster_view_free(ms_cluster_view *v) {
    for (uint32_t i = 0; i < v->nnamespaces; i++) ms_namespace_unref(v->namespaces[i]);
    for (uint32_t i = 0; i < v->nnodes; i++) ms_node_unref(v->nodes[i]);
    for (uint32_t i = 0; i < v->npdbs; i++) ms_pdb_unref(v->pdbs[i]);
    for (uint32_t i = 0; i < v->npods; i++) ms_pod_unref(v->pods[i]);
    for (uint32_t i = 0; i < v->nvolumes; i++) ms_storage_unref(v->volumes[i]);
    for (uint32_t i = 0; i < v->nworkloads; i++) ms_workload_unref(v->workloads[i]);
    free(v->workloads);
    free(v->volumes);
    free(v->namespaces);
    free(v->nodes);
    free(v->pdbs);
    free(v->pods);
    memset(v, 0, sizeof *v);
}
