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
 * their allocation's node selector allows. The scheduler does not allocate
 * claims itself yet, so PreFilter refuses a pod with an unallocated claim,
 * so that none is bound with its devices missing. Pods without claims skip
 * the plugin in PreFilter and cost nothing per node. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/dra_store.h"
#include "base/buf.h"
#include "builtin.h"

/* Said once per pod (PreFilter), so FailedScheduling reads "0/N nodes are
 * available: <this>." */
#define NOT_ALLOCATABLE "pod has resource claims, which moonsched cannot allocate yet"

/* upstream's resourceapi.ResourceClaimReservedForMaxSize */
#define RESERVED_FOR_MAX 256

typedef struct dynamic_resources {
    const ms_handle *h;
    ms_buf reason;                 /* PreEnqueue's last refusal */
} dynamic_resources;

/* PreFilter's findings: the allocated claims whose allocation names the
 * nodes it is available on. */
typedef struct dr_state {
    uint32_t n;
    const ms_node_selector **on_nodes;
} dr_state;

static ms_rc dynamic_resources_create(const cJSON *args, const ms_handle *h, void **self, ms_error *err) {
    (void)args;
    dynamic_resources *p = calloc(1, sizeof *p);
    if (!p) return ms_error_set(err, MS_ENOMEM, "out of memory");
    p->h = h;
    *self = p;
    return MS_OK;
}

static void dynamic_resources_destroy(void *self) {
    dynamic_resources *p = self;
    if (!p) return;
    ms_buf_free(&p->reason);
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
    *s = (dr_state){0, on_nodes};
    bool unallocated = false;
    for (uint32_t i = 0; i < n; i++) {
        if (!claims[i]) continue;
        const ms_resource_claim *claim = &claims[i]->u.claim;
        if (!claim->allocated) {
            unallocated = true;
            continue;
        }
        /* Resource is in use: the pod has to wait (upstream). */
        if (claim->nreserved_for >= RESERVED_FOR_MAX && !reserved_for(claim, pod, p->h->in))
            return ms_status_set(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE, "resourceclaim in use");
        if (claim->has_node_selector) s->on_nodes[s->n++] = &claim->node_selector;
    }
    if (unallocated) return ms_status_set(st, MS_UNSCHEDULABLE_AND_UNRESOLVABLE, NOT_ALLOCATABLE);
    if (s->n == 0) return MS_SKIP;
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
    return MS_SUCCESS;
}

const ms_plugin_ops ms_plugin_dynamic_resources = {
    .name = "DynamicResources",
    /* The pod's own update (status.resourceClaimStatuses filled in) and a
     * node's arrival or labels can help; the resource.k8s.io events are to
     * come with allocation. */
    .events = MS_EV_UNSCHEDULED_POD_UPDATE | MS_EV_NODE_ADD | MS_EV_NODE_LABEL,
    .create = dynamic_resources_create,
    .destroy = dynamic_resources_destroy,
    .pre_enqueue = dynamic_resources_pre_enqueue,
    .pre_filter = dynamic_resources_pre_filter,
    .filter = dynamic_resources_filter,
};
