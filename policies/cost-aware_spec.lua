-- cost-aware through the real runtime: the cheapest node scores 100, the
-- dearest 0, nodes without a price come last (or at the given price).
local h = require("tests.lua.helper")

local PRICE = "moonsched.io/price"

describe("cost-aware", function()
    local w, nodes, pod
    setup(function()
        w = h.world()
        nodes = {
            w:node(h.node_json({ name = "cheap", labels = { [PRICE] = "0.10" } })),
            w:node(h.node_json({ name = "mid", labels = { [PRICE] = "0.20" } })),
            w:node(h.node_json({ name = "dear", labels = { [PRICE] = "0.50" } })),
            w:node(h.node_json({ name = "unpriced" })),
        }
        pod = w:pod(h.pod_json({ name = "x" }))
    end)
    teardown(function() w:close() end)

    it("ranks nodes by price, unknown prices last", function()
        local p = assert(w:policy_file("policies/cost-aware.lua"))
        -- (0.5 - price) / 0.4: 100, 75, 0; unpriced at the dearest price: 0
        assert.are.same({ 100, 75, 0, 0 }, w:schedule(p, pod, nodes).scores)
    end)

    it("puts unpriced nodes at a given price", function()
        local p = assert(w:policy_file("policies/cost-aware.lua", [[{"unknown": 0.3}]]))
        assert.are.same({ 100, 75, 0, 50 }, w:schedule(p, pod, nodes).scores)
    end)

    it("reads an annotation and divides by cores when asked", function()
        local p = assert(w:policy_file("policies/cost-aware.lua",
            [[{"annotation": "example.com/hourly", "per_cpu": true}]]))
        local ns = {
            w:node(h.node_json({ name = "big", annotations = { ["example.com/hourly"] = "0.8" },
                                 allocatable = { cpu = "8", memory = "1Gi", pods = "10" } })),
            w:node(h.node_json({ name = "small", annotations = { ["example.com/hourly"] = "0.2" },
                                 allocatable = { cpu = "1", memory = "1Gi", pods = "10" } })),
        }
        -- per core: 0.1 and 0.2
        assert.are.same({ 100, 0 }, w:schedule(p, pod, ns).scores)
    end)
end)
