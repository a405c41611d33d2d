-- Every C function a policy can reach is bounded, by the CPU budget or by
-- the memory cap, in the real runtime (build/libmoonsched.so): a kill
-- inside C fails the call, is counted as a budget kill, disables the policy
-- after repeated failures, and leaves the state usable. Recursion through
-- C stops before the C stack overflows. Iterator states a policy writes to
-- cannot make the runtime read outside its objects.
local h = require("tests.lua.helper")

local POD = [[{"metadata": {"name": "web-1", "namespace": "shop", "labels": {"app": "web"}},
 "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "250m", "example.com/gpu": "1"}}}]}}]]

local function node_json(name, cpu)
    return ([[{"metadata": {"name": "%s", "labels": {"zone": "z%s", "disk": "ssd"}},
      "status": {"allocatable": {"cpu": "%s", "memory": "4Gi", "pods": "10"}}}]]):format(name, cpu, cpu)
end

-- filter runs `attack` on the first call and passes every node after.
local function first_call(attack)
    return ([[
local p = {name = "hostile"}
local calls = 0
function p.filter(pod, node, state)
  calls = calls + 1
  if calls == 1 then
    %s
  end
  return true
end
return p]]):format(attack)
end

local BACKTRACK = [[local s = string.rep("a", 40)
    local pat = string.rep("a?", 40) .. string.rep("a", 40)]]

describe("C functions under the CPU budget", function()
    local w, pod, nodes
    setup(function()
        w = h.world({ budget = 0.05, memory = 64 * 2 ^ 20, max_failures = 1000 })
        pod = w:pod(POD)
        nodes = {}
        for i = 1, 3 do nodes[i] = w:node(node_json("n" .. i, tostring(i))) end
    end)
    teardown(function() w:close() end)

    local killed = {
        { "string.find", BACKTRACK .. " return s:find(pat) ~= nil" },
        { "string.match", BACKTRACK .. " return s:match(pat) ~= nil" },
        { "string.gmatch", BACKTRACK .. " for _ in s:gmatch(pat) do end" },
        { "string.gsub", BACKTRACK .. " return (s:gsub(pat, 'x')) ~= nil" },
        { "a pattern in a pcall loop", BACKTRACK .. " while true do pcall(string.find, s, pat) end" },
        { "%b() rescanning a long text",
          [[local s = string.rep("(", 2 ^ 16) return s:find("%b()%b()") ~= nil]] },
        { "table.sort of two million numbers",
          [[local t = {} for i = 1, 2 ^ 21 do t[i] = (i * 7919) % 1000003 end table.sort(t)]] },
        { "table.sort with a comparator that loops",
          [[table.sort({3, 2, 1}, function() while true do end end)]] },
        { "load of a huge chunk",
          [[local f = load(string.rep("x = 1 ", 2 ^ 22)) return f ~= nil]] },
        { "tostring of a table whose __tostring loops",
          [[return tostring(setmetatable({}, {__tostring = function() while true do end end}))]] },
        { "string.rep in a loop", [[local t = {} while true do t[1] = string.rep("x", 2 ^ 20) end]] },
    }
    for _, c in ipairs(killed) do
        it("stops " .. c[1] .. ", and the state works on", function()
            local p = assert(w:policy(first_call(c[2])))
            local t0 = h.now()
            local r = w:filter(p, pod, nodes)
            local took = h.now() - t0
            assert.are.equal(h.UNSCHEDULABLE, r[1].code)
            assert.truthy(r[1].reason:find("CPU budget", 1, true), r[1].reason)
            assert.truthy(took < 10, "took " .. took)
            local st = w:stats(p)
            assert.are.equal(1, tonumber(st.failures))
            assert.are.equal(1, tonumber(st.budget_kills))
            -- The next call runs to its end.
            assert.are.equal(h.SUCCESS, w:filter(p, pod, nodes)[1].code)
        end)
    end

    it("stops a Lua loop after a kill inside the matcher: the hook was left", function()
        local p = assert(w:policy([[
local p = {name = "twice"}
local calls = 0
function p.filter()
  calls = calls + 1
  local s, pat = string.rep("a", 40), string.rep("a?", 40) .. string.rep("a", 40)
  if calls == 1 then return s:find(pat) ~= nil end
  if calls == 2 then local f = load(string.rep("x = 1 ", 2 ^ 22)) return f ~= nil end
  if calls == 3 then while true do end end
  return true
end
return p]]))
        for _ = 1, 3 do
            local t0 = h.now()
            local r = w:filter(p, pod, nodes)
            assert.truthy(r[1].reason:find("CPU budget", 1, true), r[1].reason)
            assert.truthy(h.now() - t0 < 1)
        end
        assert.are.equal(h.SUCCESS, w:filter(p, pod, nodes)[1].code)
        assert.are.equal(3, tonumber(w:stats(p).budget_kills))
    end)

    it("finds a plain needle in linear time where the naive search is quadratic", function()
        local p = assert(w:policy(first_call([[
    local s = string.rep("a", 2 ^ 23)
    local q = string.rep("a", 2 ^ 21) .. "b"
    if s:find(q, 1, true) or s:find(q) then return false, "found" end]])))
        local t0 = h.now()
        local r = w:filter(p, pod, nodes)
        assert.truthy(h.now() - t0 < 1)
        assert.truthy(r[1].code == h.SUCCESS or r[1].reason:find("CPU budget", 1, true), r[1].reason)
    end)
end)

describe("C functions under the memory cap", function()
    local w, pod, nodes
    setup(function()
        w = h.world({ budget = 1, memory = 16 * 2 ^ 20, max_failures = 1000 })
        pod = w:pod(POD)
        nodes = { w:node(node_json("n1", "1")) }
    end)
    teardown(function() w:close() end)

    local capped = {
        { "string.rep of 2 GiB", [[return #string.rep("x", 2 ^ 31 - 1)]] },
        { "string.rep with a separator", [[return #string.rep("ab", 2 ^ 24, "cd")]] },
        { "doubling a string", [[local s = "x" while true do s = s .. s end]] },
        { "table.concat", [[local t = {} for i = 1, 2 ^ 16 do t[i] = string.rep("y", 2 ^ 10) end
    return #table.concat(t, string.rep("z", 2 ^ 10))]] },
        { "string.format of a huge string", [[return #string.format("%s%s", string.rep("x", 2 ^ 23), string.rep("x", 2 ^ 23))]] },
        { "gsub growing its text", [[return #(string.rep("a", 2 ^ 20):gsub("a", string.rep("b", 64)))]] },
    }
    for _, c in ipairs(capped) do
        it("stops " .. c[1] .. " at the memory cap", function()
            local p = assert(w:policy(first_call(c[2])))
            local r = w:filter(p, pod, nodes)
            assert.truthy(r[1].reason:find("memory cap", 1, true), r[1].reason)
            assert.are.equal(1, tonumber(w:stats(p).memory_errors))
            assert.are.equal(h.SUCCESS, w:filter(p, pod, nodes)[1].code)
        end)
    end

    local refused = {
        { "string.format with a wide field", [[return string.format("%99999d", 1)]], "invalid option" },
        { "string.format with a long precision", [[return string.format("%.999f", 1)]], "invalid option" },
        { "unpack of a huge range", [[return unpack({}, 1, 1e8)]], "too many results to unpack" },
        { "string.byte of a long range", [[return string.byte(string.rep("x", 2 ^ 20), 1, -1)]],
          "string slice too long" },
        { "select of a huge index", [[return select(2 ^ 31, 1)]], "index out of range" },
        { "string.char of too many values", [[local t = {} for i = 1, 7999 do t[i] = 65 end
    return #string.char(unpack(t))]], "ok" },
    }
    for _, c in ipairs(refused) do
        it("bounds " .. c[1], function()
            local p = assert(w:policy(first_call(
                "local ok, e = pcall(function() " .. c[2] .. " end) return false, ok and 'ok' or e")))
            local r = w:filter(p, pod, nodes)
            assert.truthy(r[1].reason:find(c[3], 1, true), r[1].reason)
        end)
    end
end)

describe("recursion through C", function()
    local w, pod, nodes
    setup(function()
        w = h.world({ budget = 1, max_failures = 1000 })
        pod = w:pod(POD)
        nodes = { w:node(node_json("n1", "1")) }
    end)
    teardown(function() w:close() end)

    local nested = {
        { "gsub calling gsub", [[local function f(s) return (s:gsub(".", f)) end return f("ab")]] },
        { "gsub through a table's __index", [[local t = setmetatable({}, {__index = function(t, k)
      return (k:gsub(".", t)) end}) return ("ab"):gsub(".", t)]] },
        { "a comparator that sorts", [[local function f() table.sort({3, 2, 1}, function(a, b)
      f() return a < b end) end f()]] },
        { "__lt that sorts", [[local mt = {} mt.__lt = function() table.sort({setmetatable({}, mt),
      setmetatable({}, mt)}) return true end table.sort({setmetatable({}, mt), setmetatable({}, mt)})]] },
        { "__tostring that formats itself", [[local mt = {} mt.__tostring = function(t)
      return string.format("%s", t) end return string.format("%s", setmetatable({}, mt))]] },
    }
    for _, c in ipairs(nested) do
        it("stops " .. c[1] .. " before the C stack overflows", function()
            local p = assert(w:policy(first_call(c[2])))
            local r = w:filter(p, pod, nodes)
            assert.truthy(r[1].reason:find("C stack overflow", 1, true), r[1].reason)
            assert.are.equal(h.SUCCESS, w:filter(p, pod, nodes)[1].code)
        end)
    end
end)

describe("a kill inside C, call after call", function()
    it("disables the policy after repeated failures, as a kill in Lua does", function()
        local w = h.world({ budget = 0.05, max_failures = 3 })
        local pod = w:pod(POD)
        local nodes = { w:node(node_json("n1", "1")) }
        local p = assert(w:policy([[return {name = "dos", filter = function()
  local s = string.rep("a", 40)
  return s:find(string.rep("a?", 40) .. string.rep("a", 40)) ~= nil
end}]]))
        for _ = 1, 3 do
            assert.truthy(w:filter(p, pod, nodes)[1].reason:find("CPU budget", 1, true))
        end
        assert.is_true(h.C.ms_policy_disabled(p))
        local st = w:stats(p)
        assert.are.equal(3, tonumber(st.budget_kills))
        assert.are.equal(1, tonumber(st.disabled))
        -- Disabled: no call, every node passes.
        assert.are.equal(h.SUCCESS, w:filter(p, pod, nodes)[1].code)
        assert.are.equal(3, tonumber(w:stats(p).calls))
        w:close()
    end)
end)

describe("iterator states a policy writes to", function()
    local w, pod, nodes
    setup(function()
        w = h.world({ budget = 0.5, max_failures = 1000 })
        pod = w:pod(POD)
        nodes = { w:node(node_json("n1", "1"), { w:pod(POD) }), w:node(node_json("n2", "2")) }
    end)
    teardown(function() w:close() end)

    local cases = {
        { "node:pods() with a wild index", [[local it, st = node:pods() st.i, st.n = -1e8, 1e9
      return it(st) == nil]], "ok:true" },
        { "node:pods() with another view", [[local it, st = node:pods() st.v = pod return it(st)]],
          "node:pods() iterator state was tampered with" },
        { "pairs(labels) with a wild index", [[local it, st = pairs(node.labels) st.i = -1e8
      return it(st) == nil]], "ok:true" },
        { "pairs(labels) with a resources view", [[local it, st = pairs(node.labels)
      st.v = pod.requests return it(st)]], "labels iterator state was tampered with" },
        { "pairs(annotations) with a table", [[local it, st = pairs(node.annotations)
      st.v = {__p = 0, __e = 0} return it(st)]], "annotations iterator state was tampered with" },
        { "pairs(requests) with a wild index", [[local it, st = pairs(pod.requests) st.i = -1e8
      return it(st) == nil]], "ok:true" },
        { "sched.nodes() with a wild index", [[local it, st = sched.nodes() st.i, st.n = -1e8, 1e9
      return it(st) == nil]], "ok:true" },
        { "sched.nodes() past its end", [[local it, st = sched.nodes() st.i = 1e9 return it(st) == nil]],
          "ok:true" },
        { "pairs(string) handing out the table behind", [[local _, real = pairs(string)
      real.find = nil return string.find]], "string is read-only" },
    }
    for _, c in ipairs(cases) do
        it("holds against " .. c[1], function()
            local p = assert(w:policy(([[
local p = {name = "tamper"}
function p.filter(pod, node, state)
  local ok, r = pcall(function() %s end)
  if ok then return false, "ok:" .. tostring(r) end
  return false, "err:" .. tostring(r)
end
return p]]):format(c[2])))
            local out = w:schedule(p, pod, nodes)
            local reason = out.filter[1].reason
            assert.truthy(reason:find(c[3], 1, true), reason)
        end)
    end

    it("keeps a sched.nodes() iterator dead after its call", function()
        local p = assert(w:policy([[
local p = {name = "keeper"}
local it, st
function p.filter(pod, node, state)
  if it == nil then it, st = sched.nodes() return true end
  st.e = nil
  local ok, e = pcall(it, st)
  return false, tostring(e)
end
return p]]))
        w:schedule(p, pod, nodes)
        local out = w:schedule(p, pod, nodes)
        assert.truthy(out.filter[1].reason:find("used after its call", 1, true), out.filter[1].reason)
    end)
end)
