-- The policy contract (docs/policies.md) checked against the real runtime:
-- its example policy runs as it is written there, and the sandbox's
-- globals are exactly the contract's list.
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

    -- docs/policies.md, "Sandbox": these globals, and no more.
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

-- The contract's example: the first Lua block of docs/policies.md.
local EXAMPLE = (function()
    local f = assert(io.open("docs/policies.md"))
    local text = f:read("*a")
    f:close()
    return assert(text:match("```lua\n(.-)```"), "docs/policies.md has no Lua example")
end)()

describe("the contract's example policy", function()
    local w, p, nodes
    setup(function()
        w = h.world()
        p = assert(w:policy(EXAMPLE))
        local gpus = { cpu = "4", memory = "16Gi", pods = "110", ["nvidia.com/gpu"] = "4" }
        local three = w:pod(h.pod_json({ name = "three", node = "n1", requests = { ["nvidia.com/gpu"] = "3" } }))
        nodes = {
            w:node(h.node_json({ name = "n1", allocatable = gpus }), { three }),
            w:node(h.node_json({ name = "n2", allocatable = gpus })),
            w:node(h.node_json({ name = "n3" })),
        }
    end)
    teardown(function() w:close() end)

    local function gpu_pod(name, n)
        return w:pod(h.pod_json({ name = name, requests = n and { ["nvidia.com/gpu"] = tostring(n) } or nil }))
    end

    it("filters out nodes without enough free GPUs, with its reason", function()
        local r = w:schedule(p, gpu_pod("two", 2), nodes)
        assert.are.same({ code = h.UNSCHEDULABLE, reason = "not enough GPUs" }, r.filter[1])
        assert.are.same({ code = h.SUCCESS }, r.filter[2])
        assert.are.same({ code = h.UNSCHEDULABLE, reason = "not enough GPUs" }, r.filter[3])
    end)

    it("scores by GPUs in use, rescaled so that the most used gets 100", function()
        local r = w:schedule(p, gpu_pod("one", 1), nodes)
        assert.are.equal(2, #r.feasible)
        assert.are.equal(h.SUCCESS, r.score_rc)
        assert.are.same({ 100, 0 }, r.scores)
    end)

    it("lets a pod without GPUs anywhere", function()
        local r = w:schedule(p, gpu_pod("none"), nodes)
        assert.are.equal(3, #r.feasible)
    end)

    it("allows at Permit, reserves and unreserves", function()
        local pod = gpu_pod("one-more", 1)
        assert.are.equal(h.SUCCESS, (w:reserve(p, pod, "n2")))
        assert.are.equal(h.SUCCESS, (w:permit(p, pod, "n2")))
        w:unreserve(p, pod, "n2")
        assert.are.equal(0, w:stats(p).failures)
    end)

    it("says a node cannot help (nil victims) and leaves the choice to the default", function()
        local pod = gpu_pod("urgent", 1)
        local low = w:pod(h.pod_json({ name = "low", node = "n1" }))
        assert.are.equal(h.UNSCHEDULABLE, (w:select_victims(p, pod, nodes[1], { low })))
        local rc = w:pick(p, pod, { { node = nodes[1], victims = { low } }, { node = nodes[2], victims = {} } })
        assert.are.equal(h.SKIP, rc)
    end)
end)
