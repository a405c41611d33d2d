/* Lua policies through the C API: loading, views over decoded objects, the
 * batch calls, the budget, the memory cap, failure handling, swap, and the
 * framework running a policy's batch Filter. */
#include "testutil.h"
#include "fixtures.h"

#include <time.h>

#include "backend/queue.h"
#include "framework/runners.h"
#include "moonsched/framework.h"
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

static void quiet_log(void *ctx, ms_lua_log_level level, const char *policy, const char *msg) {
    (void)level, (void)policy, (void)msg;
    ((env *)ctx)->nlogs++;
}

static void on_disabled(void *ctx, ms_policy *p, const char *why) {
    env *e = ctx;
    e->ndisabled++;
    snprintf(e->disabled, sizeof e->disabled, "%s: %s", ms_policy_name(p), why);
}

static env *env_new(double budget, size_t memory, uint8_t on_error) {
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

static void env_free(env *e) {
    ms_lua_runtime_free(e->rt);
    ms_arena_free(&e->arena);
    fx_env_free(&e->fx);
    free(e);
}

static ms_policy *load(env *e, const char *src) {
    ms_lua_state *s = NULL;
    ms_error err = {0};
    ms_rc rc = ms_lua_state_load(e->rt, "=test.lua", src, strlen(src), NULL, &s, &err);
    if (rc != MS_OK) fail_msg("load: %s", err.msg);
    ms_policy *p = NULL;
    assert_int_equal(ms_policy_new(e->rt, s, &p, &err), MS_OK);
    return p;
}

static const char *load_error(env *e, const char *src, size_t len, ms_error *err) {
    ms_lua_state *s = NULL;
    assert_int_not_equal(ms_lua_state_load(e->rt, "=bad.lua", src, len, NULL, &s, err), MS_OK);
    assert_null(s);
    return err->msg;
}

/* The budget counts the thread's CPU time; so does the check, which a busy
 * machine would otherwise fail while the watchdog waits for a CPU. */
static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static const char *POD =
    "metadata: {name: web-1, namespace: shop, uid: u-1, labels: {app: web, tier: front},\n"
    "  annotations: {note: hello}, creationTimestamp: '2024-01-02T03:04:05Z',\n"
    "  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-rs, uid: r1,"
    " controller: true}]}\n"
    "spec:\n"
    "  priority: 7\n"
    "  schedulerName: lua-sched\n"
    "  nodeSelector: {disk: ssd}\n"
    "  tolerations: [{key: gpu, operator: Exists, effect: NoSchedule}]\n"
    "  containers:\n"
    "  - name: c\n"
    "    ports: [{containerPort: 80, hostPort: 8080}]\n"
    "    resources:\n"
    "      requests: {cpu: 500m, memory: 1Gi, example.com/gpu: 2}\n"
    "      limits: {cpu: '1', memory: 1Gi, example.com/gpu: 2}\n";

static const char *NODE =
    "metadata: {name: n1, labels: {zone: a, disk: ssd}, annotations: {rack: r7}}\n"
    "spec: {unschedulable: true, taints: [{key: gpu, value: 'yes', effect: NoSchedule}]}\n"
    "status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110', example.com/gpu: 8}}\n";

/* Field values come back as the reason of a rejection. */
static void test_views_read_decoded_objects(void **state) {
    (void)state;
    env *e = env_new(0, 0, MS_POLICY_REJECT);
    ms_pod *pod = fx_pod(&e->fx.d, POD);
    ms_pod *other = fx_pod(&e->fx.d, "metadata: {name: old, namespace: shop}\n"
                                     "spec: {nodeName: n1, containers: [{name: c, resources: "
                                     "{requests: {cpu: 250m, example.com/gpu: 3}}}]}\n");
    ms_node *node = fx_node(&e->fx.d, NODE);
    ms_node_info *ni = ms_node_info_new(node->meta.name);
    ms_node_info_set_node(ni, node);
    assert_int_equal(ms_node_info_add_pod(ni, other, e->fx.in), 0);

    ms_policy *p = load(e,
        "local p = {name = 'views'}\n"
        "function p.filter(pod, node)\n"
        "  local t = {}\n"
        "  local function add(...) for i = 1, select('#', ...) do t[#t+1] = tostring((select(i, ...))) end end\n"
        "  add(pod.name, pod.namespace, pod.uid, pod.priority, pod.scheduler_name, pod.node_name,\n"
        "      pod.nominated_node_name, pod.qos, pod.owner_kind, pod.owner_name, pod.created)\n"
        "  add(pod.labels.app, pod.labels.nope, #pod.labels, pod.annotations.note)\n"
        "  add(pod.requests.cpu, pod.requests.memory, pod.requests['example.com/gpu'],\n"
        "      pod.requests['other.io/x'], pod.limits.cpu)\n"
        "  local tol = pod.tolerations[1]\n"
        "  add(tol.key, tol.operator, tol.effect, pod.node_selector.disk, pod.ports[1].hostPort)\n"
        "  add(node.name, node.unschedulable, node.labels.zone, node.annotations.rack)\n"
        "  add(node.taints[1].key, node.taints[1].value, node.taints[1].effect)\n"
        "  add(node.allocatable.cpu, node.allocatable['example.com/gpu'], node.requested.cpu,\n"
        "      node.requested['example.com/gpu'], node.requested.pods, node.free('cpu'),\n"
        "      node:free('example.com/gpu'), node.pod_count)\n"
        "  for q in node:pods() do add(q.name) end\n"
        "  local keys = {} for k, v in pairs(node.labels) do keys[#keys+1] = k .. '=' .. v end\n"
        "  table.sort(keys) add(table.concat(keys, ','))\n"
        "  return false, table.concat(t, ' ')\n"
        "end\n"
        "return p\n");
    ms_status st;
    e->c.pod = pod;
    ms_node_info *nodes[] = {ni};
    assert_int_equal(ms_policy_ops(p)->filter_batch(p, &e->c, nodes, 1, &st), MS_SUCCESS);
    assert_int_equal(st.code, MS_UNSCHEDULABLE);
    assert_int_equal(st.nreasons, 1);
    assert_string_equal(st.reasons[0],
        "web-1 shop u-1 7 lua-sched nil nil Burstable ReplicaSet web-rs 1704164645 "
        "web nil 2 hello "
        "500 1073741824 2 0 1000 "
        "gpu Exists NoSchedule ssd 8080 "
        "n1 true a r7 "
        "gpu yes NoSchedule "
        "4000 8 250 3 1 3750 5 1 "
        "old disk=ssd,zone=a");
    ms_policy_free(p);
    ms_node_info_free(ni);
    ms_node_unref(node);
    ms_pod_unref(other);
    ms_pod_unref(pod);
    env_free(e);
}

typedef struct cluster {
    uint32_t n;
    ms_node_info **nodes;
    ms_pod *pod;
} cluster;

static cluster make_cluster(env *e, uint32_t n) {
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

static void free_cluster(cluster *cl) {
    for (uint32_t i = 0; i < cl->n; i++) ms_node_info_free(cl->nodes[i]);
    free(cl->nodes);
    ms_pod_unref(cl->pod);
}

static void test_filter_and_score_batch(void **state) {
    (void)state;
    env *e = env_new(0, 0, MS_POLICY_REJECT);
    cluster cl = make_cluster(e, 8);
    ms_policy *p = load(e,
        "local p = {name = 'fit'}\n"
        "function p.pre_filter(pod, state) state.want = pod.requests.cpu end\n"
        "function p.filter(pod, node, state)\n"
        "  if node.name == 'node-7' then return false, 'seven', true end\n"
        "  return node.free('cpu') >= state.want + 1000, 'Insufficient cpu'\n"
        "end\n"
        "function p.score(pod, node, state) return node.requested.cpu - 1000 end\n"
        "return p\n");
    const ms_plugin_ops *ops = ms_policy_ops(p);
    assert_string_equal(ops->name, "fit");
    assert_null(ops->filter);
    ms_status st[8];
    assert_int_equal(ops->pre_filter(p, &e->c, &st[0]), MS_SUCCESS);
    assert_int_equal(ops->filter_batch(p, &e->c, cl.nodes, 8, st), MS_SUCCESS);
    /* requested cpu: 0 1000 2000 3000 0 1000 2000 3000; free >= 2000 passes */
    const uint8_t want[8] = {0, 0, 0, 2, 0, 0, 0, 3};
    for (int i = 0; i < 8; i++) {
        uint8_t code = want[i] == 0 ? MS_SUCCESS
                       : want[i] == 2 ? MS_UNSCHEDULABLE : MS_UNSCHEDULABLE_AND_UNRESOLVABLE;
        assert_int_equal(st[i].code, code);
        if (want[i] == 2) assert_string_equal(st[i].reasons[0], "Insufficient cpu");
        if (want[i] == 3) assert_string_equal(st[i].reasons[0], "seven");
    }
    /* Raw -1000 0 1000 2000: lo = -1000, hi = 2000 -> 0 33 67 100. */
    int64_t scores[4];
    ms_status one;
    assert_int_equal(ops->score(p, &e->c, cl.nodes, 4, scores, &one), MS_SUCCESS);
    assert_int_equal(scores[0], 0);
    assert_int_equal(scores[1], 33);
    assert_int_equal(scores[2], 67);
    assert_int_equal(scores[3], 100);
    ms_policy_free(p);
    free_cluster(&cl);
    env_free(e);
}

static void test_normalize_default(void **state) {
    (void)state;
    static const struct {
        double raw[4];
        int64_t want[4];
    } cases[] = {
        {{0, 1, 2, 4}, {0, 25, 50, 100}},
        {{2, 4, 4, 3}, {50, 100, 100, 75}},
        {{0, 0, 0, 0}, {0, 0, 0, 0}},
        {{5, 5, 5, 5}, {100, 100, 100, 100}},
        {{-2, -1, 0, 2}, {0, 25, 50, 100}},
        {{-3, -3, -3, -3}, {0, 0, 0, 0}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int64_t out[4];
        ms_lua_normalize(cases[k].raw, 4, out);
        for (int i = 0; i < 4; i++) assert_int_equal(out[i], cases[k].want[i]);
    }
}

static void test_custom_normalize_and_bad_scores(void **state) {
    (void)state;
    env *e = env_new(0, 0, MS_POLICY_REJECT);
    cluster cl = make_cluster(e, 4);
    ms_policy *p = load(e,
        "local p = {name = 'norm'}\n"
        "function p.score(pod, node) return node.requested.cpu end\n"
        "function p.normalize(pod, scores, nodes)\n"
        "  for i, s in ipairs(scores) do scores[i] = (nodes[i].name == 'node-1') and 7 or s / 100 end\n"
        "end\n"
        "return p\n");
    int64_t scores[4];
    ms_status st;
    assert_int_equal(ms_policy_ops(p)->score(p, &e->c, cl.nodes, 4, scores, &st), MS_SUCCESS);
    assert_int_equal(scores[0], 0);
    assert_int_equal(scores[1], 7);
    assert_int_equal(scores[2], 20);
    assert_int_equal(scores[3], 30);
    ms_policy_free(p);

    p = load(e, "return {name = 'nan', score = function() return 0/0 end}");
    assert_int_equal(ms_policy_ops(p)->score(p, &e->c, cl.nodes, 4, scores, &st), MS_ERROR);
    assert_non_null(strstr(st.reasons[0], "not a finite number"));
    ms_policy_free(p);
    free_cluster(&cl);
    env_free(e);
}

static void test_load_errors(void **state) {
    (void)state;
    env *e = env_new(0, 0, MS_POLICY_REJECT);
    ms_error err;
    const char *src = "return {}";
    assert_non_null(strstr(load_error(e, src, strlen(src), &err), "needs a name"));
    src = "return 42";
    assert_non_null(strstr(load_error(e, src, strlen(src), &err), "must return a table"));
    src = "return {name = 'x',\n filter = 3}";
    assert_non_null(strstr(load_error(e, src, strlen(src), &err), "filter must be a function"));
    src = "local x = \nreturn {name = 'x'}";
    assert_non_null(strstr(load_error(e, src, strlen(src), &err), "bad.lua:2:"));
    src = "error('boom in init')";
    assert_non_null(strstr(load_error(e, src, strlen(src), &err), "boom in init"));
    /* A LuaJIT bytecode header. */
    static const char bc[] = "\033LJ\002\000junk";
    assert_non_null(strstr(load_error(e, bc, sizeof bc - 1, &err), "binary chunks"));
    src = "local p = {name = 'x'} function p.init(a) error('init says ' .. a.word) end return p";
    cJSON *args = cJSON_Parse("{\"word\": \"no\"}");
    ms_lua_state *s = NULL;
    assert_int_not_equal(ms_lua_state_load(e->rt, "=a.lua", src, strlen(src), args, &s, &err), MS_OK);
    assert_non_null(strstr(err.msg, "init says no"));
    cJSON_Delete(args);
    src = "while true do end";
    assert_non_null(strstr(load_error(e, src, strlen(src), &err), "CPU budget"));
    env_free(e);
}

static void test_budget_stops_compiled_loops(void **state) {
    (void)state;
    env *e = env_new(0.05, 0, MS_POLICY_REJECT);
    cluster cl = make_cluster(e, 4);
    static const char *const loops[] = {
        "while true do end",
        "local x = 0 while true do x = x + 1 end",
        "while true do pcall(function() while true do end end) end",
        "local t = {a = 1, b = 2} while true do for k, v in pairs(t) do end end",
        "local function f() return f() end return f()",
    };
    for (size_t k = 0; k < sizeof loops / sizeof loops[0]; k++) {
        char src[512];
        snprintf(src, sizeof src,
                 "local p = {name = 'loop'}\n"
                 "function p.score(pod, node) if pod.priority == 0 then %s end return 1 end\n"
                 "return p\n", loops[k]);
        ms_policy *p = load(e, src);
        int64_t scores[4];
        ms_status st;
        double t0 = now_s();
        assert_int_equal(ms_policy_ops(p)->score(p, &e->c, cl.nodes, 4, scores, &st), MS_ERROR);
        double took = now_s() - t0;
        assert_true(took < 0.5);
        assert_non_null(strstr(st.reasons[0], "CPU budget"));
        ms_policy_stats stats;
        ms_policy_get_stats(p, &stats);
        assert_int_equal(stats.budget_kills, 1);
        /* The state still works for the next pod. */
        ms_pod *busy = fx_pod(&e->fx.d, "metadata: {name: q}\nspec: {priority: 1, containers: [{name: c}]}\n");
        e->c.pod = busy;
        assert_int_equal(ms_policy_ops(p)->score(p, &e->c, cl.nodes, 4, scores, &st), MS_SUCCESS);
        e->c.pod = cl.pod;
        ms_pod_unref(busy);
        ms_policy_free(p);
    }
    free_cluster(&cl);
    env_free(e);
}

static void test_memory_cap(void **state) {
    (void)state;
    env *e = env_new(2.0, (size_t)16 << 20, MS_POLICY_REJECT);
    cluster cl = make_cluster(e, 2);
    ms_policy *p = load(e,
        "local p = {name = 'bomb'}\n"
        "function p.filter(pod, node)\n"
        "  if pod.priority == 0 then local t = {} for i = 1, 1e9 do t[i] = string.rep('x', 4096) .. i end end\n"
        "  return true\n"
        "end\n"
        "return p\n");
    ms_status st[2];
    assert_int_equal(ms_policy_ops(p)->filter_batch(p, &e->c, cl.nodes, 2, st), MS_SUCCESS);
    assert_int_equal(st[0].code, MS_UNSCHEDULABLE);
    assert_non_null(strstr(st[0].reasons[0], "memory cap"));
    assert_true(ms_lua_state_memory(ms_policy_state(p)) < ((size_t)16 << 20));
    ms_policy_stats stats;
    ms_policy_get_stats(p, &stats);
    assert_int_equal(stats.memory_errors, 1);
    ms_pod *ok = fx_pod(&e->fx.d, "metadata: {name: q}\nspec: {priority: 1, containers: [{name: c}]}\n");
    e->c.pod = ok;
    assert_int_equal(ms_policy_ops(p)->filter_batch(p, &e->c, cl.nodes, 2, st), MS_SUCCESS);
    assert_int_equal(st[0].code, MS_SUCCESS);
    ms_pod_unref(ok);
    e->c.pod = cl.pod;
    ms_policy_free(p);
    free_cluster(&cl);
    env_free(e);
}

static void test_stale_view_errors(void **state) {
    (void)state;
    env *e = env_new(0, 0, MS_POLICY_REJECT);
    cluster cl = make_cluster(e, 2);
    ms_policy *p = load(e,
        "local p = {name = 'keeper'}\n"
        "local kept\n"
        "function p.filter(pod, node)\n"
        "  if kept then return false, kept.name end\n"
        "  kept = node\n"
        "  return true\n"
        "end\n"
        "return p\n");
    ms_status st[2];
    assert_int_equal(ms_policy_ops(p)->filter_batch(p, &e->c, cl.nodes, 1, st), MS_SUCCESS);
    assert_int_equal(st[0].code, MS_SUCCESS);
    assert_int_equal(ms_policy_ops(p)->filter_batch(p, &e->c, cl.nodes, 1, st), MS_SUCCESS);
    assert_int_equal(st[0].code, MS_UNSCHEDULABLE);
    assert_non_null(strstr(st[0].reasons[0], "used after the call"));
    ms_policy_free(p);
    free_cluster(&cl);
    env_free(e);
}

static void test_failures_skip_disable_and_swap(void **state) {
    (void)state;
    env *e = env_new(0, 0, MS_POLICY_SKIP);
    cluster cl = make_cluster(e, 2);
    ms_policy *p = load(e, "return {name = 'broken', filter = function() error('nope') end,"
                           " pre_filter = function() return false, 'no way' end}");
    const ms_plugin_ops *ops = ms_policy_ops(p);
    ms_status st[2];
    /* A rejection is not a failure. */
    assert_int_equal(ops->pre_filter(p, &e->c, &st[0]), MS_UNSCHEDULABLE);
    assert_string_equal(st[0].reasons[0], "no way");
    for (int i = 0; i < 3; i++) {
        assert_int_equal(ops->filter_batch(p, &e->c, cl.nodes, 2, st), MS_SUCCESS);
        assert_int_equal(st[0].code, MS_SUCCESS);   /* skip mode: as if no opinion */
    }
    assert_true(ms_policy_disabled(p));
    assert_int_equal(e->ndisabled, 1);
    assert_non_null(strstr(e->disabled, "broken: disabled after 3 consecutive failures"));
    assert_non_null(strstr(ms_policy_last_error(p), "nope"));
    /* Disabled: no calls, every node passes, PreFilter skips. */
    assert_int_equal(ops->pre_filter(p, &e->c, &st[0]), MS_SKIP);

    ms_lua_state *next = NULL;
    ms_error err;
    const char *src = "return {name = 'broken', filter = function(pod, node) return false, 'fixed' end}";
    assert_int_equal(ms_lua_state_load(e->rt, "=v2.lua", src, strlen(src), NULL, &next, &err), MS_OK);
    ms_lua_state_free(ms_policy_swap(p, next));
    assert_false(ms_policy_disabled(p));
    assert_int_equal(ops->filter_batch(p, &e->c, cl.nodes, 2, st), MS_SUCCESS);
    assert_int_equal(st[1].code, MS_UNSCHEDULABLE);
    assert_string_equal(st[1].reasons[0], "fixed");
    ms_policy_free(p);
    free_cluster(&cl);
    env_free(e);
}

static void test_reject_mode_reason(void **state) {
    (void)state;
    env *e = env_new(0, 0, MS_POLICY_REJECT);
    cluster cl = make_cluster(e, 2);
    ms_policy *p = load(e, "return {name = 'oops', filter = function() local x = nil; return x.y end}");
    ms_status st[2];
    assert_int_equal(ms_policy_ops(p)->filter_batch(p, &e->c, cl.nodes, 2, st), MS_SUCCESS);
    assert_int_equal(st[1].code, MS_UNSCHEDULABLE);
    assert_non_null(strstr(st[1].reasons[0], "policy oops: test.lua:1: attempt to index"));
    ms_policy_free(p);
    free_cluster(&cl);
    env_free(e);
}

static void test_sandbox(void **state) {
    (void)state;
    env *e = env_new(0, 0, MS_POLICY_REJECT);
    cluster cl = make_cluster(e, 1);
    static const struct {
        const char *code;
        const char *want;   /* in the reason */
    } cases[] = {
        {"return io.open('/etc/passwd')", "undefined global 'io'"},
        {"return os.execute('true')", "attempt to call field 'execute'"},
        {"return require('ffi')", "undefined global 'require'"},
        {"return string.dump(tostring)", "attempt to call field 'dump'"},
        {"return debug.getinfo(1)", "undefined global 'debug'"},
        {"return collectgarbage()", "undefined global 'collectgarbage'"},
        {"return getfenv(1)", "undefined global 'getfenv'"},
        {"setmetatable(sched, {})", "cannot change a protected metatable"},
        {"sched.nodes = 1", "sched is read-only"},
        {"string.rep = nil", "string is read-only"},
        {"local mt = getmetatable('') return mt.__index", "attempt to index local 'mt'"},
        {"return ('x').dump", "ok:nil"},
        {"return getmetatable(pod)", "ok:nil"},
        {"pod.name = 'x'", "views are read-only"},
        {"return select(2, load(string.char(27) .. 'LJ'))", "ok:binary chunks are not allowed"},
        {"return assert(true)", "undefined global 'assert'"},
        {"return _G", "undefined global '_G'"},
        {"return load('return 1 + 1')()", "ok:2"},
        {"return load('return io')()", "undefined global 'io'"},
        {"return rawset(_G, 'x', 1)", "undefined global 'rawset'"},
        {"local function f(n) return 1 + f(n + 1) end return f(1)", "stack overflow"},
        {"return sched.quantity('1.5Gi')", "ok:1610612736"},
        {"return sched.match_labels({matchLabels = {app = 'x'}}, {app = 'x'})", "ok:true"},
        {"return os.time() > 0", "ok:true"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char src[1024];
        snprintf(src, sizeof src,
                 "local p = {name = 'sandbox'}\n"
                 "function p.filter(pod, node)\n"
                 "  local ok, r = pcall(function() %s end)\n"
                 "  if ok then return false, 'ok:' .. tostring(r) end\n"
                 "  return false, tostring(r)\n"
                 "end\n"
                 "return p\n", cases[k].code);
        ms_policy *p = load(e, src);
        ms_status st;
        assert_int_equal(ms_policy_ops(p)->filter_batch(p, &e->c, cl.nodes, 1, &st), MS_SUCCESS);
        assert_int_equal(st.code, MS_UNSCHEDULABLE);
        if (!strstr(st.reasons[0], cases[k].want))
            fail_msg("%s: got \"%s\", want \"%s\"", cases[k].code, st.reasons[0], cases[k].want);
        ms_policy_free(p);
    }
    free_cluster(&cl);
    env_free(e);
}

static void test_queue_reserve_permit_preemption(void **state) {
    (void)state;
    env *e = env_new(0, 0, MS_POLICY_REJECT);
    cluster cl = make_cluster(e, 2);
    ms_policy *p = load(e,
        "local p = {name = 'all'}\n"
        "function p.pre_enqueue(pod) if pod.name == 'gated' then return false, 'gated' end end\n"
        "function p.less(a, b) return a.name < b.name end\n"
        "local reserved = {}\n"
        "function p.reserve(pod, node) reserved[pod.name] = node end\n"
        "function p.unreserve(pod, node) reserved[pod.name] = nil end\n"
        "function p.permit(pod, node)\n"
        "  if reserved[pod.name] ~= node then return 'deny', 'not reserved' end\n"
        "  return 'wait', 2.5\n"
        "end\n"
        "function p.select_victims(pod, node, cands)\n"
        "  if node.name == 'node-1' then return nil end\n"
        "  return {cands[2], cands[2], cands[1]}\n"
        "end\n"
        "function p.pick_preemption(pod, options)\n"
        "  for i, o in ipairs(options) do if #o.victims == 1 then return i end end\n"
        "end\n"
        "return p\n");
    const ms_plugin_ops *ops = ms_policy_ops(p);
    ms_pod *gated = fx_pod(&e->fx.d, "metadata: {name: gated}\nspec: {containers: [{name: c}]}\n");
    ms_pod *a = fx_pod(&e->fx.d, "metadata: {name: a}\nspec: {containers: [{name: c}]}\n");
    const char *why = NULL;
    assert_false(ops->pre_enqueue(p, gated, &why));
    assert_string_equal(why, "gated");
    assert_true(ops->pre_enqueue(p, a, &why));
    ms_queued_pod qa = {.pod = a}, qb = {.pod = gated};
    assert_true(ops->less(p, &qa, &qb));
    assert_false(ops->less(p, &qb, &qa));

    ms_status st;
    ms_str n0 = cl.nodes[0]->name, n1 = cl.nodes[1]->name;
    double timeout = 0;
    assert_int_equal(ops->permit(p, &e->c, n0, &timeout, &st), MS_UNSCHEDULABLE);
    assert_string_equal(st.reasons[0], "not reserved");
    assert_int_equal(ops->reserve(p, &e->c, n0, &st), MS_SUCCESS);
    assert_int_equal(ops->permit(p, &e->c, n0, &timeout, &st), MS_WAIT);
    assert_true(timeout == 2.5);
    ops->unreserve(p, &e->c, n0);
    assert_int_equal(ops->permit(p, &e->c, n0, &timeout, &st), MS_UNSCHEDULABLE);

    ms_pod *cands[3] = {a, gated, cl.pod};
    uint32_t victims[3], nv = 99;
    assert_int_equal(ms_policy_select_victims(p, &e->c, cl.nodes[0], cands, 3, victims, &nv, &st),
                     MS_SUCCESS);
    assert_int_equal(nv, 2);
    assert_int_equal(victims[0], 1);
    assert_int_equal(victims[1], 0);
    assert_int_equal(ms_policy_select_victims(p, &e->c, cl.nodes[1], cands, 3, victims, &nv, &st),
                     MS_UNSCHEDULABLE);
    ms_preemption_option opts[2] = {{cl.nodes[0], cands, 2, 0}, {cl.nodes[1], cands, 1, 0}};
    uint32_t chosen = 9;
    assert_int_equal(ms_policy_pick_preemption(p, &e->c, opts, 2, &chosen, &st), MS_SUCCESS);
    assert_int_equal(chosen, 1);
    (void)n1;
    ms_pod_unref(a);
    ms_pod_unref(gated);
    ms_policy_free(p);
    free_cluster(&cl);
    env_free(e);
}

/* The framework runs a policy's Filter through the batch runner, after the
 * per-node plugins. */
static void test_framework_batch_filter(void **state) {
    (void)state;
    env *e = env_new(0, 0, MS_POLICY_REJECT);
    cluster cl = make_cluster(e, 4);
    ms_policy *p = load(e,
        "return {name = 'odd', filter = function(pod, node)\n"
        "  return node.name ~= 'node-1' and node.name ~= 'node-3', 'odd one'\n"
        "end}\n");
    ms_profile_config pc;
    ms_profile_config_default(&pc, "lua-sched");
    ms_plugin_config *pl = &pc.plugins[pc.nplugins];
    memset(pl, 0, sizeof *pl);
    snprintf(pl->name, sizeof pl->name, "odd");
    pl->points = 1u << MS_EP_FILTER;
    pc.order[MS_EP_FILTER][pc.norder[MS_EP_FILTER]++] = (uint8_t)pc.nplugins;
    pc.nplugins++;
    ms_resource_names rn;
    ms_resource_names_init(&rn, e->fx.in);
    ms_handle h = {.in = e->fx.in, .rn = &rn};
    ms_framework fw;
    ms_error err = {0};
    const ms_plugin_ops *oot[] = {ms_policy_ops(p)};
    if (ms_framework_init_with(&fw, &pc, 0, &h, oot, 1, &err) != MS_OK) fail_msg("%s", err.msg);
    assert_true(ms_framework_has_filter_batch(&fw));
    assert_int_equal(ms_framework_begin_cycle(&fw, &e->c), MS_OK);
    ms_status st[4];
    assert_int_equal(ms_framework_run_pre_filter(&fw, &e->c, &st[0]), MS_SUCCESS);
    for (int i = 0; i < 4; i++)
        assert_int_equal(ms_framework_run_filter(&fw, &e->c, cl.nodes[i], &st[i]), MS_SUCCESS);
    assert_int_equal(ms_framework_run_filter_batch(&fw, &e->c, cl.nodes, 4, st), MS_SUCCESS);
    assert_int_equal(st[0].code, MS_SUCCESS);
    assert_int_equal(st[1].code, MS_UNSCHEDULABLE);
    assert_string_equal(st[1].reasons[0], "odd one");
    assert_string_equal(fw.plugins[st[1].plugin].ops->name, "odd");
    assert_int_equal(st[2].code, MS_SUCCESS);
    assert_int_equal(st[3].code, MS_UNSCHEDULABLE);
    ms_framework_destroy(&fw);
    ms_config_free(&(ms_config){0});
    ms_policy_free(p);
    free_cluster(&cl);
    env_free(e);
}

/* pre_filter's "skip" skips the policy's Filter and its Score. */
static void test_pre_filter_skip_skips_score(void **state) {
    (void)state;
    env *e = env_new(0, 0, MS_POLICY_REJECT);
    cluster cl = make_cluster(e, 2);
    ms_policy *p = load(e,
        "return {name = 'skipper', pre_filter = function() return 'skip' end,\n"
        "  filter = function() return false, 'no' end, score = function() error('scored') end}\n");
    ms_profile_config pc;
    ms_profile_config_default(&pc, "lua-sched");
    ms_plugin_config *pl = &pc.plugins[pc.nplugins];
    memset(pl, 0, sizeof *pl);
    snprintf(pl->name, sizeof pl->name, "skipper");
    pl->points = (1u << MS_EP_PRE_FILTER) | (1u << MS_EP_FILTER) | (1u << MS_EP_SCORE);
    pl->weight = 1;
    pc.nplugins++;
    ms_resource_names rn;
    ms_resource_names_init(&rn, e->fx.in);
    ms_handle h = {.in = e->fx.in, .rn = &rn};
    ms_framework fw;
    ms_error err = {0};
    const ms_plugin_ops *oot[] = {ms_policy_ops(p)};
    if (ms_framework_init_with(&fw, &pc, 0, &h, oot, 1, &err) != MS_OK) fail_msg("%s", err.msg);
    assert_int_equal(ms_framework_begin_cycle(&fw, &e->c), MS_OK);
    ms_status st[2];
    assert_int_equal(ms_framework_run_pre_filter(&fw, &e->c, &st[0]), MS_SUCCESS);
    ms_status_ok(&st[0]);
    ms_status_ok(&st[1]);
    assert_int_equal(ms_framework_run_filter_batch(&fw, &e->c, cl.nodes, 2, st), MS_SUCCESS);
    assert_int_equal(st[0].code, MS_SUCCESS);
    int64_t totals[2];
    ms_status sst;
    assert_int_equal(ms_framework_run_pre_score(&fw, &e->c, cl.nodes, 2, &sst), MS_SUCCESS);
    assert_int_equal(ms_framework_run_score(&fw, &e->c, cl.nodes, 2, totals, NULL, &sst), MS_SUCCESS);
    ms_policy_stats stats;
    ms_policy_get_stats(p, &stats);
    if (stats.failures) fail_msg("%s", ms_policy_last_error(p));
    ms_framework_destroy(&fw);
    ms_policy_free(p);
    free_cluster(&cl);
    env_free(e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_views_read_decoded_objects),
        cmocka_unit_test(test_filter_and_score_batch),
        cmocka_unit_test(test_normalize_default),
        cmocka_unit_test(test_custom_normalize_and_bad_scores),
        cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_budget_stops_compiled_loops),
        cmocka_unit_test(test_memory_cap),
        cmocka_unit_test(test_stale_view_errors),
        cmocka_unit_test(test_failures_skip_disable_and_swap),
        cmocka_unit_test(test_reject_mode_reason),
        cmocka_unit_test(test_sandbox),
        cmocka_unit_test(test_queue_reserve_permit_preemption),
        cmocka_unit_test(test_framework_batch_filter),
        cmocka_unit_test(test_pre_filter_skip_skips_score),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
