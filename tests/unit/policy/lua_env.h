/* The environment the policy unit tests share: a runtime with quiet logs
 * and a disabled-policy recorder, a cycle, policies loaded from source
 * text, and a small cluster of NodeInfos. */
#ifndef MOONSCHED_TESTS_POLICY_LUA_ENV_H
#define MOONSCHED_TESTS_POLICY_LUA_ENV_H

#include "fixtures.h"

#include "moonsched/lua_policy.h"
#include "moonsched/nodeinfo.h"

typedef struct env {
    fx_env fx;
    ms_lua_runtime *rt;
    ms_arena arena;
    ms_cycle c;
    char disabled[512];
    int ndisabled;
    int nlogs;
} env;

static inline void quiet_log(void *ctx, ms_lua_log_level level, const char *policy, const char *msg) {
    (void)level, (void)policy, (void)msg;
    ((env *)ctx)->nlogs++;
}

static inline void on_disabled(void *ctx, ms_policy *p, const char *why) {
    env *e = ctx;
    e->ndisabled++;
    snprintf(e->disabled, sizeof e->disabled, "%s: %s", ms_policy_name(p), why);
}

static inline env *env_new(double budget, size_t memory, uint8_t on_error) {
    env *e = calloc(1, sizeof *e);
    fx_env_init(&e->fx);
    ms_lua_options o;
    ms_lua_options_default(&o);
    /* Tests that are not about the budget get a generous one: under ASan on a
     * loaded machine an ordinary call can take longer than the default. */
    o.budget = budget > 0 ? budget : 1.0;
    if (memory) o.memory = memory;
    o.on_error = on_error;
    o.log = quiet_log;
    o.log_ctx = e;
    o.disabled = on_disabled;
    o.disabled_ctx = e;
    o.max_failures = 3;
    ms_error err = {0};
    assert_int_equal(ms_lua_runtime_new(&o, e->fx.in, &e->rt, &err), MS_OK);
    ms_arena_init(&e->arena, 4096);
    e->c.arena = &e->arena;
    e->c.cycle = 1;
    return e;
}

static inline void env_free(env *e) {
    ms_lua_runtime_free(e->rt);
    ms_arena_free(&e->arena);
    fx_env_free(&e->fx);
    free(e);
}

static inline ms_policy *load(env *e, const char *src) {
    ms_lua_state *s = NULL;
    ms_error err = {0};
    ms_rc rc = ms_lua_state_load(e->rt, "=test.lua", src, strlen(src), NULL, &s, &err);
    if (rc != MS_OK) fail_msg("load: %s", err.msg);
    ms_policy *p = NULL;
    assert_int_equal(ms_policy_new(e->rt, s, &p, &err), MS_OK);
    return p;
}

static inline const char *load_error(env *e, const char *src, size_t len, ms_error *err) {
    ms_lua_state *s = NULL;
    assert_int_not_equal(ms_lua_state_load(e->rt, "=bad.lua", src, len, NULL, &s, err), MS_OK);
    assert_null(s);
    return err->msg;
}

typedef struct cluster {
    uint32_t n;
    ms_node_info **nodes;
    ms_pod *pod;
} cluster;

static inline cluster make_cluster(env *e, uint32_t n) {
    cluster cl = {n, calloc(n, sizeof(ms_node_info *)), NULL};
    for (uint32_t i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "node-%u", i);
        ms_node *node = ms_node_alloc();
        node->meta.name = ms_intern_cstr(e->fx.in, name);
        node->allocatable.v[MS_RES_CPU] = 4000;
        node->allocatable.v[MS_RES_MEMORY] = (int64_t)8 << 30;
        node->allocatable.v[MS_RES_PODS] = 110;
        cl.nodes[i] = ms_node_info_new(node->meta.name);
        ms_node_info_set_node(cl.nodes[i], node);
        ms_node_unref(node);
        cl.nodes[i]->requested.v[MS_RES_CPU] = (int64_t)(i * 1000 % 4000);
    }
    cl.pod = fx_pod(&e->fx.d, "metadata: {name: p, namespace: d}\n"
                              "spec: {containers: [{name: c, resources: {requests: {cpu: '1'}}}]}\n");
    e->c.pod = cl.pod;
    return cl;
}

static inline void free_cluster(cluster *cl) {
    for (uint32_t i = 0; i < cl->n; i++) ms_node_info_free(cl->nodes[i]);
    free(cl->nodes);
    ms_pod_unref(cl->pod);
}

#endif
