/* Policy states: loading and its errors, the sandbox, the memory cap, and
 * the views over decoded objects (live for one call only). */
#include "testutil.h"
#include "lua_env.h"
#include "policy/lua_state.h"

#include <lauxlib.h>
#include <lualib.h>
#include <malloc.h>

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

/* A reason whose text is also a pod's name outlives the pod: the name's
 * release does not take the reason's id from it. */
static void test_reason_outlives_a_pod_name(void **state) {
    (void)state;
    env *e = env_new(0, 0, MS_POLICY_REJECT);
    ms_lua_state *s = NULL;
    ms_error err = {0};
    const char *src = "return {name = 'r'}";
    if (ms_lua_state_load(e->rt, "=r", src, strlen(src), NULL, &s, &err) != MS_OK) fail_msg("%s", err.msg);
    ms_str name = ms_intern_counted(e->fx.in, "web-7", 5);
    ms_str reason = ms_lua_reason(s, "web-7", 5);
    assert_int_equal(reason, name);
    ms_str_release(e->fx.in, name);
    assert_int_equal(ms_intern_find(e->fx.in, "web-7", 5), reason);
    assert_string_equal(ms_str_get(e->fx.in, reason), "web-7");
    ms_lua_state_free(s);
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
    assert_non_null(strstr(load_error(e, src, strlen(src), &err), "load budget (initBudgetMs)"));
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

/* A load error names its file in full and once, however long the path:
 * past LUA_IDSIZE Lua's own place shortens it ("...TAIL:2:"), past 127
 * bytes the state's name cuts it. Each shape, with a path of 200 bytes. */
static void test_load_errors_name_a_long_file_once(void **state) {
    (void)state;
    env *e = env_new(0, 0, MS_POLICY_REJECT);
    char file[201], chunk[202], want[512];
    memset(file, 'd', sizeof file - 1);
    file[sizeof file - 1] = 0;
    memcpy(file + sizeof file - 9, "/p.lua", 7);
    snprintf(chunk, sizeof chunk, "@%s", file);
    ms_lua_limits lim;
    ms_lua_limits_default(&lim);
    lim.init_budget = 0.02;
    static const struct {
        const char *src, *fmt;  /* fmt: the message, %s the file */
    } cases[] = {
        {"local x = \nreturn {}", "%s:2: unexpected symbol near 'return'"},
        {"local p = {name = 'x'}\nfunction p.init() error('no ' .. 'init') end\nreturn p", "%s:2: no init"},
        {"error('plain', 0)", "policy %s: plain"},
        {"return 42", "policy %s: a policy file must return a table, not number"},
        {"error({})", "policy %s: (error object is a table value)"},
        {"while true do end", "policy %s: stopped after its load budget (initBudgetMs) of 20 ms"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_lua_state *s = NULL;
        ms_error err = {0};
        assert_int_not_equal(
            ms_lua_state_load_ex(e->rt, &lim, chunk, cases[i].src, strlen(cases[i].src), NULL, &s, &err), MS_OK);
        assert_null(s);
        snprintf(want, sizeof want, cases[i].fmt, file);
        assert_string_equal(err.msg, want);
    }
    env_free(e);
}

/* A version refused at load gives back all it took, wherever the budget
 * stops it: in its top level, in the parser (a file of a million
 * statements takes far longer to read than 1 ms on any machine), in init.
 * Under ASan, LeakSanitizer finds what a refusal leaves at exit. The
 * runtime's own setup is outside the budget: a 1 ms load budget loads a
 * policy that does nothing on its own. */
static void test_refused_at_the_budget_frees_everything(void **state) {
    (void)state;
    env *e = env_new(0, 0, MS_POLICY_REJECT);
    ms_lua_limits lim;
    ms_lua_limits_default(&lim);
    lim.budget = 0.001;
    lim.init_budget = 0.001;
    size_t n = 6u << 20;
    char *big = malloc(n + 1);
    assert_non_null(big);
    for (size_t i = 0; i + 6 <= n; i += 6) memcpy(big + i, "x = 1 ", 6);
    big[n] = 0;
    const char *const srcs[] = {
        "while true do end",
        big,
        "local p = {name = 'x'} function p.init() while true do end end return p",
    };
    for (int round = 0; round < 5; round++)
        for (size_t i = 0; i < sizeof srcs / sizeof *srcs; i++) {
            ms_lua_state *s = NULL;
            ms_error err = {0};
            assert_int_not_equal(
                ms_lua_state_load_ex(e->rt, &lim, "=slow.lua", srcs[i], strlen(srcs[i]), NULL, &s, &err),
                MS_OK);
            assert_null(s);
            assert_non_null(strstr(err.msg, "load budget (initBudgetMs)"));
        }
    free(big);
    const char *src = "local p = {name = 'quick'} function p.filter() return true end return p";
    ms_lua_state *s = NULL;
    ms_error err = {0};
    if (ms_lua_state_load_ex(e->rt, &lim, "=quick.lua", src, strlen(src), NULL, &s, &err) != MS_OK)
        fail_msg("%s", err.msg);
    ms_lua_state_free(s);
    env_free(e);
}

/* A load runs under initBudgetMs, not the call budget: by default the
 * larger of the call budget and 1 s, so a top level that spends far more
 * than 1 ms of CPU on any machine (3e7 iterations) loads under a 1 ms call
 * budget; a top level that never ends is stopped at initBudgetMs, and the
 * calls after a load are back under the call budget. */
static void test_load_has_its_own_budget(void **state) {
    (void)state;
    env *e = env_new(0, 0, MS_POLICY_REJECT);
    ms_lua_limits lim;
    ms_lua_limits_default(&lim);
    lim.budget = 0.001;
    const char *src = "local x = 0 for i = 1, 3e7 do x = (x + i) % 7 end\n"
                      "local p = {name = 'slow-start'} function p.filter() return true end return p";
    ms_lua_state *s = NULL;
    ms_error err = {0};
    if (ms_lua_state_load_ex(e->rt, &lim, "=slow-start.lua", src, strlen(src), NULL, &s, &err) != MS_OK)
        fail_msg("%s", err.msg);
    assert_true(s->budget == 0.001);
    ms_lua_state_free(s);

    lim.init_budget = 0.05;
    src = "while true do end";
    s = NULL;
    assert_int_not_equal(ms_lua_state_load_ex(e->rt, &lim, "=spin.lua", src, strlen(src), NULL, &s, &err),
                         MS_OK);
    assert_null(s);
    /* "=NAME" names the policy as "@FILE" does, before its table does. */
    assert_string_equal(err.msg, "policy spin.lua: stopped after its load budget (initBudgetMs) of 50 ms");
    env_free(e);
}

/* A memory error raised inside compiled code, after calls stopped as the
 * watchdog stops them, on a bare LuaJIT state: the policy runtime around
 * it moves the frames and hides the defect behind timing. The allocator
 * refuses growth past a cap as a state's does; the watchdog's stop (a
 * count hook that raises an error, lua_runtime.c) is set at a chosen
 * moment, a call's first allocation of 1 MiB, so that it lands at the
 * same place on every machine. */
typedef struct capped {
    lua_State *L;
    size_t used, cap;
    bool stop;                     /* stop the call at its next big allocation */
} capped;

static void stop_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    luaL_error(L, "CPU budget exceeded");
}

static void *capped_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    capped *c = ud;
    if (nsize == 0) {
        free(ptr);
        c->used -= osize;
        return NULL;
    }
    size_t old = ptr ? osize : 0;
    if (nsize > old && c->used - old + nsize > c->cap) return NULL;
    if (c->stop && nsize >= ((size_t)1 << 20)) {
        c->stop = false;
        lua_sethook(c->L, stop_hook, LUA_MASKCOUNT, 1);
    }
    void *q = realloc(ptr, nsize);
    if (q) c->used = c->used - old + nsize;
    return q;
}

/* tests/hostile/concat-loop.lua's loop. Calls stopped before the cap (at
 * 1 MiB, before table.concat's branch is ever taken) make it hot: it is
 * compiled, with that branch left to the interpreter. In the next call,
 * with 24 MiB held elsewhere, the branch runs once, table.concat's frame
 * returns, the loop goes back into its trace, and the cap is hit in there
 * two turns later. LuaJIT's memory error took L->base, still at that
 * returned frame, for the running function's frame, and crashed on the
 * string the loop had since put in its function slot
 * (lua/luajit-oom-on-trace.patch). */
static void test_memory_cap_in_compiled_code_after_budget_stops(void **state) {
    (void)state;
    capped c = {NULL, 0, (size_t)64 << 20, false};
    lua_State *L = lua_newstate(capped_alloc, &c);
    assert_non_null(L);
    c.L = L;
    luaL_openlibs(L);
    const char *src = "local function score(_, _)\n"
                      "  local s, parts = 'x', {}\n"
                      "  while true do\n"
                      "    s = s .. s\n"
                      "    parts[#parts + 1] = s\n"
                      "    if #parts > 20 then parts = {table.concat(parts)} end\n"
                      "  end\n"
                      "end\n"
                      "return function() for i = 1, 3 do score(i, i) end end\n";
    assert_int_equal(luaL_loadstring(L, src), 0);
    lua_call(L, 0, 1);
    int ref = luaL_ref(L, LUA_REGISTRYINDEX);
    for (int i = 0; i < 10; i++) {
        c.stop = i < 6;
        if (i == 6) {
            /* 24 MiB held: the cap comes a few turns after table.concat. */
            lua_gc(L, LUA_GCCOLLECT, 0);
            assert_int_equal(luaL_dostring(L, "held = string.rep('b', 24 * 2 ^ 20)"), 0);
        }
        lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
        int rc = lua_pcall(L, 0, 0, 0);
        lua_sethook(L, NULL, 0, 0);
        if (i < 6) {
            assert_int_equal(rc, LUA_ERRRUN);
            assert_non_null(strstr(lua_tostring(L, -1), "CPU budget"));
            lua_settop(L, 0);
            continue;
        }
        /* As ms_lua_state_call does after a memory error. */
        assert_int_equal(rc, LUA_ERRMEM);
        lua_settop(L, 0);
        lua_gc(L, LUA_GCCOLLECT, 0);
        /* Back to what is held, and some the concatenation buffer keeps. */
        assert_true(c.used < ((size_t)24 << 20) + c.cap / 4);
    }
    assert_int_equal(luaL_dostring(L, "return ('x'):rep(10) .. 'y'"), 0);
    assert_string_equal(lua_tostring(L, -1), "xxxxxxxxxxy");
    lua_close(L);
    assert_int_equal(c.used, 0);
}

/* A state that held tens of MiB gives them back to the system when it is
 * freed, also when an allocation made after it sits above it in the heap
 * (what glibc keeps otherwise). Not under ASan, whose allocator is its own. */
static void test_freed_big_state_gives_memory_back(void **state) {
    (void)state;
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
    env *e = env_new(2.0, (size_t)64 << 20, MS_POLICY_REJECT);
    const char *src = "local big = {}\n"
                      "for i = 1, 10000 do big[i] = string.rep('x', 4096) .. i end\n"
                      "local p = {name = 'big'}\n"
                      "function p.filter() return #big > 0 end\n"
                      "return p\n";
    /* Anonymous memory only: the process's RSS also moves with the pages
     * of the binary and the libraries, which a loaded machine reclaims and
     * faults back whenever it likes. Memory earlier tests freed is given
     * back first, so that the state takes new pages, not resident ones. */
    malloc_trim(0);
    long before = tu_anon_rss_kib();
    ms_lua_state *s = NULL;
    ms_error err = {0};
    if (ms_lua_state_load(e->rt, "=big", src, strlen(src), NULL, &s, &err) != MS_OK) fail_msg("%s", err.msg);
    /* A block at the top of the heap, above the state: too big for any
     * free chunk the load left, and kept off mmap. */
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    void *pin = malloc(4 << 20);
    assert_non_null(pin);
    memset(pin, 1, 4 << 20);
    long held = tu_anon_rss_kib();
    ms_lua_state_free(s);
    long after = tu_anon_rss_kib();
    free(pin);
    mallopt(M_MMAP_THRESHOLD, 128 << 10);   /* glibc's default */
    print_message("# anonymous RSS %ld KiB before, %ld holding the state, %ld after freeing it\n", before, held, after);
    assert_true(held - before > 30 * 1024);
    assert_true(after - before < 12 * 1024);   /* the pin's 4 MiB included */
    env_free(e);
#endif
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
        {"local function f(s) return (s:gsub('.', f)) end return f('ab')", "C stack overflow"},
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_views_read_decoded_objects),
        cmocka_unit_test(test_stale_view_errors),
        cmocka_unit_test(test_reason_outlives_a_pod_name),
        cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_load_errors_name_a_long_file_once),
        cmocka_unit_test(test_refused_at_the_budget_frees_everything),
        cmocka_unit_test(test_load_has_its_own_budget),
        cmocka_unit_test(test_memory_cap),
        cmocka_unit_test(test_memory_cap_in_compiled_code_after_budget_stops),
        cmocka_unit_test(test_freed_big_state_gives_memory_back),
        cmocka_unit_test(test_sandbox),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
