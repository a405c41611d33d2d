-- The `sched` table a policy sees: cluster-wide node iteration, quantities,
-- label selectors, logging, the clock and the release of waiting pods.

local ffi = require("ffi")

local M = {}

local type, error, tostring, pairs, ipairs = type, error, tostring, pairs, ipairs
local sort, concat = table.sort, table.concat

local function contains(values, v)
    if type(values) ~= "table" then return false end
    for _, x in ipairs(values) do
        if x == v then return true end
    end
    return false
end

--- metav1.LabelSelector semantics: nil matches nothing, {} everything;
--- matchLabels and matchExpressions are ANDed; In/NotIn need values.
local function match_labels(sel, labels)
    if sel == nil then return false end
    if type(sel) ~= "table" then
        error("sched.match_labels: the selector is a table, not " .. type(sel), 2)
    end
    if labels == nil then labels = {} end
    local ml = sel.matchLabels
    if ml ~= nil then
        for k, v in pairs(ml) do
            if labels[k] ~= v then return false end
        end
    end
    local me = sel.matchExpressions
    if me ~= nil then
        for _, e in ipairs(me) do
            local op, values = e.operator, e.values
            local v = labels[e.key]
            if op == "In" then
                if v == nil or not contains(values, v) then return false end
            elseif op == "NotIn" then
                if type(values) ~= "table" or #values == 0 then return false end
                if v ~= nil and contains(values, v) then return false end
            elseif op == "Exists" then
                if v == nil then return false end
            elseif op == "DoesNotExist" then
                if v ~= nil then return false end
            else
                error("sched.match_labels: unknown operator " .. tostring(op), 2)
            end
        end
    end
    return true
end

--- Builds `sched` for the state of frame F; `protect` makes tables read-only.
function M.setup(F, views, protect)
    local api, S, C = F.api, F.state, ffi.C
    local NodeView = views.NodeView
    local value_box = ffi.new("double[1]")
    local milli_box = ffi.new("int64_t[1]")

    -- The state is a table the policy can write to: it holds no pointer,
    -- and the index is checked against the call's snapshot at every step.
    local function nodes_next(st)
        local snap = F.snap
        if F.epoch ~= st.e or snap == nil then
            error("sched.nodes() iterator used after its call", 2)
        end
        local i = st.i + 1
        if i >= 0 and i < snap.nnodes then
            st.i = i
            return NodeView(snap.nodes[i], F.epoch)
        end
        return nil
    end
    local function nodes()
        if F.snap == nil then
            error("sched.nodes() is only available during a scheduling cycle", 2)
        end
        return nodes_next, { e = F.epoch, i = -1 }, nil
    end

    --- "1.5Gi" -> 1610612736, "500m" -> 0.5; the second result is the
    --- value in thousandths (milli-units), as the core counts cpu.
    local function quantity(s)
        if type(s) == "number" then return s, s * 1000 end
        if type(s) ~= "string" then
            error("sched.quantity: expected a string, got " .. type(s), 2)
        end
        if api.quantity(s, #s, value_box, milli_box) ~= 0 then
            error("sched.quantity: invalid quantity \"" .. s .. "\"", 2)
        end
        return value_box[0], tonumber(milli_box[0])
    end

    local function format(msg, kv)
        local s = tostring(msg)
        if kv == nil then return s end
        if type(kv) ~= "table" then error("sched.log: fields are a table", 3) end
        local parts = {}
        for k, v in pairs(kv) do
            parts[#parts + 1] = tostring(k) .. "=" .. tostring(v)
        end
        sort(parts)
        return s .. " " .. concat(parts, " ")
    end
    local function logger(level)
        return function(msg, kv)
            local s = format(msg, kv)
            api.log(S, level, s, #s)
        end
    end

    local function release(allow)
        return function(uid, reason)
            if type(uid) ~= "string" then error("a pod uid is a string", 2) end
            if reason ~= nil then reason = tostring(reason) end
            return api.permit(S, uid, allow and 1 or 0, reason) ~= 0
        end
    end

    return protect({
        nodes = nodes,
        quantity = quantity,
        match_labels = match_labels,
        log = protect({ info = logger(C.MS_LUA_LOG_INFO), warn = logger(C.MS_LUA_LOG_WARN),
                        error = logger(C.MS_LUA_LOG_ERROR) }, "sched.log"),
        now = function() return api.now(S) end,
        permit = protect({ allow = release(true), deny = release(false) }, "sched.permit"),
    }, "sched")
end

M.match_labels = match_labels

return M
