/* A small cluster for the descheduler tests: nodes and pods from YAML
 * (through the real decoder), NodeInfos as the snapshot holds them, a
 * policy from YAML, and a pass over them at a fixed clock. Include after
 * "testutil.h" and "fixtures.h". */
#ifndef MOONSCHED_TEST_DESCHED_FIXTURES_H
#define MOONSCHED_TEST_DESCHED_FIXTURES_H

#include "descheduler/descheduler.h"
#include "policy/desched_lua.h"
#include "descheduler/pass.h"
#include "descheduler/config_file.h"

#define DX_MAX 64
/* The pass's clock: 2024-01-01T00:00:00Z. */
#define DX_NOW 1704067200.0
#define DX_MAX_NS 8

/* A namespace the pass knows, with its labels (namespaceLabelSelector). */
typedef struct dx_namespace {
    ms_str name;
    ms_labels labels;
} dx_namespace;

typedef struct dx_env {
    fx_env fx;
    ms_node_info *nodes[DX_MAX];
    uint32_t nnodes;
    ms_pod *pods[DX_MAX * 4];
    uint32_t npods;
    ms_desched_policy policy;
    bool has_policy;
    ms_desched_pass pass;
    bool has_pass;
    dx_namespace namespaces[DX_MAX_NS];
    uint32_t nnamespaces;
} dx_env;

static inline void dx_init(dx_env *e) {
    memset(e, 0, sizeof *e);
    fx_env_init(&e->fx);
}

static inline void dx_free(dx_env *e) {
    if (e->has_pass) ms_desched_pass_free(&e->pass);
    for (uint32_t i = 0; i < e->nnodes; i++) ms_node_info_free(e->nodes[i]);
    for (uint32_t i = 0; i < e->npods; i++) ms_pod_unref(e->pods[i]);
    if (e->has_policy) ms_desched_policy_free(&e->policy);
    for (uint32_t i = 0; i < e->nnamespaces; i++) free(e->namespaces[i].labels.items);
    fx_env_free(&e->fx);
}

static inline ms_node_info *dx_find_node(dx_env *e, const char *name) {
    for (uint32_t i = 0; i < e->nnodes; i++)
        if (strcmp(ms_str_get(e->fx.in, e->nodes[i]->name), name) == 0) return e->nodes[i];
    return NULL;
}

/* A node: name, cpu (millis), memory (Mi), pods, then extra YAML for
 * metadata.labels / spec lines and more allocatable entries (", example.com/x: 8"),
 * each possibly "". */
static inline ms_node_info *dx_node_alloc(dx_env *e, const char *name, int cpu_m, int mem_mi, int pods,
                                          const char *labels, const char *spec, const char *alloc) {
    char text[2048];
    snprintf(text, sizeof text,
             "kind: Node\nmetadata: {name: %s, labels: {%s}}\nspec: {%s}\n"
             "status: {allocatable: {cpu: %dm, memory: %dMi, pods: %d%s}}\n",
             name, labels, spec, cpu_m, mem_mi, pods, alloc);
    ms_node *n = fx_node(&e->fx.d, text);
    ms_node_info *ni = ms_node_info_new(n->meta.name);
    assert_non_null(ni);
    ms_node_info_set_node(ni, n);
    ms_node_unref(n);
    e->nodes[e->nnodes++] = ni;
    return ni;
}

static inline ms_node_info *dx_node(dx_env *e, const char *name, int cpu_m, int mem_mi, int pods,
                                    const char *labels, const char *spec) {
    return dx_node_alloc(e, name, cpu_m, mem_mi, pods, labels, spec, "");
}

/* A namespace the pass knows: its name and labels "k=v;k2=v2" ("": none).
 * Without any, the pass knows no namespace. */
static inline void dx_namespace_add(dx_env *e, const char *name, size_t name_len, const char *labels,
                                    size_t labels_len) {
    assert_true(e->nnamespaces < DX_MAX_NS);
    dx_namespace *ns = &e->namespaces[e->nnamespaces++];
    ns->name = ms_intern(e->fx.in, name, name_len);
    ns->labels.n = 0;
    ns->labels.items = calloc(labels_len / 2 + 1, sizeof *ns->labels.items);
    assert_non_null(ns->labels.items);
    const char *p = labels, *end = labels + labels_len;
    while (p < end) {
        const char *semi = memchr(p, ';', (size_t)(end - p));
        if (!semi) semi = end;
        const char *eq = memchr(p, '=', (size_t)(semi - p));
        assert_non_null(eq);
        ns->labels.items[ns->labels.n].key = ms_intern(e->fx.in, p, (size_t)(eq - p));
        ns->labels.items[ns->labels.n++].value = ms_intern(e->fx.in, eq + 1, (size_t)(semi - eq - 1));
        p = semi + 1;
    }
    ms_labels_sort(&ns->labels);
}

static inline const ms_labels *dx_namespace_labels(void *ctx, ms_str name) {
    const dx_env *e = ctx;
    for (uint32_t i = 0; i < e->nnamespaces; i++)
        if (e->namespaces[i].name == name) return &e->namespaces[i].labels;
    return NULL;
}

/* A pod bound to node from YAML (metadata and spec written by the test;
 * nodeName is set here). */
static inline ms_pod *dx_pod_yaml(dx_env *e, const char *node, const char *yaml) {
    ms_pod *p = fx_pod(&e->fx.d, yaml);
    ms_pod *bound = ms_pod_with_node(p, ms_intern_cstr(e->fx.in, node));
    ms_pod_unref(p);
    ms_node_info *ni = dx_find_node(e, node);
    assert_non_null(ni);
    assert_int_equal(ms_node_info_add_pod(ni, bound, e->fx.in), 0);
    e->pods[e->npods++] = bound;
    return bound;
}

/* A ReplicaSet pod: name, node, cpu (millis), memory (Mi), created an hour
 * before DX_NOW, with extra metadata (",labels: {...}") and spec text. */
static inline ms_pod *dx_pod(dx_env *e, const char *name, const char *node, int cpu_m, int mem_mi,
                             const char *meta, const char *spec) {
    char text[4096];
    snprintf(text, sizeof text,
             "kind: Pod\nmetadata: {name: %s, namespace: default, uid: uid-%s, "
             "creationTimestamp: '2023-12-31T23:00:00Z', "
             "ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: rs-uid, "
             "controller: true}]%s}\n"
             "spec: {containers: [{name: c, image: img, resources: {requests: {cpu: %dm, memory: %dMi}}}]%s}\n"
             "status: {phase: Running}\n",
             name, name, meta, cpu_m, mem_mi, spec);
    return dx_pod_yaml(e, node, text);
}

static inline void dx_policy(dx_env *e, const char *yaml) {
    ms_error err = {0};
    ms_rc rc = ms_desched_policy_parse(&e->policy, "policy.yaml", yaml, strlen(yaml), &ms_desched_lua_extension, e->fx.in,
                                       &err);
    if (rc != MS_OK) fail_msg("policy: %s", err.msg);
    e->has_policy = true;
}

/* The message of a policy that must not decode. */
static inline const char *dx_policy_error(dx_env *e, const char *yaml, ms_error *err) {
    ms_desched_policy p;
    ms_rc rc = ms_desched_policy_parse(&p, "policy.yaml", yaml, strlen(yaml), &ms_desched_lua_extension, e->fx.in, err);
    if (rc == MS_OK) {
        ms_desched_policy_free(&p);
        fail_msg("policy decoded");
    }
    return err->msg;
}

/* A policy with one profile "p" enabling `plugin` at `point` with args. */
static inline void dx_policy_one(dx_env *e, const char *extra_top, const char *plugin,
                                 const char *point, const char *args, const char *evictor_args) {
    char text[4096];
    snprintf(text, sizeof text,
             "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\n%s"
             "profiles:\n- name: p\n  pluginConfig:\n"
             "  - {name: DefaultEvictor, args: {%s}}\n"
             "  - {name: %s, args: {%s}}\n"
             "  plugins:\n    %s: {enabled: [%s]}\n",
             extra_top, evictor_args, plugin, args, point, plugin);
    dx_policy(e, text);
}

static inline ms_desched_pass *dx_run(dx_env *e) {
    assert_int_equal(ms_desched_pass_init(&e->pass, &e->policy, e->fx.in, e->nodes, e->nnodes, DX_NOW), 0);
    e->has_pass = true;
    if (e->nnamespaces) {
        e->pass.env.namespace_labels = dx_namespace_labels;
        e->pass.env.ns_ctx = e;
    }
    ms_desched_run(&e->pass);
    assert_false(e->pass.failed);
    return &e->pass;
}

/* The evicted pods' names in order, "a,b". */
static inline const char *dx_evicted(dx_env *e, char *buf, size_t n) {
    size_t len = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < e->pass.nevictions && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? "," : "",
                                ms_str_get(e->fx.in, e->pass.evictions[i].pod->meta.name));
    return buf;
}

/* The reason recorded for skipping the named pod, or NULL. */
static inline const char *dx_skip_reason(dx_env *e, const char *pod) {
    for (uint32_t i = 0; i < e->pass.nskips; i++)
        if (strcmp(ms_str_get(e->fx.in, e->pass.skips[i].pod->meta.name), pod) == 0)
            return e->pass.skips[i].reason;
    return NULL;
}

/* Builds the cluster with setup, runs `plugin` at `point` with args (and
 * the policy's top-level lines), and checks the evicted pods in order. */
typedef void (*dx_setup_fn)(dx_env *e);
static inline void dx_expect(dx_setup_fn setup, const char *top, const char *plugin, const char *point,
                             const char *args, const char *want) {
    dx_env e;
    dx_init(&e);
    setup(&e);
    dx_policy_one(&e, top, plugin, point, args, "");
    dx_run(&e);
    char buf[512];
    if (strcmp(dx_evicted(&e, buf, sizeof buf), want) != 0)
        fail_msg("%s %s%s: got \"%s\", want \"%s\"", plugin, top, args, buf, want);
    dx_free(&e);
}

#endif
