-- protected-preemption through the runtime's preemption entry points
-- (ms_policy_select_victims, ms_policy_pick_preemption): protected
-- namespaces are never victims, the youngest pods go first, just enough
-- of them, and the option with the youngest oldest victim wins.
local h = require("tests.lua.helper")

describe("protected-preemption", function()
    local w, p
    setup(function()
        w = h.world()
        p = assert(w:policy_file("policies/protected-preemption.lua", [[{"protected": ["kube-system", "prod"]}]]))
    end)
    teardown(function() w:close() end)

    local function victim(name, ns, cpu, created, node)
        return w:pod(h.pod_json({ name = name, ns = ns, node = node, priority = 0,
                                  requests = { cpu = cpu }, created = created }))
    end

    it("evicts the youngest unprotected pods, just enough of them", function()
        local pods = {
            victim("old", "batch", "1", "2024-01-01T00:00:00Z", "n1"),
            victim("young", "batch", "1", "2024-06-01T00:00:00Z", "n1"),
            victim("younger", "batch", "1", "2024-07-01T00:00:00Z", "n1"),
            victim("dns", "kube-system", "1", "2024-08-01T00:00:00Z", "n1"),
        }
        local ni = w:node(h.node_json({ name = "n1" }), pods)   -- 4 cpu, all used
        local pod = w:pod(h.pod_json({ name = "big", priority = 100, requests = { cpu = "2" } }))
        local rc, picked = w:select_victims(p, pod, ni, pods)
        assert.are.equal(h.SUCCESS, rc)
        assert.are.same({ 3, 2 }, picked)   -- younger, then young
    end)

    it("says the node cannot help when only protected pods would free enough", function()
        local pods = {
            victim("api", "prod", "3", "2024-01-01T00:00:00Z", "n2"),
            victim("job", "batch", "1", "2024-01-01T00:00:00Z", "n2"),
        }
        local ni = w:node(h.node_json({ name = "n2" }), pods)
        local pod = w:pod(h.pod_json({ name = "big2", priority = 100, requests = { cpu = "2" } }))
        local rc = w:select_victims(p, pod, ni, pods)
        assert.are.equal(h.UNSCHEDULABLE, rc)
    end)

    it("picks fewer PDB violations first, then the youngest oldest victim", function()
        local n1 = w:node(h.node_json({ name = "o1" }))
        local a = victim("a", "batch", "1", "2024-01-01T00:00:00Z")
        local b = victim("b", "batch", "1", "2024-03-01T00:00:00Z")
        local c = victim("c", "batch", "1", "2024-05-01T00:00:00Z")
        local pod = w:pod(h.pod_json({ name = "big3", priority = 100 }))
        local rc, chosen = w:pick(p, pod, {
            { node = n1, victims = { a } },
            { node = n1, victims = { b, c } },
            { node = n1, victims = { c }, pdb = 1 },
        })
        assert.are.equal(h.SUCCESS, rc)
        assert.are.equal(2, chosen)
    end)
end)
