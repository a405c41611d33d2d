/* Services, ReplicationControllers, ReplicaSets and StatefulSets as the
 * default topology spreading reads them, and the scheduler's set of them. */
#include "api/workload.h"

#include <stdlib.h>
#include <string.h>

#include "api/object_set.h"
#include "api/workload_set.h"

static const char *const kind_names[MS_WK_COUNT] = {"Service", "ReplicationController", "ReplicaSet",
                                                    "StatefulSet"};

const char *ms_workload_kind_name(ms_workload_kind kind) {
    return (unsigned)kind < MS_WK_COUNT ? kind_names[kind] : "Object";
}

int ms_workload_kind_from_name(const char *kind) {
    for (int k = 0; kind && k < MS_WK_COUNT; k++)
        if (strcmp(kind, kind_names[k]) == 0) return k;
    return -1;
}

ms_workload *ms_workload_alloc(ms_workload_kind kind) {
    ms_workload *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    atomic_init(&w->refs, 1);
    ms_arena_init(&w->arena, 256);
    w->kind = (uint8_t)kind;
    return w;
}

void ms_workload_unref(ms_workload *w) {
    if (!w) return;
    if (atomic_fetch_sub_explicit(&w->refs, 1, memory_order_acq_rel) != 1) return;
    ms_arena_free(&w->arena);
    free(w);
}

bool ms_workload_selects(const ms_workload *w, const ms_pod *pod, const ms_interner *in) {
    /* The controllers' listers refuse pods without labels outright; a
     * Service's non-empty map cannot match them either. */
    if (w->kind == MS_WK_SERVICE || w->kind == MS_WK_REPLICATION_CONTROLLER)
        return pod->meta.labels.n > 0 && w->meta.namespace_ == pod->meta.namespace_ && w->match.n > 0 &&
               ms_labels_subset(&w->match, &pod->meta.labels);
    return ms_object_set_selects(w->meta.namespace_, &w->selector, pod, in);
}

/* ---- the set ---- */

_Static_assert(MS_WK_COUNT <= MS_OBJECT_SET_KINDS, "every workload kind has its map");

struct ms_workload_set {
    ms_object_set objects;
};

ms_workload_set *ms_workload_set_new(void) {
    ms_workload_set *s = calloc(1, sizeof *s);
    if (s) ms_object_set_init(&s->objects);
    return s;
}

static void release(void *w) { ms_workload_unref(w); }

void ms_workload_set_free(ms_workload_set *s) {
    if (!s) return;
    ms_object_set_free(&s->objects, release);
    free(s);
}

uint32_t ms_workload_set_len(const ms_workload_set *s) { return s->objects.len; }

ms_rc ms_workload_set_update(ms_workload_set *s, ms_workload *w) {
    ms_workload *old = ms_object_set_replace(&s->objects, w->kind, w->meta.namespace_, w->meta.name, w);
    if (old) {
        ms_workload_ref(w);
        ms_workload_unref(old);
        return MS_OK;
    }
    ms_rc rc = ms_object_set_add(&s->objects, w->kind, w->meta.namespace_, w->meta.name, w);
    if (rc == MS_OK) ms_workload_ref(w);
    return rc;
}

ms_rc ms_workload_set_delete(ms_workload_set *s, ms_workload_kind kind, ms_str namespace_, ms_str name) {
    ms_workload *w = ms_object_set_remove(&s->objects, (unsigned)kind, namespace_, name);
    if (!w) return MS_ENOENT;
    ms_workload_unref(w);
    return MS_OK;
}

typedef struct each_ctx {
    void (*fn)(void *ctx, ms_workload *w);
    void *ctx;
} each_ctx;

static void each_one(void *ctx, void *item) {
    each_ctx *c = ctx;
    c->fn(c->ctx, item);
}

void ms_workload_set_each(const ms_workload_set *s, void (*fn)(void *ctx, ms_workload *w), void *ctx) {
    ms_object_set_each(&s->objects, each_one, &(each_ctx){fn, ctx});
}

void *const *ms_workload_set_in(const ms_workload_set *s, ms_str namespace_, uint32_t *n) {
    return ms_object_set_in(&s->objects, namespace_, n);
}
