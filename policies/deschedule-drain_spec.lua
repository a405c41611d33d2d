-- deschedule-drain through the real runtime: per_pass pods per drained
-- node, lowest priority first; pinned pods and protected namespaces stay.
local h = require("tests.lua.helper")

describe("deschedule-drain", function()
    local w, nodes, pods
    setup(function()
        w = h.world()
        local function pod(name, o)
            o = o or {}
            o.name = name
            return w:pod(h.pod_json(o))
        end
        local a = {
            pod("a-high", { priority = 100 }),
            pod("a-low", { priority = 1 }),
            pod("a-pinned", { priority = 0, annotations = { ["moonsched.io/pinned"] = "true" } }),
            pod("a-system", { priority = 0, ns = "kube-system" }),
        }
        local b = { pod("b-1"), pod("b-2") }
        nodes = {
            w:node(h.node_json({ name = "draining", labels = { ["moonsched.io/drain"] = "true" } }), a),
            w:node(h.node_json({ name = "staying" }), b),
        }
        pods = { a[1], a[2], a[3], a[4], b[1], b[2] }
    end)
    teardown(function() w:close() end)

    it("evicts the lowest priority evictable pod of each drained node", function()
        local p = assert(w:policy_file("policies/deschedule-drain.lua"))
        local rc, picked = w:deschedule(p, nodes, pods)
        assert.are.equal(h.SUCCESS, rc)
        assert.are.same({ { index = 2, reason = "node draining is being drained" } }, picked)
    end)

    it("takes per_pass and another label", function()
        local p = assert(w:policy_file("policies/deschedule-drain.lua", [[{"per_pass": 5}]]))
        local _, picked = w:deschedule(p, nodes, pods)
        assert.are.same({ 2, 1 }, { picked[1].index, picked[2].index })
        assert.are.equal(2, #picked)
        p = assert(w:policy_file("policies/deschedule-drain.lua", [[{"label": "other"}]]))
        _, picked = w:deschedule(p, nodes, pods)
        assert.are.same({}, picked)
    end)

    it("protects pinned pods and protected namespaces from every strategy", function()
        local p = assert(w:policy_file("policies/deschedule-drain.lua"))
        assert.are.same({ h.SUCCESS }, { (w:evictable(p, pods[1])) })
        local rc, why = w:evictable(p, pods[3])
        assert.are.equal(h.UNSCHEDULABLE, rc)
        assert.are.equal("pinned by the annotation moonsched.io/pinned", why)
        rc, why = w:evictable(p, pods[4])
        assert.are.equal(h.UNSCHEDULABLE, rc)
        assert.are.equal("namespace kube-system is protected", why)
    end)

    it("refuses a bad per_pass", function()
        local p, err = w:policy_file("policies/deschedule-drain.lua", [[{"per_pass": 0}]])
        assert.is_nil(p)
        assert.truthy(err:find("per_pass", 1, true), err)
    end)
end)
