-- gpu-topology through the real runtime: among the ways a pod's claims can
-- be allocated on its node, the one with each claim on the fewest islands,
-- then on the islands with the fewest free devices.
local h = require("tests.lua.helper")

local DRIVER = "gpu.example.com"

local function gpu(i, extra)
    local d = { claim = "gpus", request = "gpus", driver = DRIVER, pool = "n1", name = "gpu-" .. i,
                attributes = { nvlinkIsland = math.floor(i / 4), pciRoot = "pci0000:" .. math.floor(i / 2) } }
    for k, v in pairs(extra or {}) do d[k] = v end
    return d
end

--- Every pair of the free GPUs, in the allocator's order.
local function pairs_of(free)
    local out = {}
    for a = 1, #free do
        for b = a + 1, #free do out[#out + 1] = { gpu(free[a]), gpu(free[b]) } end
    end
    return out
end

describe("gpu-topology", function()
    local w, p, node, pod
    setup(function()
        w = h.world()
        p = assert(w:policy_file("policies/gpu-topology.lua"))
        node = w:node(h.node_json({ name = "n1" }))
        pod = w:pod(h.pod_json({ name = "train" }))
    end)
    teardown(function() w:close() end)

    it("keeps a claim on one island rather than the allocator's first devices", function()
        -- free: gpu-3 (island 0), gpu-6 and gpu-7 (island 1)
        local options = pairs_of({ 3, 6, 7 })
        local rc, chosen = w:pick_devices(p, pod, node, options)
        assert.are.equal(h.SUCCESS, rc)
        assert.are.same({ "gpu-6", "gpu-7" }, { options[chosen][1].name, options[chosen][2].name })
    end)

    it("packs: the island with fewer free devices, when both fit", function()
        -- free: gpu-1, gpu-2, gpu-3 (island 0), gpu-6, gpu-7 (island 1)
        local options = pairs_of({ 1, 2, 3, 6, 7 })
        local rc, chosen = w:pick_devices(p, pod, node, options)
        assert.are.equal(h.SUCCESS, rc)
        assert.are.same({ "gpu-6", "gpu-7" }, { options[chosen][1].name, options[chosen][2].name })
    end)

    it("counts islands per claim: two claims on two islands are not a split", function()
        local a = gpu(1, { claim = "a" })
        local b6, b7 = gpu(6, { claim = "b" }), gpu(7, { claim = "b" })
        local b2 = gpu(2, { claim = "b" })
        -- option 1 splits claim b across islands; option 2 does not
        local rc, chosen = w:pick_devices(p, pod, node, { { a, b2, b6 }, { a, b6, b7 } })
        assert.are.equal(h.SUCCESS, rc)
        assert.are.equal(2, chosen)
    end)

    it("takes the island attribute from its args, qualified or not", function()
        local q = assert(w:policy_file("policies/gpu-topology.lua", [[{"attribute": "gpu.example.com/pciRoot"}]]))
        -- free: gpu-1 (root 0), gpu-2, gpu-3 (root 1), gpu-4 (root 2): the
        -- pair on root 1, though gpu-1 and gpu-2 share an NVLink island
        local options = pairs_of({ 1, 2, 3, 4 })
        local rc, chosen = w:pick_devices(q, pod, node, options)
        assert.are.equal(h.SUCCESS, rc)
        assert.are.same({ "gpu-2", "gpu-3" }, { options[chosen][1].name, options[chosen][2].name })
    end)

    it("treats a device without the attribute as an island of its own", function()
        local bare = { claim = "gpus", request = "gpus", driver = DRIVER, pool = "n1", name = "fpga-0",
                       attributes = {} }
        local rc, chosen = w:pick_devices(p, pod, node, { { bare, gpu(1) }, { gpu(1), gpu(2) } })
        assert.are.equal(h.SUCCESS, rc)
        assert.are.equal(2, chosen)
    end)

    it("refuses a bad attribute argument at load", function()
        local q, err = w:policy_file("policies/gpu-topology.lua", [[{"attribute": 7}]])
        assert.is_nil(q)
        assert.truthy(err:find("args.attribute", 1, true), err)
    end)
end)
