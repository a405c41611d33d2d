/* Nodes, pods and cache views built by hand for the cache comparer's
 * tests: only the fields the cache and the comparer read. Include after
 * "testutil.h". */
#ifndef MOONSCHED_TEST_CACHE_VIEW_FIXTURES_H
#define MOONSCHED_TEST_CACHE_VIEW_FIXTURES_H

#include <string.h>

#include "backend/cache_comparer.h"
#include "base/map.h"
#include "moonsched/arena.h"

static inline ms_node *cvf_node(ms_interner *in, const char *name, int64_t cpu) {
    ms_node *n = ms_node_alloc();
    assert_non_null(n);
    n->meta.name = ms_intern_cstr(in, name);
    n->meta.uid_hash = ms_hash_bytes(name, strlen(name));
    n->allocatable.v[MS_RES_CPU] = cpu;
    n->allocatable.v[MS_RES_PODS] = 110;
    return n;
}

/* node NULL: pending */
static inline ms_pod *cvf_pod(ms_interner *in, const char *name, const char *uid, const char *node) {
    ms_pod *p = ms_pod_alloc();
    assert_non_null(p);
    p->meta.name = ms_intern_cstr(in, name);
    p->meta.namespace_ = ms_intern_cstr(in, "default");
    p->meta.uid = ms_arena_strdup(&p->arena, uid);
    p->meta.uid_hash = ms_hash_bytes(uid, strlen(uid));
    p->node_name = node ? ms_intern_cstr(in, node) : MS_STR_NONE;
    p->requests.v[MS_RES_CPU] = 100;
    p->phase = MS_PHASE_RUNNING;
    return p;
}

static inline void cvf_add_node(ms_interner *in, ms_cache_view *v, const char *name, int64_t cpu) {
    ms_node *n = cvf_node(in, name, cpu);
    assert_int_equal(ms_cache_view_add_node(v, n), 0);
    ms_node_unref(n);
}

static inline void cvf_add_pod(ms_interner *in, ms_cache_view *v, const char *name, const char *uid,
                               const char *node) {
    ms_pod *p = cvf_pod(in, name, uid, node);
    assert_int_equal(ms_cache_view_add_pod(v, p, p->node_name), 0);
    ms_pod_unref(p);
}

#endif
