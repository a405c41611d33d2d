/* Pod lifetime, copies with a node or a nominated node set, and the pod key. */
#include "moonsched/pod.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ms_pod *ms_pod_alloc(void) {
    ms_pod *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    atomic_init(&p->refs, 1);
    /* Most pods need a few hundred bytes (uid, resourceVersion, requests):
     * a bigger first block would be mostly slack, times every pod. */
    ms_arena_init(&p->arena, 256);
    return p;
}

void ms_pod_unref(ms_pod *p) {
    if (!p) return;
    if (atomic_fetch_sub_explicit(&p->refs, 1, memory_order_acq_rel) != 1) return;
    /* A copy shares its base's name and reference. */
    if (p->base) ms_pod_unref(p->base);
    else if (p->names) ms_str_release(p->names, p->meta.name);
    ms_arena_free(&p->arena);
    free(p);
}

/* A shallow copy that references the pod owning the memory. */
static ms_pod *copy_of(const ms_pod *p) {
    ms_pod *c = malloc(sizeof *c);
    if (!c) return NULL;
    memcpy(c, p, sizeof *c);
    atomic_init(&c->refs, 1);
    ms_arena_init(&c->arena, 64);
    /* Always point at the pod that owns the memory, never at another copy,
     * so chains of copies stay one level deep. */
    ms_pod *owner = p->base ? p->base : (ms_pod *)p;
    c->base = ms_pod_ref(owner);
    return c;
}

ms_pod *ms_pod_with_node(const ms_pod *p, ms_str node_name) {
    ms_pod *c = copy_of(p);
    if (c) c->node_name = node_name;
    return c;
}

ms_pod *ms_pod_with_nominated_node(const ms_pod *p, ms_str node) {
    ms_pod *c = copy_of(p);
    if (c) c->nominated_node_name = node;
    return c;
}

int ms_pod_key(const ms_pod *p, const ms_interner *in, char *buf, size_t n) {
    return snprintf(buf, n, "%s/%s", ms_str_get(in, p->meta.namespace_), ms_str_get(in, p->meta.name));
}
