-- The policy kit: drives the real C library (libmoonsched.so) through the
-- FFI, as the scheduler would: decoded pods and nodes, NodeInfos, a
-- runtime, policies loaded from source text or files, their hooks called
-- as a scheduling cycle calls them, and whole runs of `moonsched simulate`.
-- `moonsched policy test` runs busted specs with it on the path and tells
-- it where the library and the binary are (MOONSCHED_LIB, MOONSCHED_BIN);
-- without them (the repository's own specs, from its root) it takes
-- build/. docs/policies.md ("Testing a policy") is its guide.
local ffi = require("ffi")

-- The worlds hand C Lua callbacks (logs, permit releases). LuaJIT panics
-- ("bad callback") when C calls back into a state from a C function that
-- JIT-compiled code called, so the specs' own state runs interpreted. The
-- policies run in states of their own and keep their JIT.
require("jit").off()

local M = {}
-- A name with a slash is a path for dlopen, not a library to search for.
M.C = ffi.load(os.getenv("MOONSCHED_LIB") or "build/libmoonsched.so")
M.BIN = os.getenv("MOONSCHED_BIN") or "build/moonsched"
local C = M.C

-- The types and constants come from the library itself (generated from its
-- C headers, as the runtime inside each policy state gets them); only the
-- prototypes of the functions the specs call are declared here.
ffi.cdef([[
char *ms_lua_ffi_cdef(void);
void free(void *);
]])
do
    local text = C.ms_lua_ffi_cdef()
    assert(text ~= nil, "ms_lua_ffi_cdef: out of memory")
    ffi.cdef(ffi.string(text))
    ffi.C.free(text)
end

ffi.cdef([[
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
int ms_lua_state_load_file(ms_lua_runtime *rt, const char *path, const cJSON *args,
                           ms_lua_state **out, ms_error *err);
int ms_policy_select_victims(ms_policy *p, ms_cycle *c, const ms_node_info *ni,
                             ms_pod *const *candidates, uint32_t ncandidates,
                             uint32_t *victims, uint32_t *nvictims, ms_status *st);
int ms_policy_pick_preemption(ms_policy *p, ms_cycle *c, const ms_preemption_option *options,
                              uint32_t noptions, uint32_t *chosen, ms_status *st);
int ms_policy_pick_devices(ms_policy *p, ms_cycle *c, const ms_node_info *ni, const ms_device_option *options,
                           uint32_t noptions, uint32_t *chosen, ms_status *st);
int ms_policy_deschedule(ms_policy *p, ms_node_info *const *nodes, uint32_t nnodes,
                         ms_pod *const *pods, uint32_t npods, uint32_t *picked, uint32_t *reasons,
                         uint32_t *npicked, ms_status *st);
int ms_policy_evictable(ms_policy *p, const ms_pod *pod, ms_status *st);
const char *ms_str_get(const ms_interner *in, uint32_t id);
typedef int (*ms_object_cb)(void *ctx, const char *kind, const cJSON *obj, ms_error *err);
int ms_load_objects_file(const char *path, ms_object_cb cb, void *ctx, ms_error *err);
struct timespec { long tv_sec; long tv_nsec; };
int clock_gettime(int clk, struct timespec *tp);
]])

-- cJSON_Delete comes with libmoonsched.so's own dependency.
local cjson = ffi.load("libcjson.so.1")

M.SUCCESS, M.ERROR, M.UNSCHEDULABLE = ffi.C.MS_SUCCESS, ffi.C.MS_ERROR, ffi.C.MS_UNSCHEDULABLE
M.UNRESOLVABLE = ffi.C.MS_UNSCHEDULABLE_AND_UNRESOLVABLE
M.WAIT, M.SKIP = ffi.C.MS_WAIT, ffi.C.MS_SKIP

local function check(rc, err, what)
    if rc ~= 0 then error(what .. ": " .. ffi.string(err.msg), 3) end
end

--- A world: interner, decoder, runtime, a cycle arena.
--- opts: budget (s), memory (bytes), on_error (MS_POLICY_REJECT or
--- MS_POLICY_SKIP), max_failures.
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
    -- sched.permit.allow/deny land in w.permits as {uid, allow, reason}.
    w.permits = {}
    w.permit_cb = ffi.cast(ffi.typeof(o.permit), function(_, uid, allow, reason)
        w.permits[#w.permits + 1] = { uid = ffi.string(uid), allow = allow,
                                      reason = reason ~= nil and ffi.string(reason) or nil }
        return true
    end)
    o.permit = w.permit_cb
    -- Log lines (sched.log and the runtime's own) land in w.logs when
    -- opts.record_logs is set, as {level, policy, msg}.
    if opts.record_logs then
        w.logs = {}
        w.log_cb = ffi.cast(ffi.typeof(o.log), function(_, level, policy, msg)
            w.logs[#w.logs + 1] = { level = tonumber(level), policy = ffi.string(policy),
                                    msg = ffi.string(msg) }
        end)
        o.log = w.log_cb
    end
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

--- A pod the caller frees (M.C.ms_pod_unref): pods that come and go.
function M:pod_unowned(json)
    return decode(self, C.ms_pod_decode, "ms_pod", json)
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
    self.policies[#self.policies + 1] = p[0]
    return p[0]
end

--- Loads a policy file with args (a JSON object text, or nil); returns
--- it, or nil and the error.
function M:policy_file(path, args_json)
    local err = ffi.new("ms_error")
    local args = nil
    if args_json then
        local doc = ffi.new("cJSON *[1]")
        check(C.ms_json_parse(args_json, #args_json, doc, err), err, "args")
        args = doc[0]
    end
    local s = ffi.new("ms_lua_state *[1]")
    local rc = C.ms_lua_state_load_file(self.rt, path, args, s, err)
    if args then cjson.cJSON_Delete(args) end
    if rc ~= 0 then return nil, ffi.string(err.msg) end
    local p = ffi.new("ms_policy *[1]")
    check(C.ms_policy_new(self.rt, s[0], p, err), err, "policy")
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

--- One scheduling cycle of pod through policy p over nodes (all of them
--- are the snapshot sched.nodes() iterates): PreFilter, Filter, Score on
--- the nodes left, sharing one `state`. Returns a table:
---   skip (PreFilter said skip), rejected = {code, reason} (PreFilter),
---   filter = {{code, reason}...} per node, feasible = {NodeInfo...},
---   scores = {...} per feasible node (0..100), score_rc, score_status.
function M:schedule(p, pod, nodes)
    local c = self.cycle
    c.pod = pod
    c.cycle = c.cycle + 1
    local snap = ffi.new("ms_snapshot")
    local arr = nodes_array(nodes)
    snap.nodes, snap.nnodes = ffi.cast("const uint64_t *", arr), #nodes
    c.snap = snap
    local ops = C.ms_policy_ops(p)
    local self_p = ffi.cast("void *", p)
    local out = { filter = {}, feasible = {} }
    local st = ffi.new("ms_status")
    if ops.pre_filter ~= nil then
        local rc = ops.pre_filter(self_p, c, st)
        if rc == M.SKIP then
            out.skip = true
            c.snap = nil
            return out
        elseif rc ~= M.SUCCESS then
            out.rejected = status_of(st)
            c.snap = nil
            return out
        end
    end
    if ops.filter_batch ~= nil then
        local sts = ffi.new("ms_status[?]", #nodes)
        ops.filter_batch(self_p, c, arr, #nodes, sts)
        for i = 1, #nodes do
            out.filter[i] = status_of(sts[i - 1])
            if sts[i - 1].code == M.SUCCESS then out.feasible[#out.feasible + 1] = nodes[i] end
        end
    else
        for i = 1, #nodes do out.feasible[i] = nodes[i] end
    end
    if ops.score ~= nil and #out.feasible > 0 then
        local n = #out.feasible
        local scores = ffi.new("int64_t[?]", n)
        out.score_rc = ops.score(self_p, c, nodes_array(out.feasible), n, scores, st)
        out.score_status = status_of(st)
        out.scores = {}
        for i = 1, n do out.scores[i] = tonumber(scores[i - 1]) end
    end
    C.ms_arena_reset(self.arena)
    c.snap = nil
    return out
end

--- Reserve, Permit or Unreserve of pod on a node (by name), in a cycle
--- of its own. permit returns the code, the wait in seconds and the reason.
function M:reserve(p, pod, node)
    local c = self.cycle
    c.pod, c.cycle = pod, c.cycle + 1
    local st = ffi.new("ms_status")
    local rc = C.ms_policy_ops(p).reserve(ffi.cast("void *", p), c, C.ms_intern_cstr(self.in_, node), st)
    return rc, status_of(st).reason
end

function M:unreserve(p, pod, node)
    local c = self.cycle
    c.pod, c.cycle = pod, c.cycle + 1
    C.ms_policy_ops(p).unreserve(ffi.cast("void *", p), c, C.ms_intern_cstr(self.in_, node))
end

function M:permit(p, pod, node)
    local c = self.cycle
    c.pod, c.cycle = pod, c.cycle + 1
    local st = ffi.new("ms_status")
    local wait = ffi.new("double[1]")
    local rc = C.ms_policy_ops(p).permit(ffi.cast("void *", p), c, C.ms_intern_cstr(self.in_, node), wait, st)
    return rc, wait[0], status_of(st).reason
end

--- select_victims: the code and the chosen candidates (1-based indexes).
function M:select_victims(p, pod, ni, candidates)
    local c = self.cycle
    c.pod, c.cycle = pod, c.cycle + 1
    local n = #candidates
    local arr = ffi.new("ms_pod *[?]", n)
    for i, q in ipairs(candidates) do arr[i - 1] = q end
    local picked = ffi.new("uint32_t[?]", n + 1)
    local np = ffi.new("uint32_t[1]")
    local st = ffi.new("ms_status")
    local rc = C.ms_policy_select_victims(p, c, ni, arr, n, picked, np, st)
    local out = {}
    for i = 0, np[0] - 1 do out[#out + 1] = picked[i] + 1 end
    return rc, out, status_of(st)
end

--- deschedule(nodes) with `pods` the pods on those nodes: the code and
--- the pods chosen, each {index (1-based into pods), reason}.
function M:deschedule(p, nodes, pods)
    local n = #pods
    local arr = ffi.new("ms_pod *[?]", n + 1)
    for i, q in ipairs(pods) do arr[i - 1] = q end
    local picked = ffi.new("uint32_t[?]", n + 1)
    local reasons = ffi.new("uint32_t[?]", n + 1)
    local np = ffi.new("uint32_t[1]")
    local st = ffi.new("ms_status")
    local rc = C.ms_policy_deschedule(p, nodes_array(nodes), #nodes, arr, n, picked, reasons, np, st)
    local out = {}
    for i = 0, np[0] - 1 do
        out[#out + 1] = { index = picked[i] + 1, reason = ffi.string(C.ms_str_get(self.in_, reasons[i])) }
    end
    return rc, out, status_of(st)
end

--- evictable(pod): the code and the reason.
function M.evictable(_, p, pod)
    local st = ffi.new("ms_status")
    local rc = C.ms_policy_evictable(p, pod, st)
    return rc, status_of(st).reason
end

--- pick_preemption over options {node = NodeInfo, victims = {pods}, pdb = n}:
--- the code and the chosen option (1-based).
function M:pick(p, pod, options)
    local c = self.cycle
    c.pod, c.cycle = pod, c.cycle + 1
    local opts = ffi.new("ms_preemption_option[?]", #options)
    local keep = {}
    for i, o in ipairs(options) do
        local v = ffi.new("ms_pod *[?]", #o.victims)
        for j, q in ipairs(o.victims) do v[j - 1] = q end
        keep[i] = v
        -- The runtime's layout: pointers it turns into views are addresses.
        opts[i - 1].node = ffi.cast("uint64_t", o.node)
        opts[i - 1].victims = ffi.cast("const uint64_t *", v)
        opts[i - 1].nvictims = #o.victims
        opts[i - 1].pdb_violations = o.pdb or 0
    end
    local chosen = ffi.new("uint32_t[1]")
    local st = ffi.new("ms_status")
    local rc = C.ms_policy_pick_preemption(p, c, opts, #options, chosen, st)
    return rc, chosen[0] + 1, keep
end

--- pick_devices on node ni over options, each an array of devices
--- {claim, request, driver, pool, name, attributes = {id = value},
--- capacity = {id = number}} (ids of the driver's domain, or "domain/id";
--- a value an integer, a boolean or a string): the code and the chosen
--- option (1-based), the reason of a failure.
function M:pick_devices(p, pod, ni, options)
    local c = self.cycle
    c.pod, c.cycle = pod, c.cycle + 1
    local in_ = self.in_
    local function id(s) return C.ms_intern_cstr(in_, s) end
    local function qualified(driver, k)
        local domain, name = k:match("^(.+)/([^/]+)$")
        if domain == nil then return id(driver), id(k) end
        return id(domain), id(name)
    end
    local devices = {}
    local keep = { devices }
    local opts = ffi.new("ms_device_option[?]", #options)
    keep[#keep + 1] = opts
    for i, o in ipairs(options) do
        local picks = ffi.new("ms_device_pick[?]", #o)
        keep[#keep + 1] = picks
        for k, d in ipairs(o) do
            local key = d.pool .. "/" .. d.name
            local dev = devices[key]
            if dev == nil then
                dev = ffi.new("ms_device")
                local attrs, caps = {}, {}
                for name, v in pairs(d.attributes or {}) do attrs[#attrs + 1] = { name, v } end
                for name, v in pairs(d.capacity or {}) do caps[#caps + 1] = { name, v } end
                local a = ffi.new("ms_device_attribute[?]", #attrs + 1)
                for j, kv in ipairs(attrs) do
                    local x = a[j - 1]
                    x.domain, x.id = qualified(d.driver, kv[1])
                    local v = kv[2]
                    if type(v) == "boolean" then
                        x.type, x.b = C.MS_ATTR_BOOL, v
                    elseif type(v) == "number" then
                        x.type, x.i = C.MS_ATTR_INT, v
                    else
                        x.type, x.s = C.MS_ATTR_STRING, id(v)
                    end
                end
                local q = ffi.new("ms_device_capacity[?]", #caps + 1)
                for j, kv in ipairs(caps) do
                    q[j - 1].domain, q[j - 1].id = qualified(d.driver, kv[1])
                    q[j - 1].value = kv[2]
                end
                dev.name, dev.nattributes, dev.attributes = id(d.name), #attrs, a
                dev.ncapacity, dev.capacity = #caps, q
                devices[key] = dev
                keep[#keep + 1] = a
                keep[#keep + 1] = q
            end
            local pk = picks[k - 1]
            pk.claim, pk.request = id(d.claim or "gpu"), id(d.request or "gpu")
            pk.driver, pk.pool, pk.device = id(d.driver), id(d.pool), dev
        end
        opts[i - 1].picks, opts[i - 1].npicks = picks, #o
    end
    local chosen = ffi.new("uint32_t[1]")
    local st = ffi.new("ms_status")
    local rc = C.ms_policy_pick_devices(p, c, ni, opts, #options, chosen, st)
    -- keep: what the C side read, alive until the call returned
    return rc, chosen[0] + 1, status_of(st).reason, keep
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
    self.permit_cb:free()
    if self.log_cb then self.log_cb:free() end
    C.ms_arena_free(self.arena)
    C.ms_interner_free(self.in_)
end

--- A cluster from plain tables: c.nodes are node options (as node_json
--- takes them), c.pods pod options (as pod_json); a pod with `node` runs
--- there, the others are pending. Returns the NodeInfos, in order, and
--- the pending pods.
function M:cluster(c)
    local bound, pending = {}, {}
    for _, o in ipairs(c.pods or {}) do
        local p = self:pod(M.pod_json(o))
        if o.node then
            bound[o.node] = bound[o.node] or {}
            bound[o.node][#bound[o.node] + 1] = p
        else
            pending[#pending + 1] = p
        end
    end
    local nodes = {}
    for i, o in ipairs(c.nodes or {}) do nodes[i] = self:node(M.node_json(o), bound[o.name]) end
    return nodes, pending
end

--- A cluster file as `moonsched simulate --cluster` reads it (YAML or
--- JSON, lists flattened, other kinds skipped): the NodeInfos, in the
--- file's order, with the pods bound to them, and the pending pods, in
--- the file's order. Raises the decoder's error (file, object, field).
function M:cluster_file(path)
    local nodes, pods = {}, {}
    local err = ffi.new("ms_error")
    local cb = ffi.cast("ms_object_cb", function(_, kind, obj, e)
        kind = ffi.string(kind)
        if kind == "Node" then
            local out = ffi.new("ms_node *[1]")
            local rc = C.ms_node_decode(self.dec, obj, out, e)
            if rc == 0 then nodes[#nodes + 1] = out[0] end
            return rc
        elseif kind == "Pod" then
            local out = ffi.new("ms_pod *[1]")
            local rc = C.ms_pod_decode(self.dec, obj, out, e)
            if rc == 0 then pods[#pods + 1] = out[0] end
            return rc
        end
        return 0
    end)
    local rc = C.ms_load_objects_file(path, cb, nil, err)
    cb:free()
    for _, p in ipairs(pods) do self.objects[#self.objects + 1] = function() C.ms_pod_unref(p) end end
    if rc ~= 0 then
        for _, n in ipairs(nodes) do C.ms_node_unref(n) end
        error(ffi.string(err.msg), 2)
    end
    local infos, by_name = {}, {}
    for i, n in ipairs(nodes) do
        local ni = C.ms_node_info_new(n.meta.name)
        C.ms_node_info_set_node(ni, n)
        C.ms_node_unref(n)
        self.infos[#self.infos + 1] = ni
        infos[i], by_name[n.meta.name] = ni, ni
    end
    local pending = {}
    for _, p in ipairs(pods) do
        if p.node_name == 0 then
            pending[#pending + 1] = p
        elseif by_name[p.node_name] then
            assert(C.ms_node_info_add_pod(by_name[p.node_name], p, self.in_) == 0)
        end
    end
    return infos, pending
end

--- The name of a NodeInfo or a pod ("namespace/name" for a pod).
function M:name(x)
    if ffi.istype("ms_node_info *", x) then return ffi.string(C.ms_str_get(self.in_, x.name)) end
    return ffi.string(C.ms_str_get(self.in_, x.meta.namespace_)) .. "/"
        .. ffi.string(C.ms_str_get(self.in_, x.meta.name))
end

--- JSON text of a plain Lua value (for building objects in specs).
local function json(v)
    local t = type(v)
    if t == "string" then return ("%q"):format(v) end
    if t == "number" or t == "boolean" then return tostring(v) end
    if t ~= "table" then error("json: cannot encode " .. t) end
    if #v > 0 or next(v) == nil and getmetatable(v) == M.array then
        local parts = {}
        for i = 1, #v do parts[i] = json(v[i]) end
        return "[" .. table.concat(parts, ",") .. "]"
    end
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = k end
    table.sort(keys)
    local parts = {}
    for _, k in ipairs(keys) do parts[#parts + 1] = ("%q:%s"):format(k, json(v[k])) end
    return "{" .. table.concat(parts, ",") .. "}"
end
M.array = {}
M.json = json

--- A pod as JSON: name, ns, uid, labels, requests, priority, created (RFC 3339), node.
function M.pod_json(o)
    return json({
        metadata = { name = o.name, namespace = o.ns or "default", uid = o.uid,
                     labels = o.labels, annotations = o.annotations, creationTimestamp = o.created },
        spec = { priority = o.priority, nodeName = o.node,
                 containers = { { name = "c", resources = { requests = o.requests or {} } } } },
    })
end

--- A node as JSON: name, labels, annotations, allocatable (default 4 cpu, 16Gi, 110 pods).
function M.node_json(o)
    return json({
        metadata = { name = o.name, labels = o.labels, annotations = o.annotations },
        status = { allocatable = o.allocatable or { cpu = "4", memory = "16Gi", pods = "110" } },
    })
end

--- The value of a JSON text: objects and arrays are tables, null is nil.
--- Raises an error naming the byte where the text is not JSON.
function M.decode_json(s)
    local pos = 1
    local function fail(what) error(("json: %s at byte %d"):format(what, pos), 0) end
    local function ws() pos = s:find("[^ \t\r\n]", pos) or #s + 1 end
    local function peek() return s:sub(pos, pos) end
    local escapes = { b = "\b", f = "\f", n = "\n", r = "\r", t = "\t" }
    local function utf8(cp)
        if cp < 0x80 then return string.char(cp) end
        if cp < 0x800 then return string.char(0xC0 + math.floor(cp / 64), 0x80 + cp % 64) end
        return string.char(0xE0 + math.floor(cp / 4096), 0x80 + math.floor(cp / 64) % 64, 0x80 + cp % 64)
    end
    local function str()
        local out = {}
        pos = pos + 1
        while true do
            local _, b, chunk, c = s:find('^([^"\\]*)(["\\])', pos)
            if not b then fail("unterminated string") end
            out[#out + 1] = chunk
            pos = b + 1
            if c == '"' then return table.concat(out) end
            local e = s:sub(pos, pos)
            if e == "u" then
                local cp = tonumber(s:sub(pos + 1, pos + 4), 16) or fail("bad \\u escape")
                out[#out + 1] = utf8(cp)
                pos = pos + 5
            else
                out[#out + 1] = escapes[e] or e
                pos = pos + 1
            end
        end
    end
    local value
    local function list(close, item)
        pos = pos + 1
        ws()
        if peek() == close then
            pos = pos + 1
            return
        end
        while true do
            item()
            ws()
            local d = peek()
            pos = pos + 1
            if d == close then return end
            if d ~= "," then fail("expected ',' or '" .. close .. "'") end
        end
    end
    function value()
        ws()
        local c = peek()
        if c == "{" then
            local t = {}
            list("}", function()
                ws()
                if peek() ~= '"' then fail("expected a key") end
                local k = str()
                ws()
                if peek() ~= ":" then fail("expected ':'") end
                pos = pos + 1
                t[k] = value()
            end)
            return t
        elseif c == "[" then
            local t, n = {}, 0
            list("]", function()
                n = n + 1
                t[n] = value()
            end)
            return t
        elseif c == '"' then
            return str()
        end
        for lit, v in pairs({ ["true"] = true, ["false"] = false, null = M.null }) do
            if s:sub(pos, pos + #lit - 1) == lit then
                pos = pos + #lit
                if v == M.null then return nil end
                return v
            end
        end
        local num = s:match("^-?%d+%.?%d*[eE]?[-+]?%d*", pos)
        if not num or num == "" then fail("unexpected '" .. c .. "'") end
        pos = pos + #num
        return tonumber(num)
    end
    local v = value()
    ws()
    if pos <= #s then fail("trailing text") end
    return v
end
M.null = {}

local function shell_quote(s)
    return "'" .. tostring(s):gsub("'", [['\'']]) .. "'"
end

local function read_all(path)
    local f = io.open(path, "rb")
    if not f then return "" end
    local text = f:read("*a")
    f:close()
    return text
end

--- A whole run of `moonsched simulate --output json` (docs/simulate.md,
--- "JSON"), the binary the kit came with. opts.cluster: a file, a list of
--- files, or a table as M:cluster takes it; opts.policies: policy files
--- (--policy); opts.config: a KubeSchedulerConfiguration file; opts.seed.
--- Returns the decoded output, or nil and what the command printed on
--- its error stream.
function M.simulate(opts)
    local args, temp = { shell_quote(M.BIN), "simulate", "--output", "json" }, {}
    local clusters = opts.cluster
    if type(clusters) == "string" then clusters = { clusters } end
    if clusters.nodes or clusters.pods then
        local items = { nodes = {}, pods = {} }
        for _, o in ipairs(clusters.nodes or {}) do items.nodes[#items.nodes + 1] = M.node_json(o) end
        for _, o in ipairs(clusters.pods or {}) do items.pods[#items.pods + 1] = M.pod_json(o) end
        local path = os.tmpname()
        temp[#temp + 1] = path
        local f = assert(io.open(path, "w"))
        f:write('{"kind":"NodeList","apiVersion":"v1","items":[', table.concat(items.nodes, ","), ']}\n',
                '{"kind":"PodList","apiVersion":"v1","items":[', table.concat(items.pods, ","), ']}\n')
        f:close()
        clusters = { path }
    end
    for _, c in ipairs(clusters) do args[#args + 1] = "--cluster " .. shell_quote(c) end
    for _, p in ipairs(opts.policies or {}) do args[#args + 1] = "--policy " .. shell_quote(p) end
    if opts.config then args[#args + 1] = "--config " .. shell_quote(opts.config) end
    if opts.seed then args[#args + 1] = "--seed " .. shell_quote(opts.seed) end
    local errors = os.tmpname()
    temp[#temp + 1] = errors
    local out = io.popen(table.concat(args, " ") .. " 2>" .. shell_quote(errors))
    local text = out:read("*a")
    out:close()
    local diag = read_all(errors)
    for _, path in ipairs(temp) do os.remove(path) end
    local ok, v = pcall(M.decode_json, text)
    if not ok or type(v) ~= "table" then return nil, diag ~= "" and diag or tostring(v) end
    return v
end

--- The node a simulate run (M.simulate's result) placed a pod on,
--- "namespace/name"; nil when the pod was left pending or not seen.
function M.placement(out, pod)
    for _, pl in ipairs(out.placements or {}) do
        if pl.pod == pod then return pl.node end
    end
    return nil
end

--- Monotonic seconds.
function M.now()
    local t = ffi.new("struct timespec")
    ffi.C.clock_gettime(1, t)
    return tonumber(t.tv_sec) + tonumber(t.tv_nsec) * 1e-9
end

return M
