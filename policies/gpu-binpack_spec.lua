-- gpu-binpack through the real runtime: GPU pods pack onto the fullest
-- GPU node that fits, other pods stay off GPU nodes.
local h = require("tests.lua.helper")

local GPU = "nvidia.com/gpu"

describe("gpu-binpack", function()
    local w, p, nodes
    setup(function()
        w = h.world()
        p = assert(w:policy_file("policies/gpu-binpack.lua"))
        local function gpu_node(name, used)
            local pods = {}
            if used > 0 then
                pods[1] = w:pod(h.pod_json({ name = name .. "-busy", node = name, requests = { [GPU] = used } }))
            end
            local alloc = { cpu = "8", memory = "32Gi", pods = "110", [GPU] = "4" }
            return w:node(h.node_json({ name = name, allocatable = alloc }), pods)
        end
        nodes = { gpu_node("empty", 0), gpu_node("half", 2), gpu_node("full", 4),
                  w:node(h.node_json({ name = "cpu-only" })) }
    end)
    teardown(function() w:close() end)

    it("rejects nodes without enough free GPUs", function()
        local pod = w:pod(h.pod_json({ name = "train", requests = { [GPU] = 2 } }))
        local r = w:schedule(p, pod, nodes)
        assert.are.equal(h.SUCCESS, r.filter[1].code)
        assert.are.equal(h.SUCCESS, r.filter[2].code)
        assert.are.equal(h.UNSCHEDULABLE, r.filter[3].code)
        assert.are.equal("not enough free " .. GPU, r.filter[3].reason)
        assert.are.equal(h.UNSCHEDULABLE, r.filter[4].code)
    end)

    it("packs: the node that ends up fullest scores highest", function()
        local pod = w:pod(h.pod_json({ name = "train2", requests = { [GPU] = 2 } }))
        local r = w:schedule(p, pod, nodes)
        -- empty: 2/4 -> 50, half: 4/4 -> 100
        assert.are.same({ 50, 100 }, r.scores)
    end)

    it("keeps pods without GPUs off GPU nodes", function()
        local pod = w:pod(h.pod_json({ name = "web", requests = { cpu = "1" } }))
        local r = w:schedule(p, pod, nodes)
        assert.are.same({ 0, 0, 0, 100 }, r.scores)
    end)

    it("takes another resource from its args", function()
        local q = assert(w:policy_file("policies/gpu-binpack.lua",
            [[{"resource": "example.com/fpga", "keep_others_off": false}]]))
        local pod = w:pod(h.pod_json({ name = "web2" }))
        assert.is_true(w:schedule(q, pod, nodes).skip)
    end)

    it("refuses a bad resource argument at load", function()
        local q, err = w:policy_file("policies/gpu-binpack.lua", [[{"resource": 7}]])
        assert.is_nil(q)
        assert.truthy(err:find("args.resource", 1, true), err)
    end)
end)
