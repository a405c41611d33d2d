-- policy.lua through the real scheduler core: `moonsched policy test`.
local kit = require("moonsched.kit")

describe("my-policy", function()
    local w, p
    before_each(function()
        w = kit.world()
        p = assert(w:policy_file("policy.lua"))
    end)
    after_each(function() w:close() end)

    it("keeps pods off nodes under maintenance and prefers free CPU", function()
        local nodes, pending = w:cluster({
            nodes = { { name = "busy" }, { name = "idle" },
                      { name = "down", labels = { ["example.com/maintenance"] = "true" } } },
            pods = { { name = "running", node = "busy", requests = { cpu = "3" } },
                     { name = "web", requests = { cpu = "500m" } } },
        })
        local r = w:schedule(p, pending[1], nodes)
        assert.are.equal(kit.SUCCESS, r.filter[1].code)
        assert.are.equal(kit.UNSCHEDULABLE, r.filter[3].code)
        assert.are.equal("node under maintenance", r.filter[3].reason)
        -- Scores of the feasible nodes (busy, idle), rescaled to 0..100.
        assert.is_true(r.scores[2] > r.scores[1])
    end)

    it("places the pod on the idle node in a full simulation", function()
        local out = assert(kit.simulate({
            cluster = { nodes = { { name = "busy" }, { name = "idle" } },
                        pods = { { name = "running", node = "busy", requests = { cpu = "3" } },
                                 { name = "web", requests = { cpu = "500m" } } } },
            policies = { "policy.lua" },
        }))
        assert.are.equal("idle", kit.placement(out, "default/web"))
    end)
end)
