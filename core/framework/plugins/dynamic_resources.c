/* DynamicResources (upstream's plugin for resource.k8s.io claims, in the
 * default profile since DRA went GA in 1.34). A pod with claims may only
 * be bound once every claim is allocated and reserved for it; binding it
 * otherwise gives a pod that never starts.
 *
 * As upstream: PreEnqueue keeps the pod out of activeQ while one of its
 * claims does not exist (a template's claim not generated yet, a named
 * claim not known, one being deleted, a generated one the pod does not
 * own); PreFilter refuses a claim in use by too many consumers, and
 * collects where allocated claims are available; Filter keeps the nodes
 * their allocation's node selector allows and allocates the other claims
 * there; Reserve keeps the allocation in flight; PreBind writes it (into
 * the store, or through the claim writer to the API server) before the pod
 * is bound. Without the objects (a server without resource.k8s.io)
 * PreFilter refuses a pod with claims, so that none is bound with its
 * devices missing. Pods without claims skip the plugin in PreFilter and
 * cost nothing per node. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/snapshot.h"
#include "base/buf.h"
#include "builtin.h"
#include "dynamic_resources.h"
#include "framework/claim_writer.h"

/* Said once per pod (PreFilter), so FailedScheduling reads "0/N nodes are
 * available: <this>." */
#define NOT_ALLOCATABLE "pod has resource claims, which moonsched cannot allocate yet"

/* upstream's resourceapi.ResourceClaimReservedForMaxSize */
#define RESERVED_FOR_MAX 256

/* How long PreBind waits, in `run`, for the informers to show the claims
 * it wrote (upstream's bindClaim waits for its own API calls instead). */
#define WRITE_TIMEOUT 60.0

typedef struct dynamic_resources {
    const ms_handle *h;
    ms_buf reason;                 /* PreEnqueue's last refusal */
    /* Devices in use: by the allocated claims and by the allocations
     * reserved and not yet written (in_flight: device key -> the pod, as
     * upstream's in-flight allocations). Rebuilt from the store when
     * someone else changed it (allocated_at: the store's version then);
     * this plugin's own reservations and writes keep it current. */
    ms_map allocated;
    uint64_t allocated_at;
    ms_map in_flight;
    ms_map claims_in_flight;       /* claim uid hash -> the pod allocating it */
    ms_arena scratch;              /* one node's allocation in Filter */
} dynamic_resources;

/* PreFilter's findings: the allocated claims whose allocation names the
 * nodes it is available on, and the claims to allocate. */
typedef struct dr_state {
    uint32_t n;
    const ms_node_selector **on_nodes;
    dr_alloc alloc;                /* nclaims 0: nothing to allocate */
    /* Reserve's allocation on its node, written by PreBind */
    dr_pick *picks;
    uint32_t npicks;
    bool sent;                     /* PreBind handed the claims to the writer */
} dr_state;

static ms_rc dynamic_resources_create(const cJSON *args, const ms_handle *h, void **self, ms_error *err) {
    (void)args;
    dynamic_resources *p = calloc(1, sizeof *p);
    if (!p) return ms_error_set(err, MS_ENOMEM, "out of memory");
    p->h = h;
    ms_map_init(&p->allocated);
    ms_map_init(&p->in_flight);
    ms_map_init(&p->claims_in_flight);
    ms_arena_init(&p->scratch, 4096);
    *self = p;
    return MS_OK;
}

static void dynamic_resources_destroy(void *self) {
    dynamic_resources *p = self;
    if (!p) return;
    ms_buf_free(&p->reason);
    ms_map_free(&p->allocated);
    ms_map_free(&p->in_flight);
    ms_map_free(&p->claims_in_flight);
    ms_arena_free(&p->scratch);
    free(p);
}

__attribute__((format(printf, 2, 3))) static bool says(ms_buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    ms_buf_reset(b);
    ms_buf_vprintf(b, fmt, ap);
    va_end(ap);
    return false;
}

/* A generated claim must be controlled by the pod (upstream's IsForPod). */
static bool owned_by(const ms_dra_object *claim, const ms_pod *pod) {
    const ms_owner_ref *owner = ms_meta_controller(&claim->meta);
    return owner && strcmp(owner->uid, pod->meta.uid) == 0;
}

/* upstream's foreachPodResourceClaim (h->dra set): the claim of each spec.resourceClaims
 * entry into claims[i] when claims is set (NULL: a template entry that
 * needed no claim). On a problem, false with upstream's words in b. */
static bool pod_claims(const ms_handle *h, const ms_pod *pod, const ms_dra_object **claims, ms_buf *b) {
    const ms_interner *in = h->in;
    const char *ns = ms_str_get(in, pod->meta.namespace_), *podname = ms_str_get(in, pod->meta.name);
    for (uint32_t i = 0; i < pod->nresource_claims; i++) {
        const ms_pod_resource_claim *rc = &pod->resource_claims[i];
        ms_str name = rc->claim_name;
        bool generated = name == MS_STR_NONE;
        if (claims) claims[i] = NULL;
        if (generated) {
            const ms_pod_resource_claim_status *st = NULL;
            for (uint32_t k = 0; k < pod->nresource_claim_statuses && !st; k++)
                if (pod->resource_claim_statuses[k].name == rc->name) st = &pod->resource_claim_statuses[k];
            if (!st) return says(b, "pod \"%s/%s\": ResourceClaim not created yet", ns, podname);
            if (st->claim_name == MS_STR_NONE) continue;
            name = st->claim_name;
        }
        const ms_dra_object *claim = ms_dra_store_get(h->dra, MS_DK_RESOURCE_CLAIM, pod->meta.namespace_, name);
        const char *cname = ms_str_get(in, name);
        if (!claim) return says(b, "could not find ResourceClaim \"%s/%s\"", ns, cname);
        if (claim->meta.deletion != 0) return says(b, "resourceclaim \"%s\" is being deleted", cname);
        if (generated && !owned_by(claim, pod))
            return says(b, "ResourceClaim %s was not created for pod %s/%s (pod is not owner)", cname, ns, podname);
        if (claims) claims[i] = claim;
    }
    return true;
}

static bool dynamic_resources_pre_enqueue(void *self, const ms_pod *pod, const char **reason) {
    dynamic_resources *p = self;
    /* Without the objects nothing can be said here; PreFilter refuses. */
    if (pod->nresource_claims == 0 || !p->h->dra) return true;
    if (pod_claims(p->h, pod, NULL, &p->reason)) return true;
    *reason = p->reason.data ? p->reason.data : "waiting for resource claims";
    return false;
}

static bool reserved_for(const ms_resource_claim *c, const ms_pod *pod, const ms_interner *in) {
    for (uint32_t i = 0; i < c->nreserved_for; i++) {
        const ms_claim_consumer *r = &c->reserved_for[i];
        if (r->api_group == MS_STR_NONE && strcmp(ms_str_get(in, r->resource), "pods") == 0 &&
            strcmp(r->uid, pod->meta.uid) == 0)
            return true;
    }
    return false;
}

static bool pending_elsewhere(const dynamic_resources *p, const ms_dra_object *claim, const ms_pod *pod) {
    const void *who = ms_map_get(&p->claims_in_flight, claim->meta.uid_hash);
    return who && who != pod;
}

/* The devices of every allocated claim, and those in flight, when the
 * store changed since they were collected. */
static void collect_allocated(dynamic_resources *p) {
    uint64_t version = ms_dra_store_version(p->h->dra);
    if (p->allocated_at == version && version) return;
    p->allocated_at = version;
    ms_map_clear(&p->allocated);
    const ms_dra_object *o;
    for (size_t it = 0; ms_dra_store_next(p->h->dra, MS_DK_RESOURCE_CLAIM, &it, &o);) {
        const ms_resource_claim *c = &o->u.claim;
        for (uint32_t k = 0; c->allocated && k < c->nresults; k++)
            if (!c->results[k].admin_access)
                ms_map_put(&p->allocated, ms_dr_device_key(c->results[k].driver, c->results[k].pool, c->results[k].device),
                           (void *)o);
    }
    uint64_t key;
    void *v;
    for (size_t it = 0; ms_map_next(&p->in_flight, &it, &key, &v);) ms_map_put(&p->allocated, key, v);
}

static ms_code refuse(ms_cycle *c, ms_status *st, const char *text) {
    const char *s = ms_arena_strdup(c->arena, text);
    return ms_status_set(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE, s ? s : "out of memory");
}

static ms_code dynamic_resources_pre_filter(void *self, ms_cycle *c, ms_status *st) {
    dynamic_resources *p = self;
    const ms_pod *pod = c->pod;
    uint32_t n = pod->nresource_claims;
    if (n == 0) return MS_SKIP;
    if (!p->h->dra) return ms_status_set(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE, NOT_ALLOCATABLE);
    const ms_dra_object **claims = MS_ARENA_NEW(c->arena, const ms_dra_object *, n);
    dr_state *s = MS_ARENA_NEW(c->arena, dr_state, 1);
    const ms_node_selector **on_nodes = MS_ARENA_NEW(c->arena, const ms_node_selector *, n);
    if (!claims || !s || !on_nodes) return ms_status_set(st, MS_ERROR, "out of memory");
    if (!pod_claims(p->h, pod, claims, &p->reason)) return refuse(c, st, p->reason.data);
    *s = (dr_state){.on_nodes = on_nodes, .alloc = {.in = p->h->in}};
    uint32_t nalloc = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!claims[i]) continue;
        const ms_resource_claim *claim = &claims[i]->u.claim;
        if (!claim->allocated) {
            /* A claim being allocated for another pod: wait for it (upstream). */
            if (pending_elsewhere(p, claims[i], pod))
                return refuse(c, st, "resource claim is in the process of being allocated");
            claims[nalloc++] = claims[i];
            continue;
        }
        /* Resource is in use: the pod has to wait (upstream). */
        if (claim->nreserved_for >= RESERVED_FOR_MAX && !reserved_for(claim, pod, p->h->in))
            return ms_status_set(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE, "resourceclaim in use");
        if (claim->has_node_selector) s->on_nodes[s->n++] = &claim->node_selector;
    }
    if (nalloc) {
        const char *why = NULL;
        ms_code code = ms_dr_prepare(&s->alloc, p->h->dra, claims, nalloc, c->arena, &why);
        if (code != MS_SUCCESS) return ms_status_set(st, code, why ? why : "out of memory");
        collect_allocated(p);
        s->alloc.allocated = &p->allocated;
    }
    if (s->n == 0 && nalloc == 0) return MS_SKIP;
    c->state[c->current] = s;
    return MS_SUCCESS;
}

static ms_code dynamic_resources_filter(void *self, ms_cycle *c, const ms_node_info *ni, ms_status *st) {
    dynamic_resources *p = self;
    const dr_state *s = c->state[c->current];
    if (!s || !ni->node) return MS_SUCCESS;
    for (uint32_t i = 0; i < s->n; i++)
        if (!ms_node_selector_matches(s->on_nodes[i], &ni->node->meta.labels, ni->name, p->h->in))
            return ms_status_set(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE, "resourceclaim not available on the node");
    if (s->alloc.nclaims == 0) return MS_SUCCESS;
    ms_arena_reset(&p->scratch);
    dr_pick *picks;
    uint32_t npicks;
    const char *why = NULL;
    ms_code code = ms_dr_allocate(&s->alloc, ni, &p->scratch, &picks, &npicks, &why);
    if (code == MS_ERROR) return refuse(c, st, why ? why : "out of memory");
    if (code != MS_SUCCESS) return ms_status_set(st, code, "cannot allocate all claims");
    return MS_SUCCESS;
}

/* Reserve: the allocation on the chosen node, kept in memory (in flight)
 * until PreBind writes it, so that the next pods do not take its devices. */
static ms_code dynamic_resources_reserve(void *self, ms_cycle *c, ms_str node, ms_status *st) {
    dynamic_resources *p = self;
    dr_state *s = c->state[c->current];
    if (!s || s->alloc.nclaims == 0) return MS_SUCCESS;
    const ms_node_info *ni = ms_snapshot_get(c->snap, node);
    const char *why = NULL;
    ms_code code = ni ? ms_dr_allocate(&s->alloc, ni, c->arena, &s->picks, &s->npicks, &why) : MS_ERROR;
    if (code != MS_SUCCESS) return ms_status_set(st, MS_ERROR, why ? why : "cannot allocate all claims");
    for (uint32_t k = 0; k < s->npicks; k++) {
        const dr_pick *pk = &s->picks[k];
        const ms_resource_slice *rs = &pk->slice->u.slice;
        if (pk->admin) continue;
        uint64_t key = ms_dr_device_key(rs->driver, rs->pool, pk->device->name);
        ms_map_put(&p->in_flight, key, c->pod);
        ms_map_put(&p->allocated, key, c->pod);
    }
    for (uint32_t i = 0; i < s->alloc.nclaims; i++)
        ms_map_put(&p->claims_in_flight, s->alloc.claims[i].obj->meta.uid_hash, c->pod);
    return MS_SUCCESS;
}

/* released: the devices are free again (Unreserve), not now allocated in
 * the store (PreBind). */
static void forget_in_flight(dynamic_resources *p, const ms_pod *pod, bool released) {
    ms_map *maps[2] = {&p->in_flight, &p->claims_in_flight};
    for (int m = 0; m < 2; m++) {
        uint64_t key;
        void *v;
        for (size_t it = 0; ms_map_next(maps[m], &it, &key, &v);) {
            if (v != pod) continue;
            ms_map_del(maps[m], key);
            if (released && m == 0) ms_map_del(&p->allocated, key);
        }
    }
}

static bool reserved_for_pod(const ms_resource_claim *c, const ms_pod *pod);

/* After PreBind's writes (run): the claims the informers show reserved for
 * the pod lose it again (upstream's Unreserve). */
static void unreserve_written(dynamic_resources *p, ms_cycle *c) {
    const ms_claim_writer *w = p->h->claim_writer;
    const ms_pod *pod = c->pod;
    const ms_dra_object **claims = MS_ARENA_NEW(c->arena, const ms_dra_object *, pod->nresource_claims);
    if (!w->unreserve || !claims || !pod_claims(p->h, pod, claims, &p->reason)) return;
    uint32_t n = 0;
    for (uint32_t i = 0; i < pod->nresource_claims; i++)
        if (claims[i] && claims[i]->u.claim.allocated && reserved_for_pod(&claims[i]->u.claim, pod))
            claims[n++] = claims[i];
    if (n) w->unreserve(w->ctx, pod, claims, n);
}

static void dynamic_resources_unreserve(void *self, ms_cycle *c, ms_str node) {
    (void)node;
    dynamic_resources *p = self;
    const dr_state *s = c->state[c->current];
    if (s && s->sent && p->h->claim_writer) unreserve_written(p, c);
    forget_in_flight(p, c->pod, true);
}


/* ---- PreBind: the claims' status, as the API would store it ---- */

static bool reserved_for_pod(const ms_resource_claim *c, const ms_pod *pod) {
    for (uint32_t i = 0; i < c->nreserved_for; i++)
        if (strcmp(c->reserved_for[i].uid, pod->meta.uid) == 0 && c->reserved_for[i].name == pod->meta.name) return true;
    return false;
}

/* A copy of `claim` reserved for the pod and, when `picks` (npicks of
 * claim index ci) are given, allocated with them on `node`. */
static ms_dra_object *written(const dynamic_resources *p, const ms_dra_object *claim, const ms_pod *pod, const dr_pick *picks,
                              uint32_t npicks, uint32_t ci, ms_str node) {
    ms_dra_object *o = ms_dra_copy((ms_dra_object *)claim);
    if (!o) return NULL;
    ms_resource_claim *c = &o->u.claim;
    ms_interner *in = p->h->in;
    if (picks) {
        uint32_t n = 0;
        bool local = true;
        for (uint32_t k = 0; k < npicks; k++) n += picks[k].claim == ci;
        c->results = n ? MS_ARENA_NEW(&o->arena, ms_device_result, n) : NULL;
        c->nresults = 0;
        for (uint32_t k = 0; k < npicks && c->results; k++) {
            if (picks[k].claim != ci) continue;
            const ms_resource_slice *rs = &picks[k].slice->u.slice;
            c->results[c->nresults++] = (ms_device_result){picks[k].request, rs->driver, rs->pool, picks[k].device->name,
                                                           picks[k].admin};
            local &= rs->node_name == node || picks[k].device->node_name == node;
        }
        c->allocated = true;
        /* node-local devices: the allocation is available on that node only */
        c->has_node_selector = local && n > 0;
        if (c->has_node_selector) {
            ms_node_selector_term *t = MS_ARENA_NEW(&o->arena, ms_node_selector_term, 1);
            ms_requirement *r = MS_ARENA_NEW(&o->arena, ms_requirement, 1);
            ms_str *v = MS_ARENA_NEW(&o->arena, ms_str, 1);
            if (!t || !r || !v) {
                ms_dra_unref(o);
                return NULL;
            }
            *v = node;
            *r = (ms_requirement){.key = ms_intern_cstr(in, "metadata.name"), .op = MS_OP_IN, .nvalues = 1, .values = v,
                                  .number = 1};
            *t = (ms_node_selector_term){.nfields = 1, .fields = r};
            c->node_selector = (ms_node_selector){1, t};
        }
    }
    if (!reserved_for_pod(&claim->u.claim, pod)) {
        ms_claim_consumer *rf = MS_ARENA_NEW(&o->arena, ms_claim_consumer, c->nreserved_for + 1);
        if (!rf) {
            ms_dra_unref(o);
            return NULL;
        }
        if (c->nreserved_for) memcpy(rf, c->reserved_for, c->nreserved_for * sizeof *rf);
        rf[c->nreserved_for++] = (ms_claim_consumer){MS_STR_NONE, ms_intern_cstr(in, "pods"), pod->meta.name,
                                                     pod->meta.uid};
        c->reserved_for = rf;
    }
    return o;
}

/* Whether claim `obj` is allocated in this cycle (its index in the
 * state's claims to allocate, or UINT32_MAX). */
static uint32_t allocating(const dr_state *s, const ms_dra_object *obj) {
    for (uint32_t k = 0; s && k < s->alloc.nclaims; k++)
        if (s->alloc.claims[k].obj == obj) return k;
    return UINT32_MAX;
}

/* run: the claims as the informers show them now. Done when every one is
 * reserved for the pod (and allocated, where Reserve allocated it). */
static ms_code claims_written(dynamic_resources *p, ms_cycle *c, double *timeout, ms_status *st) {
    const ms_pod *pod = c->pod;
    bool deadline = *timeout < 0;
    const ms_dra_object **claims = MS_ARENA_NEW(c->arena, const ms_dra_object *, pod->nresource_claims);
    if (!claims) return ms_status_set(st, MS_ERROR, "out of memory");
    if (!pod_claims(p->h, pod, claims, &p->reason))
        return ms_status_set(st, MS_ERROR, ms_arena_strdup(c->arena, p->reason.data));
    /* reservedFor needs an allocation (the API server checks): a claim
     * reserved for the pod is allocated too */
    bool done = true;
    for (uint32_t i = 0; i < pod->nresource_claims && done; i++)
        if (claims[i] && !reserved_for_pod(&claims[i]->u.claim, pod)) done = false;
    if (done) {
        forget_in_flight(p, pod, false);
        return MS_SUCCESS;
    }
    if (deadline) return ms_status_set(st, MS_ERROR, "binding claims: timed out waiting for the claims' status");
    *timeout = WRITE_TIMEOUT;
    return ms_status_set(st, MS_WAIT, "waiting for the claims' status to be written");
}

/* PreBind writes status.allocation of the claims allocated in Reserve and
 * adds the pod to every claim's status.reservedFor (upstream's bindClaim):
 * into the store where the scheduler holds the only copy (simulate), or
 * through the claim writer to the API server (run), then waits for the
 * informers to show them. */
static ms_code dynamic_resources_pre_bind(void *self, ms_cycle *c, ms_str node, double *timeout, ms_status *st) {
    dynamic_resources *p = self;
    const ms_pod *pod = c->pod;
    if (pod->nresource_claims == 0 || !p->h->dra) return MS_SUCCESS;
    dr_state *s = c->state[c->current];
    const ms_claim_writer *w = p->h->claim_writer;
    if (w && s && s->sent) return claims_written(p, c, timeout, st);
    const ms_dra_object **claims = MS_ARENA_NEW(c->arena, const ms_dra_object *, pod->nresource_claims);
    ms_claim_write *writes = MS_ARENA_NEW(c->arena, ms_claim_write, pod->nresource_claims);
    if (!claims || !writes || !pod_claims(p->h, pod, claims, &p->reason))
        return ms_status_set(st, MS_ERROR, claims && writes ? ms_arena_strdup(c->arena, p->reason.data) : "out of memory");
    bool current = p->allocated_at == ms_dra_store_version(p->h->dra);
    uint32_t nwrites = 0;
    ms_code code = MS_SUCCESS;
    for (uint32_t i = 0; i < pod->nresource_claims && code == MS_SUCCESS; i++) {
        if (!claims[i]) continue;
        uint32_t ci = allocating(s, claims[i]);
        ms_dra_object *o = written(p, claims[i], pod, ci == UINT32_MAX ? NULL : s->picks, s ? s->npicks : 0, ci, node);
        if (!o) code = ms_status_set(st, MS_ERROR, "out of memory");
        else if (w) writes[nwrites++] = (ms_claim_write){claims[i], o, ci != UINT32_MAX};
        else if (ms_dra_store_set(p->h->dra, o) < 0) code = ms_status_set(st, MS_ERROR, "out of memory");
        if (o && !w) ms_dra_unref(o);
    }
    if (w) {
        ms_error err = {0};
        if (code == MS_SUCCESS && nwrites && w->write(w->ctx, pod, writes, nwrites, &err) != MS_OK)
            code = ms_status_set(st, MS_ERROR, ms_arena_strdup(c->arena, err.msg));
        for (uint32_t k = 0; k < nwrites; k++) ms_dra_unref((ms_dra_object *)writes[k].status);
        if (code != MS_SUCCESS || nwrites == 0) return code;
        if (!s) {
            /* PreFilter kept no state (every claim allocated already) */
            s = MS_ARENA_NEW(c->arena, dr_state, 1);
            if (!s) return ms_status_set(st, MS_ERROR, "out of memory");
            *s = (dr_state){0};
            c->state[c->current] = s;
        }
        s->sent = true;
        return claims_written(p, c, timeout, st);
    }
    if (code != MS_SUCCESS) return code;
    /* Its own writes: their devices are in `allocated` already. */
    if (current) p->allocated_at = ms_dra_store_version(p->h->dra);
    forget_in_flight(p, pod, false);
    return MS_SUCCESS;
}

const ms_plugin_ops ms_plugin_dynamic_resources = {
    .name = "DynamicResources",
    /* upstream's EventsToRegister: the pod's own update (its generated
     * claim named in status.resourceClaimStatuses), a node added or
     * relabelled, a claim, slice or class added or updated. */
    .events = MS_EV_UNSCHEDULED_POD_UPDATE | MS_EV_NODE_ADD | MS_EV_NODE_LABEL | MS_EV_RESOURCE_CLAIM |
              MS_EV_RESOURCE_SLICE | MS_EV_DEVICE_CLASS,
    .create = dynamic_resources_create,
    .destroy = dynamic_resources_destroy,
    .pre_enqueue = dynamic_resources_pre_enqueue,
    .pre_filter = dynamic_resources_pre_filter,
    .filter = dynamic_resources_filter,
    .reserve = dynamic_resources_reserve,
    .unreserve = dynamic_resources_unreserve,
    .pre_bind = dynamic_resources_pre_bind,
};
