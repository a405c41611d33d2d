-- The environment a policy runs in: an allow-list of globals, read-only
-- library tables, and an error for reading an undefined global. The
-- runtime's own globals (ffi, require, package, io is not even opened) are
-- out of reach: a policy's functions only ever see this table.

local M = {}

local setmetatable, getmetatable, setfenv, load, type, error, tostring =
    setmetatable, getmetatable, setfenv, load, type, error, tostring
local pairs, ipairs, next, concat = pairs, ipairs, next, table.concat
local select, tonumber = select, tonumber

--- A read-only table: writes raise an error, and `__metatable = false`
--- makes setmetatable refuse it and getmetatable return false.
local function protector(real)
    return function(t, name)
        local proxy = setmetatable({}, {
            __index = t,
            __newindex = function(_, k)
                error("cannot set " .. name .. "." .. tostring(k) .. ": " .. name
                    .. " is read-only", 2)
            end,
            __metatable = false,
        })
        real[proxy] = t
        return proxy
    end
end

local function copy(t, drop)
    local c = {}
    for k, v in pairs(t) do
        if not (drop and drop[k]) then c[k] = v end
    end
    return c
end

--- Text chunks only: a binary chunk (LuaJIT or PUC bytecode) can break out
--- of any sandbox.
local function is_binary(s)
    return s:byte(1) == 27
end

--- Builds the environment. `make_sched(protect)` builds `sched`.
function M.env(views, make_sched)
    local real = setmetatable({}, { __mode = "k" })
    local protect = protector(real)
    local env = {}

    local function safe_load(chunk, chunkname)
        if type(chunk) == "function" then
            local parts = {}
            while true do
                local piece = chunk()
                if piece == nil or piece == "" then break end
                if type(piece) ~= "string" then
                    return nil, "reader function must return a string"
                end
                parts[#parts + 1] = piece
            end
            chunk = concat(parts)
        end
        if type(chunk) ~= "string" then
            error("bad argument #1 to 'load' (string expected, got " .. type(chunk) .. ")", 2)
        end
        if is_binary(chunk) then return nil, "binary chunks are not allowed" end
        local f, err = load(chunk, chunkname or "=(load)", "t")
        if not f then return nil, err end
        return setfenv(f, env)
    end

    env.string = protect(copy(string, { dump = true }), "string")
    env.table = protect(copy(table), "table")
    env.math = protect(copy(math), "math")
    env.bit = protect(copy(bit), "bit")
    env.os = protect({ time = os.time, clock = os.clock }, "os")
    env.sched = make_sched(protect)

    -- The contract's list (docs/policies.md, "Sandbox"), no more: a policy
    -- that runs here runs wherever the contract is honoured.
    env.error = error
    env.pcall = pcall
    env.type = type
    env.tostring = tostring
    -- tonumber of a string remembers its result: numeric labels and
    -- annotations (prices, loads) are read per node, a few distinct texts
    -- many times, and LuaJIT parses a decimal fraction slowly (100 ns).
    -- The same results as tonumber's; texts of up to 64 bytes (it keeps
    -- them alive, under the policy's memory cap), at most 4096 of them,
    -- then it starts over.
    local numbers, nnumbers = {}, 0
    env.tonumber = function(...)
        local x = ...
        if type(x) == "string" and #x <= 64 and select("#", ...) == 1 then
            local v = numbers[x]
            if v == nil then
                v = tonumber(x) or false
                if nnumbers >= 4096 then numbers, nnumbers = {}, 0 end
                numbers[x] = v
                nnumbers = nnumbers + 1
            end
            return v or nil
        end
        return tonumber(...)
    end
    env.select = select
    -- The library tables a policy sees are empty proxies: next, like
    -- pairs, walks what they stand for, and neither hands out the table
    -- behind (it would be writable).
    local function env_next(t, k)
        return next(real[t] or t, k)
    end
    env.next = env_next
    env.unpack = unpack
    env.setmetatable = setmetatable
    -- Strings share one metatable whose __index is the real string table;
    -- views are cdata: only plain tables have a metatable to show.
    env.getmetatable = function(x)
        if type(x) ~= "table" then return nil end
        return getmetatable(x)
    end
    env.pairs = function(t)
        local it, st, ctl = views.pairs_of(t)
        if it then return it, st, ctl end
        if real[t] then return env_next, t, nil end
        return pairs(t)
    end
    -- The library tables have no array part: ipairs finds nothing in them.
    env.ipairs = function(t)
        local it, st, ctl = views.ipairs_of(t)
        if it then return it, st, ctl end
        return ipairs(t)
    end
    -- The contract refuses binary chunks only: text chunks load.
    env.load = safe_load
    env.loadstring = safe_load

    setmetatable(env, {
        __index = function(_, k)
            error("undefined global '" .. tostring(k) .. "'", 2)
        end,
        __metatable = false,
    })
    return env
end

--- Loads a policy's source into env and runs its top level; returns what
--- the chunk returned.
function M.run_policy(env, src, chunkname)
    if is_binary(src) then error("binary chunks are not allowed", 0) end
    local f, err = load(src, chunkname, "t")
    if not f then error(err, 0) end
    setfenv(f, env)
    return f()
end

return M
