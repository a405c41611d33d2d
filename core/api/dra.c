/* resource.k8s.io objects' lifetime, kind names, and the claim status
 * changes the scheduler and the controllers it stands in for make. */
#include "api/dra.h"

#include <stdlib.h>
#include <string.h>

static const char *const kind_names[MS_DK_COUNT] = {
    [MS_DK_DEVICE_CLASS] = "DeviceClass",
    [MS_DK_RESOURCE_SLICE] = "ResourceSlice",
    [MS_DK_RESOURCE_CLAIM] = "ResourceClaim",
    [MS_DK_RESOURCE_CLAIM_TEMPLATE] = "ResourceClaimTemplate",
};

const char *ms_dra_kind_name(ms_dra_kind kind) { return (unsigned)kind < MS_DK_COUNT ? kind_names[kind] : NULL; }

int ms_dra_kind_from_name(const char *kind) {
    for (int k = 0; kind && k < MS_DK_COUNT; k++)
        if (strcmp(kind, kind_names[k]) == 0) return k;
    return -1;
}

ms_dra_object *ms_dra_alloc(ms_dra_kind kind) {
    ms_dra_object *o = calloc(1, sizeof *o);
    if (!o) return NULL;
    atomic_init(&o->refs, 1);
    ms_arena_init(&o->arena, 1024);
    o->kind = (uint8_t)kind;
    return o;
}

ms_dra_object *ms_dra_copy(ms_dra_object *o) {
    ms_dra_object *c = malloc(sizeof *c);
    if (!c) return NULL;
    memcpy(c, o, sizeof *c);
    atomic_init(&c->refs, 1);
    ms_arena_init(&c->arena, 512);
    c->base = ms_dra_ref(o);
    return c;
}

void ms_dra_unref(ms_dra_object *o) {
    if (!o) return;
    if (atomic_fetch_sub_explicit(&o->refs, 1, memory_order_acq_rel) != 1) return;
    ms_dra_unref(o->base);
    ms_arena_free(&o->arena);
    free(o);
}

void ms_dra_claim_deallocate(ms_dra_object *o) {
    ms_resource_claim *c = &o->u.claim;
    c->allocated = c->has_node_selector = false;
    c->nresults = 0;
    c->results = NULL;
}

ms_dra_object *ms_dra_claim_unreserve(ms_dra_object *o, const char *uid, bool deallocate_unused) {
    ms_dra_object *w = ms_dra_copy(o);
    if (!w) return NULL;
    ms_resource_claim *c = &w->u.claim;
    ms_claim_consumer *kept = c->nreserved_for ? MS_ARENA_NEW(&w->arena, ms_claim_consumer, c->nreserved_for) : NULL;
    if (c->nreserved_for && !kept) {
        ms_dra_unref(w);
        return NULL;
    }
    uint32_t n = 0;
    for (uint32_t k = 0; k < c->nreserved_for; k++)
        if (strcmp(c->reserved_for[k].uid, uid) != 0) kept[n++] = c->reserved_for[k];
    c->reserved_for = kept;
    c->nreserved_for = n;
    if (n == 0 && deallocate_unused) ms_dra_claim_deallocate(w);
    return w;
}
