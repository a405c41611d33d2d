-- pick_devices (docs/policies.md, docs/dra.md) against the real runtime:
-- what a policy sees of the options and what its answers mean.
local h = require("tests.lua.helper")

local function dev(name, extra)
    local d = { claim = "gpus", request = "gpus", driver = "gpu.example.com", pool = "n1", name = name,
                attributes = { model = "A100", numa = 1, mig = false, ["other.example.com/rack"] = "r7" },
                capacity = { memory = 42949672960 } }
    for k, v in pairs(extra or {}) do d[k] = v end
    return d
end

local function policy(w, body)
    return assert(w:policy('local p = {name = "devices"}\nfunction p.pick_devices(pod, node, options, state)\n'
        .. body .. '\nend\nreturn p'))
end

describe("pick_devices under the budget", function()
    it("is stopped past its CPU budget, and the call fails", function()
        local w = h.world({ budget = 0.05 })
        local node = w:node(h.node_json({ name = "n1" }))
        local pod = w:pod(h.pod_json({ name = "train" }))
        local p = assert(w:policy('local p = { name = "spin" }\n'
            .. 'function p.pick_devices() local i = 0 while true do i = i + 1 end end\nreturn p'))
        local rc, _, why = w:pick_devices(p, pod, node, { { dev("gpu-0") }, { dev("gpu-1") } })
        assert.are.equal(h.ERROR, rc)
        assert.truthy(why and why ~= "", why)
        assert.are.equal(1, tonumber(w:stats(p).budget_kills))
        w:close()
    end)
end)

describe("pick_devices", function()
    local w, node, pod
    setup(function()
        w = h.world()
        node = w:node(h.node_json({ name = "n1" }))
        pod = w:pod(h.pod_json({ name = "train" }))
    end)
    teardown(function() w:close() end)

    local two = function() return { { dev("gpu-0") }, { dev("gpu-1", { request = "gpus/big" }) } } end

    it("sees each device's claim, request, names, attributes and capacity", function()
        local p = policy(w, [[
            local d = options[2].devices[1]
            local seen = table.concat({ pod.name, node.name, #options, d.claim, d.request, d.driver, d.pool,
                d.name, d.attributes.model, d.attributes["gpu.example.com/model"], d.attributes.numa,
                tostring(d.attributes.mig), d.attributes["other.example.com/rack"],
                tostring(d.attributes.rack), d.capacity.memory }, " ")
            if seen ~= "train n1 2 gpus gpus/big gpu.example.com n1 gpu-1 A100 A100 1 false r7 nil 42949672960"
            then error(seen) end
            return 2]])
        local rc, chosen, why = w:pick_devices(p, pod, node, two())
        assert.are.equal(h.SUCCESS, rc, why)
        assert.are.equal(2, chosen)
    end)

    it("takes a score per option: the highest, the first among equals", function()
        local p = policy(w, "return { 1, 5, 5 }")
        local rc, chosen = w:pick_devices(p, pod, node, { { dev("a") }, { dev("b") }, { dev("c") } })
        assert.are.equal(h.SUCCESS, rc)
        assert.are.equal(2, chosen)
    end)

    it("leaves the choice to the allocator on nil", function()
        local p = policy(w, "return nil")
        assert.are.equal(h.SKIP, (w:pick_devices(p, pod, node, two())))
    end)

    it("fails the call on an answer that is no option", function()
        for body, says in pairs({
            ["return 3"] = "pick_devices returned 3: expected an index in 1..2",
            ["return 1.5"] = "pick_devices returned 1.5",
            ["return { 1 }"] = "pick_devices: score 2 is nil",
            ["return { 1, 0/0 }"] = "pick_devices: score 2 is nan",
            ["return 'gpu-0'"] = "pick_devices returned gpu-0",
        }) do
            local p = policy(w, body)
            local rc, _, why = w:pick_devices(p, pod, node, two())
            assert.are.equal(h.ERROR, rc, body)
            assert.truthy(why:find(says, 1, true), why)
        end
    end)

    it("follows reloads: a version with the hook answers, one without leaves the choice", function()
        local p = assert(w:policy('return { name = "reloaded" }'))
        assert.are.equal(h.SKIP, (w:pick_devices(p, pod, node, two())))
        assert(w:reload(p, 'local p = { name = "reloaded" }\nfunction p.pick_devices() return 2 end\nreturn p'))
        local rc, chosen = w:pick_devices(p, pod, node, two())
        assert.are.equal(h.SUCCESS, rc)
        assert.are.equal(2, chosen)
        assert(w:reload(p, 'return { name = "reloaded" }'))
        assert.are.equal(h.SKIP, (w:pick_devices(p, pod, node, two())))
    end)

    it("gets the cycle's state, a fresh one in each cycle", function()
        local p = assert(w:policy([[
            local p = {name = "stateful"}
            function p.pick_devices(pod, node, options, state)
                state.calls = (state.calls or 0) + 1
                return state.calls
            end
            return p]]))
        -- a new cycle each time: a fresh state, so always the first
        assert.are.equal(1, select(2, w:pick_devices(p, pod, node, two())))
        assert.are.equal(1, select(2, w:pick_devices(p, pod, node, two())))
    end)
end)
