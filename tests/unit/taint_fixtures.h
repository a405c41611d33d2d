/* Tolerations, taints, pods and nodes written as upstream's test tables
 * (strings, NULL for absent), for the toleration and plugin tests. Include
 * after "testutil.h"; pass setup and teardown to cmocka_run_group_tests
 * (they make and free the interner `in`). */
#ifndef MOONSCHED_TEST_TAINT_FIXTURES_H
#define MOONSCHED_TEST_TAINT_FIXTURES_H

#include "api/toleration.h"
#include "moonsched/intern.h"
#include "moonsched/node.h"
#include "moonsched/pod.h"

typedef struct tol_spec {
    const char *key, *op, *value, *effect;
} tol_spec;
typedef struct taint_spec {
    const char *key, *value, *effect;
} taint_spec;

#define MAXT 4

static ms_interner *in;

static inline ms_str S(const char *s) { return s ? ms_intern_cstr(in, s) : MS_STR_NONE; }

static inline uint8_t effect_of(const char *e) {
    if (!e || !*e) return MS_EFFECT_NONE;
    if (strcmp(e, "NoSchedule") == 0) return MS_EFFECT_NO_SCHEDULE;
    if (strcmp(e, "PreferNoSchedule") == 0) return MS_EFFECT_PREFER_NO_SCHEDULE;
    if (strcmp(e, "NoExecute") == 0) return MS_EFFECT_NO_EXECUTE;
    fail_msg("effect %s", e);
    return 0;
}

static inline ms_toleration make_tol(const tol_spec *t) {
    ms_toleration r = {0};
    r.key = S(t->key);
    r.value = S(t->value);
    r.op = t->op && strcmp(t->op, "Exists") == 0 ? MS_TOL_EXISTS : MS_TOL_EQUAL;
    r.effect = effect_of(t->effect);
    return r;
}

/* With the reason text the decoder builds: "{key: value}". */
static inline ms_taint make_taint(ms_arena *a, const taint_spec *t) {
    ms_taint r = {0};
    r.key = S(t->key);
    r.value = S(t->value);
    r.effect = effect_of(t->effect);
    char buf[256];
    snprintf(buf, sizeof buf, "node(s) had untolerated taint {%s: %s}", t->key,
             t->value ? t->value : "");
    r.reason = ms_arena_strdup(a, buf);
    return r;
}

static inline ms_pod *pod_with(const tol_spec *tols) {
    ms_pod *p = ms_pod_alloc();
    uint32_t n = 0;
    while (tols && n < MAXT && (tols[n].key || tols[n].op || tols[n].effect)) n++;
    p->ntolerations = n;
    p->tolerations = n ? MS_ARENA_NEW(&p->arena, ms_toleration, n) : NULL;
    for (uint32_t i = 0; i < n; i++) p->tolerations[i] = make_tol(&tols[i]);
    return p;
}

static inline ms_node *node_with(const char *name, const taint_spec *taints) {
    ms_node *n = ms_node_alloc();
    n->meta.name = S(name);
    uint32_t k = 0;
    while (taints && k < MAXT && taints[k].key) k++;
    n->ntaints = k;
    n->taints = k ? MS_ARENA_NEW(&n->arena, ms_taint, k) : NULL;
    for (uint32_t i = 0; i < k; i++) n->taints[i] = make_taint(&n->arena, &taints[i]);
    return n;
}

static inline int setup(void **state) {
    (void)state;
    in = ms_interner_new();
    return 0;
}

static inline int teardown(void **state) {
    (void)state;
    ms_interner_free(in);
    return 0;
}

#endif
