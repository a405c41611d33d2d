-- The descheduling hooks of the policy contract: deschedule(nodes) and
-- evictable(pod), their results and their errors.
local h = require("tests.lua.helper")

describe("descheduling hooks", function()
    local w, nodes, pods
    setup(function()
        w = h.world()
        local a, b = w:pod(h.pod_json({ name = "a" })), w:pod(h.pod_json({ name = "b", labels = { app = "x" } }))
        nodes = { w:node(h.node_json({ name = "n1" }), { a }), w:node(h.node_json({ name = "n2" }), { b }) }
        pods = { a, b }
    end)
    teardown(function() w:close() end)

    it("deschedule gets the nodes and returns pods, with or without a reason", function()
        local p = assert(w:policy([[
            local p = { name = "d" }
            function p.deschedule(nodes)
                local out = {}
                for _, n in ipairs(nodes) do
                    for pod in n:pods() do
                        if pod.labels.app == "x" then out[#out + 1] = { pod = pod, reason = "app x moves" }
                        else out[#out + 1] = pod end
                    end
                end
                out[#out + 1] = out[1]   -- twice: counted once
                return out
            end
            return p]]))
        local rc, picked = w:deschedule(p, nodes, pods)
        assert.are.equal(h.SUCCESS, rc)
        assert.are.same({ { index = 1, reason = "evicted by policy d" }, { index = 2, reason = "app x moves" } },
            picked)
    end)

    it("nil is nothing to do; a policy without the hook is skipped", function()
        local p = assert(w:policy([[return { name = "n", deschedule = function() return nil end }]]))
        local rc, picked = w:deschedule(p, nodes, pods)
        assert.are.equal(h.SUCCESS, rc)
        assert.are.same({}, picked)
        p = assert(w:policy([[return { name = "none", filter = function() return true end }]]))
        assert.are.equal(h.SKIP, (w:deschedule(p, nodes, pods)))
        assert.are.equal(h.SKIP, (w:evictable(p, pods[1])))
    end)

    it("a pod from elsewhere, or not a table, is an error", function()
        local p = assert(w:policy([[return { name = "bad", deschedule = function() return { {} } end }]]))
        local rc, _, st = w:deschedule(p, nodes, pods)
        assert.are.equal(h.ERROR, rc)
        assert.truthy(st.reason:find("entry 1 is not a pod of the nodes", 1, true), st.reason)
        p = assert(w:policy([[return { name = "bad2", deschedule = function() return 3 end }]]))
        rc, _, st = w:deschedule(p, nodes, pods)
        assert.are.equal(h.ERROR, rc)
        assert.truthy(st.reason:find("expected an array of pods or nil", 1, true), st.reason)
    end)

    it("evictable: false, reason protects; anything else does not", function()
        local p = assert(w:policy([[return { name = "e", evictable = function(pod)
            if pod.name == "a" then return false, "a stays" end
            if pod.name == "b" then return nil end
        end }]]))
        assert.are.same({ h.UNSCHEDULABLE, "a stays" }, { w:evictable(p, pods[1]) })
        assert.are.equal(h.SUCCESS, (w:evictable(p, pods[2])))
    end)

    it("hooks must be functions", function()
        local p, err = w:policy([[return { name = "x", deschedule = 1 }]])
        assert.is_nil(p)
        assert.truthy(err:find("deschedule must be a function", 1, true), err)
    end)
end)
