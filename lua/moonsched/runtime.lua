-- The runtime inside one policy state. core/policy/lua_state.c calls
-- start() once (declarations, sandbox, the policy file, init), then the
-- returned dispatcher once per call, with the call's arguments in the
-- C-owned frame. Filter and Score loop over the candidate nodes here, so
-- that the loop and the policy's hook are compiled together by the JIT.
--
-- Operations, hook bits and result codes are the C enums of
-- core/policy/lua_abi.h, read by name from the declarations start()
-- receives (the MS_LUA_* constants of ffi.C): no number here stands for
-- one of them.

local ffi = require("ffi")

local M = {}

--- Hook name -> its bit.
local function hook_bits(C)
    return {
        pre_enqueue = C.MS_LUA_HOOK_PRE_ENQUEUE, less = C.MS_LUA_HOOK_LESS,
        pre_filter = C.MS_LUA_HOOK_PRE_FILTER, filter = C.MS_LUA_HOOK_FILTER,
        score = C.MS_LUA_HOOK_SCORE, normalize = C.MS_LUA_HOOK_NORMALIZE,
        reserve = C.MS_LUA_HOOK_RESERVE, unreserve = C.MS_LUA_HOOK_UNRESERVE,
        permit = C.MS_LUA_HOOK_PERMIT, select_victims = C.MS_LUA_HOOK_SELECT_VICTIMS,
        pick_preemption = C.MS_LUA_HOOK_PICK_PREEMPTION,
        deschedule = C.MS_LUA_HOOK_DESCHEDULE, evictable = C.MS_LUA_HOOK_EVICTABLE,
        add_pod = C.MS_LUA_HOOK_ADD_POD, remove_pod = C.MS_LUA_HOOK_REMOVE_POD,
        pick_devices = C.MS_LUA_HOOK_PICK_DEVICES,
    }
end

local type, error, tostring, tonumber, pairs = type, error, tostring, tonumber, pairs

--- The policy never sees the runtime's globals; still, leave nothing there
--- that reaches the file system or the process.
local function harden()
    -- luacheck: push ignore 122
    string.dump = nil
    for k in pairs(os) do
        if k ~= "time" and k ~= "clock" then os[k] = nil end
    end
    package.path, package.cpath, package.loadlib = "", "", nil
    -- Only the preload searcher: modules come from the binary.
    for i = #package.loaders, 2, -1 do package.loaders[i] = nil end
    -- luacheck: pop
end

--- The C side's layouts, checked against what the FFI made of them:
--- "type size align" and "type field offset size" lines.
local function verify(checks)
    for line in checks:gmatch("[^\n]+") do
        local t, a, b = line:match("^(%S+) (%S+) (%S+)")
        local size, offset = tonumber(a), tonumber(b)
        if size ~= nil then
            if ffi.sizeof(t) ~= size or ffi.alignof(t) ~= offset then
                error(("layout of %s: FFI size %d align %d, C size %d align %d"):format(
                    t, ffi.sizeof(t), ffi.alignof(t), size, offset))
            end
        elseif ffi.offsetof(t, a) ~= offset then
            error(("layout of %s.%s: FFI offset %s, C offset %d"):format(
                t, a, tostring(ffi.offsetof(t, a)), offset))
        end
    end
end

--- Levenshtein distance between two short names.
local function distance(a, b)
    local prev = {}
    for j = 0, #b do prev[j] = j end
    for i = 1, #a do
        local cur = { [0] = i }
        for j = 1, #b do
            local cost = a:byte(i) == b:byte(j) and 0 or 1
            cur[j] = math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
        end
        prev = cur
    end
    return prev[#b]
end

--- A function of the policy table whose name is a hook's, misspelt (at
--- most two edits away): the hook it meant, else nil.
local function misspelt(name, hooks)
    local best, bd = nil, 3
    for hook in pairs(hooks) do
        local d = distance(name, hook)
        if d < bd or (d == bd and best ~= nil and hook < best) then best, bd = hook, d end
    end
    for _, other in ipairs({ "init" }) do
        local d = distance(name, other)
        if d < bd then best, bd = other, d end
    end
    return best
end

local function validate(p, hooks, warn)
    if type(p) ~= "table" then
        error("a policy file must return a table, not " .. type(p), 0)
    end
    local name = rawget(p, "name")
    if type(name) ~= "string" or name == "" or #name > 100 then
        error("the policy table needs a name (a non-empty string)", 0)
    end
    local mask = 0
    for hook, b in pairs(hooks) do
        local f = rawget(p, hook)
        if f ~= nil then
            if type(f) ~= "function" then
                error(("%s must be a function, not %s"):format(hook, type(f)), 0)
            end
            mask = mask + b
        end
    end
    if rawget(p, "init") ~= nil and type(rawget(p, "init")) ~= "function" then
        error("init must be a function", 0)
    end
    local unknown = {}
    for k, v in pairs(p) do
        if type(k) == "string" and type(v) == "function" and hooks[k] == nil and k ~= "init" then
            unknown[#unknown + 1] = k
        end
    end
    table.sort(unknown)
    for _, k in ipairs(unknown) do
        local meant = misspelt(k, hooks)
        if meant ~= nil then
            warn(("%s is not a hook and is never called; did you mean %s?"):format(k, meant))
        end
    end
    return name, mask
end

local function dispatcher(F, policy, views, name)
    local api, S = F.api, F.state
    local PodView, NodeView = views.PodView, views.NodeView
    local ScoresView, NodesView, U64 = views.ScoresView, views.NodesView, views.U64
    local istype = ffi.istype
    local C = ffi.C
    local OP_PRE_ENQUEUE, OP_LESS, OP_PRE_FILTER = C.MS_LUA_OP_PRE_ENQUEUE, C.MS_LUA_OP_LESS,
        C.MS_LUA_OP_PRE_FILTER
    local OP_FILTER, OP_SCORE, OP_RESERVE = C.MS_LUA_OP_FILTER, C.MS_LUA_OP_SCORE, C.MS_LUA_OP_RESERVE
    local OP_UNRESERVE, OP_PERMIT = C.MS_LUA_OP_UNRESERVE, C.MS_LUA_OP_PERMIT
    local OP_SELECT_VICTIMS, OP_PICK_PREEMPTION = C.MS_LUA_OP_SELECT_VICTIMS,
        C.MS_LUA_OP_PICK_PREEMPTION
    local PRE_ENQUEUE_ADMIT, PRE_ENQUEUE_REJECT = C.MS_LUA_PRE_ENQUEUE_ADMIT,
        C.MS_LUA_PRE_ENQUEUE_REJECT
    local LESS_BEFORE, LESS_NOT_BEFORE = C.MS_LUA_LESS_BEFORE, C.MS_LUA_LESS_NOT_BEFORE
    local PRE_FILTER_PASS, PRE_FILTER_SKIP = C.MS_LUA_PRE_FILTER_PASS, C.MS_LUA_PRE_FILTER_SKIP
    local PRE_FILTER_REJECT = C.MS_LUA_PRE_FILTER_REJECT
    local PRE_FILTER_REJECT_UNRESOLVABLE = C.MS_LUA_PRE_FILTER_REJECT_UNRESOLVABLE
    local FILTER_PASS, FILTER_REJECT = C.MS_LUA_FILTER_PASS, C.MS_LUA_FILTER_REJECT
    local FILTER_REJECT_UNRESOLVABLE = C.MS_LUA_FILTER_REJECT_UNRESOLVABLE
    local SCORE_RAW, SCORE_NORMALIZED = C.MS_LUA_SCORE_RAW, C.MS_LUA_SCORE_NORMALIZED
    local RESERVE_OK, RESERVE_REJECT = C.MS_LUA_RESERVE_OK, C.MS_LUA_RESERVE_REJECT
    local PERMIT_ALLOW, PERMIT_DENY, PERMIT_WAIT = C.MS_LUA_PERMIT_ALLOW, C.MS_LUA_PERMIT_DENY,
        C.MS_LUA_PERMIT_WAIT
    local VICTIMS_NONE, VICTIMS_PICKED = C.MS_LUA_SELECT_VICTIMS_NONE, C.MS_LUA_SELECT_VICTIMS_PICKED
    local PICK_DEFAULT, PICK_FIRST = C.MS_LUA_PICK_PREEMPTION_DEFAULT, C.MS_LUA_PICK_PREEMPTION_FIRST
    local OP_DESCHEDULE, OP_EVICTABLE = C.MS_LUA_OP_DESCHEDULE, C.MS_LUA_OP_EVICTABLE
    local DESCHEDULE_NONE, DESCHEDULE_PICKED = C.MS_LUA_DESCHEDULE_NONE, C.MS_LUA_DESCHEDULE_PICKED
    local EVICTABLE_NO, EVICTABLE_YES = C.MS_LUA_EVICTABLE_NO, C.MS_LUA_EVICTABLE_YES

    -- `state`: one plain table per scheduling cycle.
    local cur_cycle, cur_state = -1, nil
    local function cycle_state()
        local c = F.cycle
        if c ~= cur_cycle then
            cur_cycle, cur_state = c, {}
        end
        return cur_state
    end

    -- A dry run (a node of preemption, nominated pods added) works on a
    -- copy of the state, as upstream clones CycleState, when the policy
    -- keeps counts through add_pod/remove_pod. Two levels: a node's dry
    -- run, and the nominated pods added inside it; a dry run of the
    -- first level ends every earlier one.
    local extends = rawget(policy, "add_pod") ~= nil or rawget(policy, "remove_pod") ~= nil
    local function copy(t, seen)
        if type(t) ~= "table" then return t end
        if seen[t] then return seen[t] end
        local c = {}
        seen[t] = c
        for k, v in pairs(t) do c[copy(k, seen)] = copy(v, seen) end
        return c
    end
    local dry_cycle, id1, st1, id2, st2 = -1, 0, nil, 0, nil
    local function state()
        local id = F.dry
        if id == 0 or not extends then return cycle_state() end
        local base = cycle_state()
        if dry_cycle ~= cur_cycle then dry_cycle, id1, id2 = cur_cycle, 0, 0 end
        if id == id1 then return st1 end
        if id == id2 then return st2 end
        if F.dry_base ~= 0 and F.dry_base == id1 then
            id2, st2 = id, copy(st1, {})
            return st2
        end
        id1, st1, id2, st2 = id, copy(base, {}), 0, nil
        return st1
    end

    -- Reasons become interned ids once per distinct text.
    local rcache, nr = {}, 0
    local function reason_id(why, default)
        if why == nil then
            why = default
        elseif type(why) ~= "string" then
            why = tostring(why)
        end
        local id = rcache[why]
        if id == nil then
            id = api.reason(S, why, #why)
            if nr < 4096 then
                rcache[why] = id
                nr = nr + 1
            end
        end
        return id
    end
    local rejected = "node(s) rejected by policy " .. name
    local refused = "rejected by policy " .. name

    local function node_name()
        return views.str(F.node_name)
    end

    local ops = {}

    ops[OP_PRE_ENQUEUE] = function()
        local f = policy.pre_enqueue
        if f == nil then F.result = PRE_ENQUEUE_ADMIT return end
        local ok, why = f(PodView(F.pod, F.epoch))
        if ok == false then
            F.result = PRE_ENQUEUE_REJECT
            F.reason = reason_id(why, refused)
        else
            F.result = PRE_ENQUEUE_ADMIT
        end
    end

    ops[OP_LESS] = function()
        local f = policy.less
        if f == nil then F.result = LESS_NOT_BEFORE return end
        local e = F.epoch
        F.result = f(PodView(F.pod, e), PodView(F.pod2, e)) and LESS_BEFORE or LESS_NOT_BEFORE
    end

    ops[OP_PRE_FILTER] = function()
        local f = policy.pre_filter
        if f == nil then F.result = PRE_FILTER_PASS return end
        local r, why, unresolvable = f(PodView(F.pod, F.epoch), cycle_state())
        if r == nil or r == true then
            F.result = PRE_FILTER_PASS
        elseif r == "skip" then
            F.result = PRE_FILTER_SKIP
        elseif r == false then
            F.result = unresolvable and PRE_FILTER_REJECT_UNRESOLVABLE or PRE_FILTER_REJECT
            F.reason = reason_id(why, refused)
        else
            error("pre_filter returned " .. tostring(r)
                .. ": expected nil, true, \"skip\" or false, reason", 0)
        end
    end

    -- A node passes when the first result is true (nil rejects, so that
    -- `return a and b, "why"` means what it says).
    ops[OP_FILTER] = function()
        local f, n, codes = policy.filter, F.n, F.codes
        if f == nil then
            for i = 0, n - 1 do codes[i] = FILTER_PASS end
            return
        end
        local e, nodes, reasons = F.epoch, F.nodes, F.reasons
        local pod, st = PodView(F.pod, e), state()
        for i = 0, n - 1 do
            local ok, why, unresolvable = f(pod, NodeView(nodes[i], e), st)
            if ok then
                codes[i] = FILTER_PASS
            else
                codes[i] = unresolvable and FILTER_REJECT_UNRESOLVABLE or FILTER_REJECT
                reasons[i] = reason_id(why, rejected)
            end
        end
    end

    local function bad_score(v, node)
        error(("score for %s is %s (a %s), not a finite number"):format(tostring(node), tostring(v),
            type(v)), 0)
    end

    ops[OP_SCORE] = function()
        local f, n, out = policy.score, F.n, F.scores
        F.result = SCORE_RAW
        if f == nil then
            for i = 0, n - 1 do out[i] = 0 end
            return
        end
        local e, nodes = F.epoch, F.nodes
        local pod, st = PodView(F.pod, e), cycle_state()
        for i = 0, n - 1 do
            local v = f(pod, NodeView(nodes[i], e), st)
            if type(v) ~= "number" or v - v ~= 0 then bad_score(v, NodeView(nodes[i], e)) end
            out[i] = v
        end
        local norm = policy.normalize
        if norm ~= nil then
            norm(pod, ScoresView(ffi.cast(U64, out), e, n), NodesView(ffi.cast(U64, nodes), e, n), st)
            F.result = SCORE_NORMALIZED
        end
    end

    ops[OP_RESERVE] = function()
        local f = policy.reserve
        if f == nil then F.result = RESERVE_OK return end
        local ok, why = f(PodView(F.pod, F.epoch), node_name(), cycle_state())
        if ok == false then
            F.result = RESERVE_REJECT
            F.reason = reason_id(why, refused)
        else
            F.result = RESERVE_OK
        end
    end

    ops[OP_UNRESERVE] = function()
        local f = policy.unreserve
        if f ~= nil then f(PodView(F.pod, F.epoch), node_name(), cycle_state()) end
    end

    ops[OP_PERMIT] = function()
        local f = policy.permit
        if f == nil then F.result = PERMIT_ALLOW return end
        local r, x = f(PodView(F.pod, F.epoch), node_name(), cycle_state())
        if r == nil or r == true or r == "allow" then
            F.result = PERMIT_ALLOW
        elseif r == "deny" or r == false then
            F.result = PERMIT_DENY
            F.reason = reason_id(x, refused)
        elseif r == "wait" then
            if type(x) ~= "number" or not (x >= 0) then -- luacheck: ignore 581 (NaN too)
                error("permit: \"wait\" needs a number of seconds, got " .. tostring(x), 0)
            end
            F.result = PERMIT_WAIT
            F.number = x
        else
            error("permit returned " .. tostring(r) .. ": expected \"allow\", \"deny\" or \"wait\"", 0)
        end
    end

    ops[OP_SELECT_VICTIMS] = function()
        local f = policy.select_victims
        if f == nil then F.result = VICTIMS_NONE return end
        local e = F.epoch
        local cands, index = {}, {}
        for i = 0, F.ncands - 1 do
            local addr = F.cands[i]
            cands[i + 1] = PodView(addr, e)
            index[tonumber(addr)] = i
        end
        local r = f(PodView(F.pod, e), NodeView(F.node, e), cands)
        if r == nil then F.result = VICTIMS_NONE return end
        if type(r) ~= "table" then
            error("select_victims returned a " .. type(r) .. ": expected an array of candidates or nil", 0)
        end
        local seen, k = {}, 0
        for j = 1, #r do
            local v = r[j]
            local idx = istype(PodView, v) and index[tonumber(v.__p)] or nil
            if idx == nil then
                error(("select_victims: entry %d is not one of the candidates"):format(j), 0)
            end
            if not seen[idx] then
                seen[idx] = true
                F.picked[k] = idx
                k = k + 1
            end
        end
        F.npicked = k
        F.result = VICTIMS_PICKED
    end

    ops[OP_PICK_PREEMPTION] = function()
        local f = policy.pick_preemption
        if f == nil then F.result = PICK_DEFAULT return end
        local e, n = F.epoch, F.noptions
        local options = {}
        for i = 0, n - 1 do
            local o = F.options[i]
            local victims = {}
            for j = 0, o.nvictims - 1 do victims[j + 1] = PodView(o.victims[j], e) end
            options[i + 1] = { node = NodeView(o.node, e), victims = victims,
                               pdb_violations = o.pdb_violations }
        end
        local r = f(PodView(F.pod, e), options)
        if r == nil then F.result = PICK_DEFAULT return end
        if type(r) ~= "number" or r % 1 ~= 0 or r < 1 or r > n then
            error(("pick_preemption returned %s: expected an index in 1..%d or nil"):format(
                tostring(r), n), 0)
        end
        local index = r - 1
        F.result = PICK_FIRST + index
    end

    -- deschedule(nodes): an array of pods of those nodes to evict, each a
    -- pod view or { pod = view, reason = "why" }.
    local descheduled = "evicted by policy " .. name
    ops[OP_DESCHEDULE] = function()
        local f = policy.deschedule
        if f == nil then F.result = DESCHEDULE_NONE return end
        local e = F.epoch
        local nodes, index = {}, {}
        for i = 0, F.n - 1 do nodes[i + 1] = NodeView(F.nodes[i], e) end
        for i = 0, F.ncands - 1 do index[tonumber(F.cands[i])] = i end
        local r = f(nodes)
        if r == nil then F.result = DESCHEDULE_NONE return end
        if type(r) ~= "table" then
            error("deschedule returned a " .. type(r) .. ": expected an array of pods or nil", 0)
        end
        local seen, k = {}, 0
        for j = 1, #r do
            local v, why = r[j], nil
            if type(v) == "table" then v, why = v.pod, v.reason end
            local idx = istype(PodView, v) and index[tonumber(v.__p)] or nil
            if idx == nil then
                error(("deschedule: entry %d is not a pod of the nodes it was given"):format(j), 0)
            end
            if not seen[idx] then
                seen[idx] = true
                F.picked[k] = idx
                F.reasons[k] = reason_id(why, descheduled)
                k = k + 1
            end
        end
        F.npicked = k
        F.result = DESCHEDULE_PICKED
    end

    -- evictable(pod): false, reason protects the pod; anything else lets
    -- the strategies evict it.
    local protected = "protected by policy " .. name
    ops[OP_EVICTABLE] = function()
        local f = policy.evictable
        if f == nil then F.result = EVICTABLE_YES return end
        local ok, why = f(PodView(F.pod, F.epoch))
        if ok == false then
            F.result = EVICTABLE_NO
            F.reason = reason_id(why, protected)
        else
            F.result = EVICTABLE_YES
        end
    end

    -- pick_devices(pod, node, options, state): options[i].devices, each
    -- device a plain table, built once per device for the call (a device
    -- is in several options).
    local ATTR_INT, ATTR_BOOL = C.MS_ATTR_INT, C.MS_ATTR_BOOL
    local PICK_DEVICES_DEFAULT, PICK_DEVICES_FIRST = C.MS_LUA_PICK_DEVICES_DEFAULT,
        C.MS_LUA_PICK_DEVICES_FIRST
    local function device_table(pk)
        local d, driver = pk.device, views.str(pk.driver)
        local attributes, capacity = {}, {}
        for i = 0, d.nattributes - 1 do
            local a = d.attributes[i]
            local v
            if a.type == ATTR_INT then
                v = tonumber(a.i)
            elseif a.type == ATTR_BOOL then
                v = a.b
            else
                v = views.str(a.s)
            end
            local domain, id = views.str(a.domain), views.str(a.id)
            attributes[domain .. "/" .. id] = v
            if domain == driver then attributes[id] = v end
        end
        for i = 0, d.ncapacity - 1 do
            local q = d.capacity[i]
            local domain, id = views.str(q.domain), views.str(q.id)
            capacity[domain .. "/" .. id] = tonumber(q.value)
            if domain == driver then capacity[id] = tonumber(q.value) end
        end
        return { name = views.str(d.name), driver = driver, pool = views.str(pk.pool),
                 attributes = attributes, capacity = capacity }
    end
    local UPTR = ffi.typeof("uintptr_t")
    ops[C.MS_LUA_OP_PICK_DEVICES] = function()
        local f = policy.pick_devices
        if f == nil then F.result = PICK_DEVICES_DEFAULT return end
        local e, n = F.epoch, F.noptions
        local seen, options = {}, {}
        for i = 0, n - 1 do
            local o = F.devices[i]
            local devices = {}
            for k = 0, o.npicks - 1 do
                local pk = o.picks[k]
                local key = tonumber(ffi.cast(UPTR, pk.device))
                local t = seen[key]
                if t == nil then
                    t = device_table(pk)
                    seen[key] = t
                end
                devices[k + 1] = { claim = views.str(pk.claim), request = views.str(pk.request),
                                   name = t.name, driver = t.driver, pool = t.pool,
                                   attributes = t.attributes, capacity = t.capacity }
            end
            options[i + 1] = { devices = devices }
        end
        local r = f(PodView(F.pod, e), NodeView(F.node, e), options, cycle_state())
        if r == nil then F.result = PICK_DEVICES_DEFAULT return end
        local best
        if type(r) == "table" then
            -- scores: the highest wins, the earliest among equals
            for i = 1, n do
                local v = r[i]
                if type(v) ~= "number" or v - v ~= 0 then
                    error(("pick_devices: score %d is %s: expected a finite number per option"):format(
                        i, tostring(v)), 0)
                end
                if best == nil or v > r[best] then best = i end
            end
        elseif type(r) == "number" and r % 1 == 0 and r >= 1 and r <= n then
            best = r
        else
            error(("pick_devices returned %s: expected an index in 1..%d, a score per option or nil"):format(
                tostring(r), n), 0)
        end
        local index = best - 1
        F.result = PICK_DEVICES_FIRST + index
    end

    -- add_pod(pod, other, node, state) / remove_pod(...): `other` was
    -- added to / removed from `node` (a dry run's copy) for `pod`.
    local function extension(f)
        if f == nil then return end
        local e, st = F.epoch, state()
        local pod, node = PodView(F.pod, e), NodeView(F.node, e)
        for i = 0, F.ncands - 1 do f(pod, PodView(F.cands[i], e), node, st) end
    end
    ops[C.MS_LUA_OP_ADD_POD] = function() extension(policy.add_pod) end
    ops[C.MS_LUA_OP_REMOVE_POD] = function() extension(policy.remove_pod) end

    local next_call = views.next_call
    return function()
        next_call()
        return ops[F.op]()
    end
end

--- Called once per state by core/policy/lua_state.c, outside the CPU budget:
--- the runtime's own setup, the same for every policy. Returns the function
--- that loads the policy, run under the budget: it returns the dispatcher,
--- the policy's name and the bits of the hooks it defines.
function M.start(frame, cdef, checks)
    harden()
    -- A policy's hooks call view metamethods several times per node, so
    -- they get hot before the runtime's loop over the nodes. Traces that
    -- start in them end in "return to lower frame" aborts, and the loop's
    -- trace is then recorded with the loop entered as an inner loop, where
    -- each tail call (`return math.floor(x)`) counts toward the unroll
    -- limit: past 15 the loop stays interpreted, over 100 times slower.
    require("jit.opt").start("loopunroll=60")
    ffi.cdef(cdef)
    verify(checks)
    local F = ffi.cast("ms_lua_frame *", frame)
    local views = require("moonsched.views").setup(F)
    local sandbox = require("moonsched.sandbox")
    local make_sched = require("moonsched.sched").setup
    local env = sandbox.env(views, function(protect) return make_sched(F, views, protect) end)
    local bits = hook_bits(ffi.C)
    local function warn(msg) F.api.log(F.state, ffi.C.MS_LUA_LOG_WARN, msg, #msg) end
    return function(chunkname, src, args)
        -- The runtime's own errors name no file: lua_state.c names it once.
        local policy = sandbox.run_policy(env, src, chunkname)
        local name, mask = validate(policy, bits, warn)
        local init = rawget(policy, "init")
        if init ~= nil then init(args) end
        return dispatcher(F, policy, views, name), name, mask
    end
end

return M
