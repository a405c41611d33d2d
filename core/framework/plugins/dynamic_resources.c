/* DynamicResources (upstream's plugin for resource.k8s.io claims, in the
 * default profile since DRA went GA in 1.34). A pod with claims may only
 * be bound once every claim is allocated and reserved for it; binding it
 * otherwise gives a pod that never starts.
 *
 * As upstream: PreEnqueue keeps the pod out of activeQ while one of its
 * claims does not exist; PreFilter refuses a claim in use by too many
 * consumers and prepares the claims to allocate; Filter keeps the nodes
 * where allocated claims are available and allocates the others (the
 * structured allocator, dynamic_resources_allocator.c); Reserve keeps the
 * allocation in flight (a device policy may choose it), PreBind writes it
 * (into the store, or through the claim writer to the API server) before
 * the pod is bound; PostFilter deallocates a claim available elsewhere
 * only. Beyond upstream, preemption may free devices: see Filter. Without
 * the objects (a server without resource.k8s.io) PreFilter refuses every
 * pod with claims, so that none is bound with its devices missing. Pods
 * without claims skip the plugin in PreFilter and cost nothing per node. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cache_snapshot.h"
#include "backend/queue.h"
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
    ms_map freed;                  /* Filter: devices pods on the node would free */
    dr_slices slices;              /* the usable slices, kept across cycles */
    const ms_dra_hooks *hooks;     /* a device policy's choice in Reserve, or NULL */
} dynamic_resources;

/* PreFilter's findings: the allocated claims whose allocation names the
 * nodes it is available on, and the claims to allocate. */
typedef struct dr_state {
    uint32_t n;
    const ms_node_selector **on_nodes;
    const ms_dra_object **on_claims;   /* the claim of each on_nodes[i] */
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
    ms_map_init(&p->freed);
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
    ms_map_free(&p->freed);
    ms_dr_slices_free(&p->slices);
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
    ms_str *refs = MS_ARENA_NEW(c->arena, ms_str, n);
    dr_state *s = MS_ARENA_NEW(c->arena, dr_state, 1);
    const ms_node_selector **on_nodes = MS_ARENA_NEW(c->arena, const ms_node_selector *, n);
    const ms_dra_object **on_claims = MS_ARENA_NEW(c->arena, const ms_dra_object *, n);
    if (!claims || !refs || !s || !on_nodes || !on_claims) return ms_status_set(st, MS_ERROR, "out of memory");
    if (!pod_claims(p->h, pod, claims, &p->reason)) return refuse(c, st, p->reason.data);
    *s = (dr_state){.on_nodes = on_nodes, .on_claims = on_claims, .alloc = {.in = p->h->in}};
    uint32_t nalloc = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!claims[i]) continue;
        const ms_resource_claim *claim = &claims[i]->u.claim;
        if (!claim->allocated) {
            /* A claim being allocated for another pod: wait for it (upstream). */
            if (pending_elsewhere(p, claims[i], pod))
                return refuse(c, st, "resource claim is in the process of being allocated");
            refs[nalloc] = pod->resource_claims[i].name;
            claims[nalloc++] = claims[i];
            continue;
        }
        /* Resource is in use: the pod has to wait (upstream). */
        if (claim->nreserved_for >= RESERVED_FOR_MAX && !reserved_for(claim, pod, p->h->in))
            return ms_status_set(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE, "resourceclaim in use");
        if (claim->has_node_selector) {
            s->on_claims[s->n] = claims[i];
            s->on_nodes[s->n++] = &claim->node_selector;
        }
    }
    if (nalloc) {
        const char *why = NULL;
        ms_code code = ms_dr_prepare(&s->alloc, p->h->dra, &p->slices, claims, nalloc, c->arena, &why);
        if (code != MS_SUCCESS) return ms_status_set(st, code, why ? why : "out of memory");
        for (uint32_t k = 0; k < nalloc; k++) s->alloc.claims[k].ref = refs[k];
        collect_allocated(p);
        s->alloc.allocated = &p->allocated;
    }
    if (s->n == 0 && nalloc == 0) return MS_SKIP;
    c->state[c->current] = s;
    return MS_SUCCESS;
}

static bool reserved_for_pod(const ms_resource_claim *c, const ms_pod *pod) {
    for (uint32_t i = 0; i < c->nreserved_for; i++)
        if (strcmp(c->reserved_for[i].uid, pod->meta.uid) == 0 && c->reserved_for[i].name == pod->meta.name) return true;
    return false;
}

static bool among(ms_pod *const *pods, uint32_t n, const char *uid) {
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(pods[i]->meta.uid, uid) == 0) return true;
    return false;
}

/* Into out, the devices of the claims of pods[0..n) reserved for none but
 * them: gone with those pods, as the resourceclaim controller deallocates
 * a claim reserved for nobody. */
static void held_only_by(const dynamic_resources *p, ms_pod *const *pods, uint32_t n, ms_map *out) {
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < pods[i]->nresource_claims; k++) {
            const ms_dra_object *o = ms_dra_store_pod_claim(p->h->dra, pods[i], k);
            const ms_resource_claim *cl = o ? &o->u.claim : NULL;
            if (!cl || !cl->allocated || cl->nreserved_for == 0) continue;
            bool only = true;
            for (uint32_t r = 0; r < cl->nreserved_for && only; r++) only = among(pods, n, cl->reserved_for[r].uid);
            for (uint32_t r = 0; only && r < cl->nresults; r++)
                if (!cl->results[r].admin_access)
                    ms_map_put(out, ms_dr_device_key(cl->results[r].driver, cl->results[r].pool, cl->results[r].device),
                               (void *)o);
        }
}

/* The pods of the snapshot's node that a dry run's copy `ni` lacks (the
 * victims being tried), from the arena; *n of them. */
static ms_pod **removed_pods(ms_cycle *c, const ms_node_info *ni, uint32_t *n) {
    *n = 0;
    const ms_node_info *orig = ms_snapshot_get(c->snap, ni->name);
    if (!orig || orig == ni || orig->npods == 0) return NULL;
    ms_pod **out = MS_ARENA_NEW(c->arena, ms_pod *, orig->npods);
    for (uint32_t i = 0; out && i < orig->npods; i++) {
        bool kept = false;
        for (uint32_t k = 0; k < ni->npods && !kept; k++) kept = ni->pods[k] == orig->pods[i];
        if (!kept) out[(*n)++] = orig->pods[i];
    }
    return out;
}

/* Preemption evicts only pods of lower priority. */
static bool lower_priority_on(const ms_node_info *ni, const ms_pod *pod) {
    for (uint32_t i = 0; i < ni->npods; i++)
        if (ni->pods[i]->priority < pod->priority) return true;
    return false;
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
    dr_alloc al = s->alloc;
    if (ni->scratch) {
        /* a preemption dry run: the devices only its victims hold are free */
        uint32_t n;
        ms_pod **gone = removed_pods(c, ni, &n);
        ms_map_clear(&p->freed);
        held_only_by(p, gone, n, &p->freed);
        al.freed = &p->freed;
    }
    ms_code code = ms_dr_allocate(&al, ni, &p->scratch, &picks, &npicks, &why);
    if (code == MS_ERROR) return refuse(c, st, why ? why : "out of memory");
    if (code == MS_SUCCESS) return MS_SUCCESS;
    if (!ni->scratch && lower_priority_on(ni, c->pod)) {
        /* Beyond upstream (unresolvable here): when the devices the pods of
         * the node hold would do, and some have a lower priority,
         * preemption may help; its dry runs count what the victims free. */
        ms_map_clear(&p->freed);
        held_only_by(p, ni->pods, ni->npods, &p->freed);
        al.freed = &p->freed;
        ms_arena_reset(&p->scratch);
        if (p->freed.len > 0 && ms_dr_allocate(&al, ni, &p->scratch, &picks, &npicks, &why) == MS_SUCCESS) {
            ms_status_set(st, MS_UNSCHEDULABLE, "cannot allocate all claims");
            if (c->explaining) ms_status_add_reason(st, ms_dr_explain(&s->alloc, ni, c->arena));
            return MS_UNSCHEDULABLE;
        }
    }
    ms_status_set(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE, "cannot allocate all claims");
    if (c->explaining) ms_status_add_reason(st, ms_dr_explain(&s->alloc, ni, c->arena));
    return MS_UNSCHEDULABLE_AND_UNRESOLVABLE;
}

/* A device policy chooses among the ways the claims can be allocated on
 * the node (once per pod: Filter only asked whether one exists). */
static ms_code policy_choice(const dynamic_resources *p, ms_cycle *c, dr_state *s, const ms_node_info *ni,
                             ms_status *st) {
    dr_option *opts;
    uint32_t n;
    const char *why = NULL;
    ms_code code = ms_dr_enumerate(&s->alloc, ni, c->arena, MS_DR_MAX_OPTIONS, &opts, &n, &why);
    if (code != MS_SUCCESS) return ms_status_set(st, MS_ERROR, why ? why : "cannot allocate all claims");
    uint32_t chosen = 0;
    if (n > 1) {
        ms_device_option *views = MS_ARENA_NEW(c->arena, ms_device_option, n);
        if (!views) return ms_status_set(st, MS_ERROR, "out of memory");
        for (uint32_t i = 0; i < n; i++) {
            ms_device_pick *dp = opts[i].npicks ? MS_ARENA_NEW(c->arena, ms_device_pick, opts[i].npicks) : NULL;
            if (opts[i].npicks && !dp) return ms_status_set(st, MS_ERROR, "out of memory");
            for (uint32_t k = 0; k < opts[i].npicks; k++) {
                const dr_pick *pk = &opts[i].picks[k];
                const ms_resource_slice *rs = &pk->slice->u.slice;
                dp[k] = (ms_device_pick){s->alloc.claims[pk->claim].ref, pk->request, rs->driver, rs->pool, pk->device};
            }
            views[i] = (ms_device_option){dp, opts[i].npicks};
        }
        code = p->hooks->pick(p->hooks->ctx, c, ni, views, n, &chosen, st);
        if (code == MS_ERROR) return code;
        if (code != MS_SUCCESS || chosen >= n) chosen = 0;
    }
    s->picks = opts[chosen].picks;
    s->npicks = opts[chosen].npicks;
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
    ms_code code;
    if (ni && p->hooks && p->hooks->pick && (!p->hooks->wants || p->hooks->wants(p->hooks->ctx))) {
        if ((code = policy_choice(p, c, s, ni, st)) != MS_SUCCESS) return code;
    } else {
        code = ni ? ms_dr_allocate(&s->alloc, ni, c->arena, &s->picks, &s->npicks, &why) : MS_ERROR;
        if (code != MS_SUCCESS) return ms_status_set(st, MS_ERROR, why ? why : "cannot allocate all claims");
    }
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

/* After PreBind's writes (run): the claims the informers show reserved for
 * the pod lose it again, through the claim writer. */
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

/* Unreserve, as upstream: the allocation in flight is dropped, and after
 * a failed bind the pod leaves the reservedFor of the claims PreBind
 * reserved for it (their allocation stays): on the API server through the
 * claim writer (run), or in the store where the scheduler holds the only
 * copy (simulate). */
static void dynamic_resources_unreserve(void *self, ms_cycle *c, ms_str node) {
    (void)node;
    dynamic_resources *p = self;
    const dr_state *s = c->state[c->current];
    if (p->h->claim_writer) {
        if (s && s->sent) unreserve_written(p, c);
        forget_in_flight(p, c->pod, true);
        return;
    }
    forget_in_flight(p, c->pod, true);
    if (!p->h->dra) return;
    for (uint32_t i = 0; i < c->pod->nresource_claims; i++) {
        const ms_dra_object *o = ms_dra_store_pod_claim(p->h->dra, c->pod, i);
        if (!o || !o->u.claim.allocated || !reserved_for_pod(&o->u.claim, c->pod)) continue;
        ms_dra_object *w = ms_dra_claim_unreserve((ms_dra_object *)o, c->pod->meta.uid, false);
        if (w) ms_dra_store_set(p->h->dra, w);
        ms_dra_unref(w);
    }
}


/* PostFilter, as upstream: the pod fits nowhere, and an allocated claim
 * of it is not available on some node; when no other pod holds that claim,
 * its allocation goes, so that the next attempt allocates it again,
 * perhaps elsewhere: on the API server through the claim writer (run),
 * whose update the informers bring back, or in the store where the
 * scheduler holds the only copy (simulate). A pod
 * without claims gets no reason (upstream says "no new claims to
 * deallocate" in every pod's message). */
static ms_code dynamic_resources_post_filter(void *self, ms_cycle *c, const ms_status *statuses, ms_str *nominated,
                                             ms_status *st) {
    (void)statuses;
    (void)nominated;
    dynamic_resources *p = self;
    const ms_pod *pod = c->pod;
    if (pod->nresource_claims == 0 || !p->h->dra) return ms_status_set(st, MS_UNSCHEDULABLE, NULL);
    const dr_state *s = c->state[c->current];
    if (!s) return ms_status_set(st, MS_UNSCHEDULABLE, "no new claims to deallocate");
    for (uint32_t i = 0; i < s->n; i++) {
        bool unavailable = false;
        for (uint32_t k = 0; k < c->snap->nnodes && !unavailable; k++) {
            const ms_node_info *ni = c->snap->nodes[k];
            unavailable = !ms_node_selector_matches(s->on_nodes[i], &ni->node->meta.labels, ni->name, p->h->in);
        }
        const ms_resource_claim *cl = &s->on_claims[i]->u.claim;
        if (!unavailable ||
            !(cl->nreserved_for == 0 || (cl->nreserved_for == 1 && strcmp(cl->reserved_for[0].uid, pod->meta.uid) == 0)))
            continue;
        const ms_claim_writer *w = p->h->claim_writer;
        if (w) {
            if (!w->deallocate) break;
            w->deallocate(w->ctx, pod, s->on_claims[i]);
            return ms_status_set(st, MS_UNSCHEDULABLE, "deallocation of ResourceClaim completed");
        }
        ms_dra_object *o = ms_dra_copy((ms_dra_object *)s->on_claims[i]);
        if (!o) return ms_status_set(st, MS_ERROR, "out of memory");
        ms_dra_claim_deallocate(o);
        o->u.claim.nreserved_for = 0;
        o->u.claim.reserved_for = NULL;
        int rc = ms_dra_store_set(p->h->dra, o);
        ms_dra_unref(o);
        if (rc < 0) return ms_status_set(st, MS_ERROR, "out of memory");
        /* The claim's update, as its informer would report it: the pod, in
         * flight, goes to backoffQ rather than waiting for another event
         * (the time is when it was queued: no clock here). */
        if (p->h->queue && c->qp) ms_queue_move_on_event(p->h->queue, MS_EV_RESOURCE_CLAIM, c->qp->timestamp);
        return ms_status_set(st, MS_UNSCHEDULABLE, "deallocation of ResourceClaim completed");
    }
    return ms_status_set(st, MS_UNSCHEDULABLE, "still not schedulable");
}

/* ---- PreBind: the claims' status, as the API would store it ---- */

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

bool ms_dynamic_resources_set_hooks(const ms_framework *fw, const ms_dra_hooks *hooks) {
    for (uint32_t i = 0; fw && i < fw->nplugins; i++)
        if (fw->plugins[i].ops == &ms_plugin_dynamic_resources) {
            ((dynamic_resources *)fw->plugins[i].self)->hooks = hooks;
            return true;
        }
    return false;
}

/* Whether the claim named `name` in the pod's namespace is one of the pod's. */
static bool uses_claim(const ms_pod *pod, ms_str namespace_, ms_str name) {
    if (namespace_ != pod->meta.namespace_) return false;
    for (uint32_t i = 0; i < pod->nresource_claims; i++) {
        const ms_pod_resource_claim *rc = &pod->resource_claims[i];
        if (rc->claim_name == name) return true;
        if (rc->claim_name != MS_STR_NONE) continue;
        for (uint32_t k = 0; k < pod->nresource_claim_statuses; k++)
            if (pod->resource_claim_statuses[k].name == rc->name && pod->resource_claim_statuses[k].claim_name == name)
                return true;
    }
    return false;
}

/* The parts of a claim's status the allocator reads. */
static bool same_status(const ms_resource_claim *a, const ms_resource_claim *b) {
    if (a->allocated != b->allocated || a->nresults != b->nresults || a->nreserved_for != b->nreserved_for)
        return false;
    for (uint32_t i = 0; i < a->nresults; i++)
        if (a->results[i].device != b->results[i].device || a->results[i].pool != b->results[i].pool ||
            a->results[i].driver != b->results[i].driver)
            return false;
    for (uint32_t i = 0; i < a->nreserved_for; i++)
        if (strcmp(a->reserved_for[i].uid, b->reserved_for[i].uid) != 0) return false;
    return true;
}

/* upstream's QueueingHint functions: isSchedulableAfterClaimChange for a
 * claim, isSchedulableAfterResourceSliceChange for a slice. A pod whose
 * claims do not all exist yet waits for them, not for devices (the event
 * that creates one is a claim of its own, or its own update). A claim's
 * allocation cleared frees devices for any pod; any other claim change
 * helps only the pods using that claim, when its status changed. A class
 * change is held to the same first test (upstream requeues every pod). */
static bool dynamic_resources_queueing_hint(void *self, const ms_pod *pod, ms_event_mask ev, const void *old_obj,
                                            const void *new_obj) {
    dynamic_resources *p = self;
    if (!p->h->dra || pod->nresource_claims == 0) return true;
    if (!pod_claims(p->h, pod, NULL, &p->reason)) return false;
    if (ev != MS_EV_RESOURCE_CLAIM) return true;
    const ms_dra_object *was = old_obj, *now = new_obj;
    if (was && was->u.claim.allocated && !now->u.claim.allocated) return true;
    if (!uses_claim(pod, now->meta.namespace_, now->meta.name)) return false;
    return !was || !same_status(&was->u.claim, &now->u.claim);
}

const ms_plugin_ops ms_plugin_dynamic_resources = {
    .name = "DynamicResources",
    /* upstream's EventsToRegister: the pod's own update (its generated
     * claim named in status.resourceClaimStatuses), a node added or
     * relabelled, a claim, slice or class added or updated. */
    .events = MS_EV_UNSCHEDULED_POD_UPDATE | MS_EV_NODE_ADD | MS_EV_NODE_LABEL | MS_EV_RESOURCE_CLAIM |
              MS_EV_RESOURCE_SLICE | MS_EV_DEVICE_CLASS,
    .queueing_hint = dynamic_resources_queueing_hint,
    .create = dynamic_resources_create,
    .destroy = dynamic_resources_destroy,
    .pre_enqueue = dynamic_resources_pre_enqueue,
    .pre_filter = dynamic_resources_pre_filter,
    .filter = dynamic_resources_filter,
    .post_filter = dynamic_resources_post_filter,
    .reserve = dynamic_resources_reserve,
    .unreserve = dynamic_resources_unreserve,
    .pre_bind = dynamic_resources_pre_bind,
};
