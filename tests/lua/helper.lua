-- Drives the real C library (build/libmoonsched.so) through the FFI, as
-- the scheduler would: decoded pods and nodes, NodeInfos, a runtime, and
-- policies loaded from source text. Run from the repository root.
local ffi = require("ffi")

ffi.cdef([[
typedef struct ms_interner ms_interner;
typedef struct cJSON cJSON;
typedef struct ms_pod ms_pod;
typedef struct ms_node ms_node;
typedef struct ms_node_info ms_node_info;
typedef struct ms_lua_runtime ms_lua_runtime;
typedef struct ms_lua_state ms_lua_state;
typedef struct ms_policy ms_policy;
typedef struct ms_error { int rc; char msg[512]; } ms_error;
typedef struct ms_resource_names { uint32_t builtin[4]; } ms_resource_names;
typedef struct ms_decoder { ms_interner *in; ms_resource_names rn; uint32_t default_scheduler; } ms_decoder;
typedef struct ms_arena { void *head; size_t block_size; size_t total; } ms_arena;
typedef struct ms_status { uint8_t code; uint8_t nreasons; int16_t plugin; const char *reasons[4]; } ms_status;
typedef struct ms_cycle {
  ms_pod *pod; void *qp; const void *snap; ms_arena *arena; void **state; uint32_t current;
  uint64_t skip_filter; uint64_t skip_score; const void *h; uint64_t cycle;
} ms_cycle;
typedef struct ms_lua_options {
  double budget; size_t memory; uint32_t max_failures; uint8_t on_error;
  void *log; void *log_ctx; void *now; void *now_ctx; void *permit; void *permit_ctx;
  void *disabled; void *disabled_ctx;
} ms_lua_options;
typedef struct ms_policy_stats {
  uint64_t calls, failures, budget_kills, memory_errors; uint32_t consecutive;
} ms_policy_stats;
typedef struct ms_plugin_ops {
  const char *name; uint32_t events;
  void *create, *destroy;
  bool (*pre_enqueue)(void *self, const ms_pod *pod, const char **reason);
  void *less;
  int (*pre_filter)(void *self, ms_cycle *c, ms_status *st);
  void *filter, *post_filter, *pre_score;
  int (*score)(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n, int64_t *scores, ms_status *st);
  void *normalize_score, *reserve, *unreserve, *permit, *pre_bind, *bind, *post_bind;
  int (*filter_batch)(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n, ms_status *statuses);
  void *ctx;
} ms_plugin_ops;

ms_interner *ms_interner_new(void);
void ms_interner_free(ms_interner *in);
uint32_t ms_intern_cstr(ms_interner *in, const char *s);
void ms_decoder_init(ms_decoder *d, ms_interner *in);
int ms_json_parse(const char *buf, size_t len, cJSON **out, ms_error *err);
int ms_pod_decode(const ms_decoder *d, const cJSON *obj, ms_pod **out, ms_error *err);
int ms_node_decode(const ms_decoder *d, const cJSON *obj, ms_node **out, ms_error *err);
void ms_pod_unref(ms_pod *p);
void ms_node_unref(ms_node *n);
ms_node_info *ms_node_info_new(uint32_t name);
void ms_node_info_free(ms_node_info *ni);
void ms_node_info_set_node(ms_node_info *ni, ms_node *node);
int ms_node_info_add_pod(ms_node_info *ni, ms_pod *pod, ms_interner *in);
void ms_arena_init(ms_arena *a, size_t first_block);
void ms_arena_reset(ms_arena *a);
void ms_arena_free(ms_arena *a);
void ms_lua_options_default(ms_lua_options *o);
int ms_lua_runtime_new(const ms_lua_options *o, ms_interner *in, ms_lua_runtime **out, ms_error *err);
void ms_lua_runtime_free(ms_lua_runtime *rt);
int ms_lua_state_load(ms_lua_runtime *rt, const char *chunkname, const char *src, size_t len,
                      const cJSON *args, ms_lua_state **out, ms_error *err);
void ms_lua_state_free(ms_lua_state *s);
size_t ms_lua_state_memory(const ms_lua_state *s);
int ms_policy_new(ms_lua_runtime *rt, ms_lua_state *first, ms_policy **out, ms_error *err);
void ms_policy_free(ms_policy *p);
ms_lua_state *ms_policy_swap(ms_policy *p, ms_lua_state *next);
const ms_lua_state *ms_policy_state(const ms_policy *p);
const ms_plugin_ops *ms_policy_ops(ms_policy *p);
bool ms_policy_disabled(const ms_policy *p);
const char *ms_policy_last_error(const ms_policy *p);
void ms_policy_get_stats(const ms_policy *p, ms_policy_stats *out);
void cJSON_Delete(cJSON *item);
struct timespec { long tv_sec; long tv_nsec; };
int clock_gettime(int clk, struct timespec *tp);
]])

local M = {}
-- A name with a slash is a path for dlopen, not a library to search for.
M.C = ffi.load(os.getenv("MOONSCHED_LIB") or "build/libmoonsched.so")
local C = M.C
-- cJSON_Delete comes with libmoonsched.so's own dependency.
local cjson = ffi.load("libcjson.so.1")

M.SUCCESS, M.ERROR, M.UNSCHEDULABLE, M.UNRESOLVABLE, M.WAIT, M.SKIP = 0, 1, 2, 3, 4, 5

local function check(rc, err, what)
    if rc ~= 0 then error(what .. ": " .. ffi.string(err.msg), 3) end
end

--- A world: interner, decoder, runtime, a cycle arena.
--- opts: budget (s), memory (bytes), on_error (0 reject, 1 skip), max_failures.
function M.world(opts)
    opts = opts or {}
    local w = { objects = {}, infos = {}, policies = {} }
    w.in_ = C.ms_interner_new()
    w.dec = ffi.new("ms_decoder")
    C.ms_decoder_init(w.dec, w.in_)
    local o = ffi.new("ms_lua_options")
    C.ms_lua_options_default(o)
    if opts.budget then o.budget = opts.budget end
    if opts.memory then o.memory = opts.memory end
    if opts.on_error then o.on_error = opts.on_error end
    if opts.max_failures then o.max_failures = opts.max_failures end
    local err = ffi.new("ms_error")
    local rt = ffi.new("ms_lua_runtime *[1]")
    check(C.ms_lua_runtime_new(o, w.in_, rt, err), err, "runtime")
    w.rt = rt[0]
    w.arena = ffi.new("ms_arena")
    C.ms_arena_init(w.arena, 4096)
    w.cycle = ffi.new("ms_cycle")
    w.cycle.arena = w.arena
    w.cycle.cycle = 1
    return setmetatable(w, { __index = M })
end

local function decode(w, fn, ctype, json)
    local err = ffi.new("ms_error")
    local doc = ffi.new("cJSON *[1]")
    check(C.ms_json_parse(json, #json, doc, err), err, "json")
    local out = ffi.new(ctype .. " *[1]")
    local rc = fn(w.dec, doc[0], out, err)
    cjson.cJSON_Delete(doc[0])
    check(rc, err, "decode")
    return out[0]
end

function M:pod(json)
    local p = decode(self, C.ms_pod_decode, "ms_pod", json)
    self.objects[#self.objects + 1] = function() C.ms_pod_unref(p) end
    return p
end

--- A NodeInfo for a node, with pods on it.
function M:node(json, pods)
    local n = decode(self, C.ms_node_decode, "ms_node", json)
    local name = json:match('"name"%s*:%s*"([^"]+)"')
    local ni = C.ms_node_info_new(C.ms_intern_cstr(self.in_, name))
    C.ms_node_info_set_node(ni, n)
    C.ms_node_unref(n)
    for _, p in ipairs(pods or {}) do
        assert(C.ms_node_info_add_pod(ni, p, self.in_) == 0)
    end
    self.infos[#self.infos + 1] = ni
    return ni
end

--- Loads a policy; returns it, or nil and the error.
function M:policy(src)
    local err = ffi.new("ms_error")
    local s = ffi.new("ms_lua_state *[1]")
    if C.ms_lua_state_load(self.rt, "=spec.lua", src, #src, nil, s, err) ~= 0 then
        return nil, ffi.string(err.msg)
    end
    local p = ffi.new("ms_policy *[1]")
    check(C.ms_policy_new(self.rt, s[0], p, err), err, "policy")
    local ops = C.ms_policy_ops(p[0])
    assert(ops.ctx == ffi.cast("void *", p[0]), "ms_plugin_ops layout in helper.lua is out of date")
    self.policies[#self.policies + 1] = p[0]
    return p[0]
end

function M:reload(p, src)
    local err = ffi.new("ms_error")
    local s = ffi.new("ms_lua_state *[1]")
    if C.ms_lua_state_load(self.rt, "=spec.lua", src, #src, nil, s, err) ~= 0 then
        return nil, ffi.string(err.msg)
    end
    C.ms_lua_state_free(C.ms_policy_swap(p, s[0]))
    return true
end

local function nodes_array(nodes)
    local arr = ffi.new("ms_node_info *[?]", #nodes)
    for i, ni in ipairs(nodes) do arr[i - 1] = ni end
    return arr
end

local function status_of(st)
    local r = { code = st.code }
    if st.nreasons > 0 then r.reason = ffi.string(st.reasons[0]) end
    return r
end

--- Filter for pod over nodes: an array of {code, reason}.
function M:filter(p, pod, nodes)
    self.cycle.pod = pod
    self.cycle.cycle = self.cycle.cycle + 1
    local sts = ffi.new("ms_status[?]", #nodes)
    local ops = C.ms_policy_ops(p)
    local rc = ops.filter_batch(ffi.cast("void *", p), self.cycle, nodes_array(nodes), #nodes, sts)
    C.ms_arena_reset(self.arena)
    local out = { rc = rc }
    for i = 1, #nodes do out[i] = status_of(sts[i - 1]) end
    return out
end

--- Score: the scores (0..100) and the status.
function M:score(p, pod, nodes)
    self.cycle.pod = pod
    self.cycle.cycle = self.cycle.cycle + 1
    local scores = ffi.new("int64_t[?]", #nodes)
    local st = ffi.new("ms_status")
    local ops = C.ms_policy_ops(p)
    local rc = ops.score(ffi.cast("void *", p), self.cycle, nodes_array(nodes), #nodes, scores, st)
    C.ms_arena_reset(self.arena)
    local out = {}
    for i = 1, #nodes do out[i] = tonumber(scores[i - 1]) end
    return rc, out, status_of(st)
end

function M.stats(_, p)
    local s = ffi.new("ms_policy_stats")
    C.ms_policy_get_stats(p, s)
    return s
end

function M:close()
    for _, p in ipairs(self.policies) do C.ms_policy_free(p) end
    for _, ni in ipairs(self.infos) do C.ms_node_info_free(ni) end
    for _, f in ipairs(self.objects) do f() end
    C.ms_lua_runtime_free(self.rt)
    C.ms_arena_free(self.arena)
    C.ms_interner_free(self.in_)
end

--- Monotonic seconds.
function M.now()
    local t = ffi.new("struct timespec")
    ffi.C.clock_gettime(1, t)
    return tonumber(t.tv_sec) + tonumber(t.tv_nsec) * 1e-9
end

return M
