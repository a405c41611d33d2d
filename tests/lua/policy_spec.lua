-- Policies in the real runtime (build/libmoonsched.so): views over decoded
-- objects, stale views, and the sandbox holding against hostile policies,
-- with the scheduler still working after each.
local h = require("tests.lua.helper")

local POD = [[{"metadata": {"name": "web-1", "namespace": "shop", "uid": "u-1",
  "labels": {"app": "web", "tier": "front"}, "annotations": {"note": "hi"},
  "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-rs",
                       "uid": "r", "controller": true}]},
 "spec": {"priority": 5, "nodeSelector": {"disk": "ssd"},
  "tolerations": [{"key": "gpu", "operator": "Equal", "value": "yes", "effect": "NoExecute",
                   "tolerationSeconds": 30}],
  "containers": [{"name": "c", "ports": [{"containerPort": 80, "hostPort": 9000, "protocol": "UDP"}],
    "resources": {"requests": {"cpu": "250m", "memory": "512Mi", "example.com/gpu": "1"},
                  "limits": {"cpu": "500m", "memory": "512Mi", "example.com/gpu": "1"}}}]}}]]

local function node_json(name, cpu, labels)
    return ([[{"metadata": {"name": "%s", "labels": %s},
      "spec": {"taints": [{"key": "dedicated", "value": "db", "effect": "PreferNoSchedule"}]},
      "status": {"allocatable": {"cpu": "%s", "memory": "4Gi", "pods": "10", "example.com/gpu": "4"}}}]])
        :format(name, labels or "{}", cpu)
end

-- A policy that returns, as its rejection reason, what `expr` evaluates to
-- inside filter(pod, node, state) (or the error it raised).
local function probe(expr)
    return ([[
local p = {name = "probe"}
function p.filter(pod, node, state)
  local ok, r = pcall(function() return %s end)
  if ok then return false, "ok:" .. tostring(r) end
  return false, "err:" .. tostring(r)
end
return p]]):format(expr)
end

describe("views over decoded objects", function()
    local w, pod, ni
    setup(function()
        w = h.world()
        pod = w:pod(POD)
        local bound = w:pod([[{"metadata": {"name": "db-0", "namespace": "shop"},
          "spec": {"nodeName": "n1", "containers": [{"name": "c", "resources":
            {"requests": {"cpu": "1500m", "example.com/gpu": "3"}}}]}}]])
        ni = w:node(node_json("n1", "2", '{"zone": "z1", "disk": "ssd"}'), { bound })
    end)
    teardown(function() w:close() end)

    local cases = {
        { "pod.name", "web-1" }, { "pod.namespace", "shop" }, { "pod.uid", "u-1" },
        { "pod.priority", "5" }, { "pod.scheduler_name", "default-scheduler" },
        { "pod.node_name", "nil" }, { "pod.qos", "Burstable" },
        { "pod.owner_kind", "ReplicaSet" }, { "pod.owner_name", "web-rs" },
        { "pod.labels.tier", "front" }, { "pod.labels['missing']", "nil" },
        { "pod.annotations.note", "hi" },
        { "pod.requests.cpu", "250" }, { "pod.requests.memory", tostring(512 * 2 ^ 20) },
        { "pod.requests['example.com/gpu']", "1" }, { "pod.limits.cpu", "500" },
        { "pod.requests.pods", "0" },
        { "pod.tolerations[1].value .. pod.tolerations[1].effect .. pod.tolerations[1].tolerationSeconds",
          "yesNoExecute30" },
        { "pod.node_selector.disk", "ssd" },
        { "pod.ports[1].hostPort .. pod.ports[1].protocol", "9000UDP" },
        { "node.name", "n1" }, { "node.unschedulable", "false" },
        { "node.labels.zone", "z1" }, { "#node.labels", "2" },
        { "node.taints[1].key .. '=' .. node.taints[1].value .. ':' .. node.taints[1].effect",
          "dedicated=db:PreferNoSchedule" },
        { "node.allocatable.cpu", "2000" }, { "node.allocatable.memory", tostring(4 * 2 ^ 30) },
        { "node.requested.cpu", "1500" }, { "node.requested['example.com/gpu']", "3" },
        { "node.free('cpu')", "500" }, { "node:free('example.com/gpu')", "1" },
        { "node.pod_count", "1" },
        { "(function() local n = {} for q in node:pods() do n[#n+1] = q.name end return table.concat(n) end)()",
          "db-0" },
        { "(function() local n = 0 for k, v in pairs(pod.labels) do n = n + #k + #v end return n end)()",
          tostring(#"app" + #"web" + #"tier" + #"front") },
        { "(function() local n = 0 for _ in sched.nodes() do n = n + 1 end return n end)()",
          "err:" },
        { "pod.bogus", "err:" },
        { "sched.quantity('500m')", "0.5" },
        { "select(2, sched.quantity('2'))", "2000" },
        { "sched.match_labels({matchExpressions = {{key = 'app', operator = 'In', values = {'web'}}}}, pod.labels)",
          "true" },
        { "sched.match_labels({matchExpressions = {{key = 'app', operator = 'NotIn', values = {'web'}}}}, pod.labels)",
          "false" },
        { "sched.match_labels(nil, pod.labels)", "false" },
        { "sched.match_labels({}, pod.labels)", "true" },
        { "type(sched.now())", "number" },
        { "(function() local t = {} for k, v in pairs(pod.requests) do t[#t+1] = k .. '=' .. v end "
          .. "table.sort(t) return table.concat(t, ',') end)()",
          "cpu=250,example.com/gpu=1,memory=" .. tostring(512 * 2 ^ 20) },
        { "(function() local n = 0 for k in pairs(node.allocatable) do n = n + 1 end return n end)()", "4" },
    }
    for _, c in ipairs(cases) do
        it(c[1] .. " -> " .. c[2], function()
            local p = assert(w:policy(probe(c[1])))
            local r = w:filter(p, pod, { ni })
            assert.are.equal(h.UNSCHEDULABLE, r[1].code)
            if c[2] == "err:" then
                assert.are.equal("err:", r[1].reason:sub(1, 4))
            else
                assert.are.equal("ok:" .. c[2], r[1].reason)
            end
        end)
    end

    it("pod.uid of a pod without metadata.uid is namespace/name", function()
        local p = assert(w:policy(probe("pod.uid")))
        local anon = w:pod([[{"metadata": {"name": "anon", "namespace": "shop"}, "spec": {"containers": [{"name": "c"}]}}]])
        assert.are.equal("ok:shop/anon", w:filter(p, anon, { ni })[1].reason)
    end)

    it("pod.name follows the id of a released name to its next pod", function()
        -- A pod's name goes with the pod; its id is handed out again once
        -- 1024 other names wait behind it.
        local function named(name)
            return w:pod_unowned(([[{"metadata": {"name": "%s", "namespace": "shop"},
              "spec": {"containers": [{"name": "c"}]}}]]):format(name))
        end
        local p = assert(w:policy(probe("pod.name")))
        local first = named("first-to-go")
        assert.are.equal("ok:first-to-go", w:filter(p, first, { ni })[1].reason)
        local id = first.meta.name
        h.C.ms_pod_unref(first)
        for i = 1, 1024 do h.C.ms_pod_unref(named("filler-" .. i)) end
        local next_pod = named("next-in-line")
        assert.are.equal(id, next_pod.meta.name)
        assert.are.equal("ok:next-in-line", w:filter(p, next_pod, { ni })[1].reason)
        h.C.ms_pod_unref(next_pod)
    end)

    it("a view kept past its call raises an error", function()
        local p = assert(w:policy([[
local kept
return {name = "keeper", filter = function(pod, node)
  if kept == nil then kept = {pod = pod, node = node, labels = node.labels} return true end
  local a = pcall(function() return kept.pod.name end)
  local b = pcall(function() return kept.node.requested.cpu end)
  local c = pcall(function() return kept.labels.zone end)
  return false, tostring(a) .. tostring(b) .. tostring(c)
end}]]))
        assert.are.equal(h.SUCCESS, w:filter(p, pod, { ni })[1].code)
        local r = w:filter(p, pod, { ni })
        assert.are.equal("falsefalsefalse", r[1].reason)
    end)
end)

describe("the sandbox", function()
    local w, pod, nodes, good
    setup(function()
        w = h.world({ budget = 0.05, memory = 32 * 2 ^ 20, max_failures = 1000 })
        pod = w:pod(POD)
        nodes = {}
        for i = 1, 3 do nodes[i] = w:node(node_json("n" .. i, tostring(i))) end
        good = assert(w:policy([[return {name = "good",
          score = function(pod, node) return node.allocatable.cpu end}]]))
    end)
    teardown(function() w:close() end)

    -- After every hostile policy the scheduler still schedules.
    local function still_works()
        local rc, scores = w:score(good, pod, nodes)
        assert.are.equal(h.SUCCESS, rc)
        assert.are.same({ 33, 67, 100 }, scores)
    end

    local refused = {
        { "os.execute('touch /tmp/moonsched-pwned')", "attempt to call field 'execute'" },
        { "io.open('/etc/passwd')", "undefined global 'io'" },
        { "require('ffi')", "undefined global 'require'" },
        { "package.loaded.ffi", "undefined global 'package'" },
        { "string.dump(tostring)", "attempt to call field 'dump'" },
        { "load(string.char(27) .. 'LJ' .. string.char(2))", "ok:nil" },
        { "select(2, load(string.char(27) .. 'LJ' .. string.char(2)))", "binary chunks are not allowed" },
        { "loadstring(string.char(27) .. 'Lua')", "ok:nil" },
        { "setmetatable(sched, {__index = function() end})", "cannot change a protected metatable" },
        { "getmetatable(sched)", "ok:false" },
        { "getmetatable('').__index", "attempt to index a nil value" },
        { "getmetatable(pod)", "ok:nil" },
        { "rawget(sched.log, 'info')", "undefined global 'rawget'" },
        { "(function() sched.log.info = tostring end)()", "sched.log is read-only" },
        { "(function() math.floor = nil end)()", "math is read-only" },
        { "(function() pod.name = 'evil' end)()", "views are read-only" },
        { "(function() node.requested.cpu = 0 end)()", "views are read-only" },
        { "collectgarbage('count')", "undefined global 'collectgarbage'" },
        { "newproxy(true)", "undefined global 'newproxy'" },
        { "coroutine.create(print)", "undefined global 'coroutine'" },
        { "jit.off()", "undefined global 'jit'" },
        { "setfenv(1, {})", "undefined global 'setfenv'" },
        { "(function() local function f() return 1 + f() end return f() end)()", "stack overflow" },
    }
    for _, c in ipairs(refused) do
        it("refuses " .. c[1], function()
            local p = assert(w:policy(probe(c[1])))
            local r = w:filter(p, pod, { nodes[1] })
            assert.are.equal(h.UNSCHEDULABLE, r[1].code)
            assert.truthy(r[1].reason:find(c[2], 1, true), r[1].reason)
            still_works()
        end)
    end

    it("stops a JIT-compiled while true do end within the budget", function()
        local p = assert(w:policy([[return {name = "spin", score = function() while true do end end}]]))
        local t0 = h.now()
        local rc, _, st = w:score(p, pod, nodes)
        local took = h.now() - t0
        assert.are.equal(h.ERROR, rc)
        assert.truthy(st.reason:find("CPU budget", 1, true))
        assert.truthy(took < 10, "took " .. took)
        assert.are.equal(1, tonumber(w:stats(p).budget_kills))
        still_works()
    end)

    it("stops a loop that catches the budget error with pcall", function()
        local p = assert(w:policy([[return {name = "stubborn", filter = function()
          while true do pcall(function() while true do end end) end end}]]))
        local r = w:filter(p, pod, nodes)
        assert.truthy(r[1].reason:find("CPU budget", 1, true))
        still_works()
    end)

    local bomb = [[return {name = "bomb", filter = function()
        local t = {} for i = 1, 1e9 do t[i] = string.rep("x", 4 * 2 ^ 20) .. i end end}]]

    -- Which limit stops it first depends on the machine's speed: either
    -- contains it, and leaves the state usable and under its cap.
    it("contains an allocation bomb at the memory cap or the CPU budget", function()
        local p = assert(w:policy(bomb))
        local r = w:filter(p, pod, nodes)
        local reason = r[1].reason
        assert.truthy(reason:find("memory cap", 1, true) or reason:find("CPU budget", 1, true), reason)
        local st = w:stats(p)
        assert.are.equal(1, tonumber(st.memory_errors) + tonumber(st.budget_kills))
        assert.truthy(h.C.ms_lua_state_memory(h.C.ms_policy_state(p)) < 32 * 2 ^ 20)
        still_works()
    end)

    -- With a budget of a minute the cap comes first on any machine: it takes
    -- 8 allocations of 4 MiB.
    it("stops an allocation bomb at the memory cap when the budget is far larger", function()
        local big = h.world({ budget = 60, memory = 32 * 2 ^ 20 })
        local p = assert(big:policy(bomb))
        local r = big:filter(p, big:pod(POD), { big:node(node_json("n1", "1")) })
        assert.truthy(r[1].reason:find("memory cap", 1, true), r[1].reason)
        assert.are.equal(1, tonumber(big:stats(p).memory_errors))
        assert.truthy(h.C.ms_lua_state_memory(h.C.ms_policy_state(p)) < 32 * 2 ^ 20)
        big:close()
    end)

    it("reports an error raised with a table without calling its __tostring", function()
        local p = assert(w:policy([[return {name = "obj", filter = function()
          error(setmetatable({}, {__tostring = function() while true do end end})) end}]]))
        local r = w:filter(p, pod, nodes)
        assert.truthy(r[1].reason:find("error object is a table value", 1, true), r[1].reason)
        still_works()
    end)

    it("keeps undefined globals an error and the policy's own globals its own", function()
        local p = assert(w:policy([[counter = 0
          return {name = "globals", filter = function()
            counter = counter + 1
            local ok, e = pcall(function() return undefined_thing end)
            return false, tostring(counter) .. tostring(ok) .. tostring(e):match("undefined global '%w+_%w+'")
          end}]]))
        local r = w:filter(p, pod, { nodes[1] })
        assert.are.equal("1falseundefined global 'undefined_thing'", r[1].reason)
    end)
end)

describe("failures", function()
    it("disable a policy after consecutive failures and a reload brings it back", function()
        local w = h.world({ max_failures = 2, on_error = h.C.MS_POLICY_SKIP })
        local pod = w:pod(POD)
        local ni = w:node(node_json("n1", "1"))
        local p = assert(w:policy([[return {name = "flaky", filter = function() error("flake") end}]]))
        for _ = 1, 2 do
            local r = w:filter(p, pod, { ni })
            assert.are.equal(h.SUCCESS, r[1].code) -- skip mode
        end
        assert.is_true(h.C.ms_policy_disabled(p))
        assert.truthy(require("ffi").string(h.C.ms_policy_last_error(p)):find("flake", 1, true))
        assert(w:reload(p, [[return {name = "flaky", filter = function() return false, "fixed" end}]]))
        assert.is_false(h.C.ms_policy_disabled(p))
        assert.are.equal("fixed", w:filter(p, pod, { ni })[1].reason)
        local ok, err = w:reload(p, "return {name = ")
        assert.is_nil(ok)
        assert.truthy(err:find("spec.lua:1:", 1, true))
        assert.are.equal("fixed", w:filter(p, pod, { ni })[1].reason)
        w:close()
    end)
end)

describe("sched.log", function()
    it("is structured, leveled and tagged with the policy", function()
        local w = h.world({ record_logs = true })
        local pod = w:pod(POD)
        local ni = w:node(node_json("n1", "1"))
        local p = assert(w:policy([[return {name = "talker", filter = function(pod)
          sched.log.info("looked at", {pod = pod.name, n = 1})
          sched.log.warn("careful")
          sched.log.error(42)
          return true
        end}]]))
        assert.are.equal(h.SUCCESS, w:filter(p, pod, { ni })[1].code)
        assert.are.same({
            { level = 0, policy = "talker", msg = "looked at n=1 pod=web-1" },
            { level = 1, policy = "talker", msg = "careful" },
            { level = 2, policy = "talker", msg = "42" },
        }, w.logs)
        w:close()
    end)
end)
