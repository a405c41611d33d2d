-- The policy contract (POLICY_API.md) checked against the real runtime:
-- the sandbox's globals are exactly the contract's list.
local h = require("tests.lua.helper")

-- What filter(pod, node) sees of `expr`: "ok:<tostring>" or "err:<message>".
local function probe(expr)
    return ([[
local p = {name = "probe"}
function p.filter(pod, node)
  local ok, r = pcall(function() return %s end)
  if ok then return false, "ok:" .. tostring(r) end
  return false, "err:" .. tostring(r)
end
return p]]):format(expr)
end

describe("the sandbox's globals", function()
    local w, pod, ni
    setup(function()
        w = h.world()
        pod = w:pod(h.pod_json({ name = "p" }))
        ni = w:node(h.node_json({ name = "n" }))
    end)
    teardown(function() w:close() end)

    local function see(expr)
        local p = assert(w:policy(probe(expr)))
        return w:filter(p, pod, { ni })[1].reason
    end

    -- "the safe Lua base (string, table, math, bit, pairs, ipairs, pcall,
    -- error, type, tostring, tonumber, select, next, unpack,
    -- setmetatable/getmetatable on their own tables, os.time, os.clock) and
    -- sched"; load/loadstring are refused binary chunks only.
    local listed = {
        string = "table", table = "table", math = "table", bit = "table", pairs = "function",
        ipairs = "function", pcall = "function", error = "function", type = "function",
        tostring = "function", tonumber = "function", select = "function", next = "function",
        unpack = "function", setmetatable = "function", getmetatable = "function",
        os = "table", sched = "table", load = "function", loadstring = "function",
    }
    for name, kind in pairs(listed) do
        it("has " .. name, function()
            assert.are.equal("ok:" .. kind, see("type(" .. name .. ")"))
        end)
    end

    it("has os.time and os.clock, and nothing else of os", function()
        assert.are.equal("ok:true", see("type(os.time()) == 'number' and type(os.clock()) == 'number'"))
        local p = assert(w:policy([[
local p = {name = "os"}
function p.filter()
  local names = {}
  for k in pairs(os) do names[#names + 1] = k end
  table.sort(names)
  return false, table.concat(names, ",")
end
return p]]))
        assert.are.equal("clock,time", w:filter(p, pod, { ni })[1].reason)
    end)

    -- Lua's other base functions and libraries, and LuaJIT's, are not listed.
    local unlisted = {
        "assert", "xpcall", "rawequal", "rawget", "rawset", "rawlen", "_G", "_VERSION", "print",
        "dofile", "loadfile", "require", "module", "getfenv", "setfenv", "collectgarbage",
        "gcinfo", "newproxy", "coroutine", "debug", "io", "package", "ffi", "jit",
    }
    for _, name in ipairs(unlisted) do
        it("has no " .. name, function()
            assert.are.equal("err:spec.lua:3: undefined global '" .. name .. "'", see(name))
        end)
    end

    it("lets next and pairs walk the library tables", function()
        assert.are.equal("ok:true", see("next(math) ~= nil and next(sched) ~= nil and next(os) ~= nil"))
        assert.are.equal("ok:true", see("math[(next(math))] ~= nil"))
        assert.are.equal("ok:2", see([[(function()
  local n = 0
  for k, v in pairs(os) do n = n + 1 end
  return n end)()]]))
        assert.are.equal("ok:nil", see("next({})"))
        assert.are.equal("ok:b", see("select(2, next({a = 'b'}))"))
    end)

    it("lets a policy set globals of its own", function()
        assert.are.equal("ok:42", see("(function() answer = 42 return answer end)()"))
    end)
end)
