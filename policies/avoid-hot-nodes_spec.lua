-- avoid-hot-nodes through the real runtime: fresh loads reject hot nodes
-- and rank the others; stale or missing readings count as `unknown`.
local h = require("tests.lua.helper")

local LOAD, AT = "moonsched.io/load", "moonsched.io/load-timestamp"

describe("avoid-hot-nodes", function()
    local w, nodes, pod
    setup(function()
        w = h.world()
        local now = os.time()
        local function node(name, load, age)
            local ann = nil
            if load then ann = { [LOAD] = load, [AT] = tostring(now - age) } end
            return w:node(h.node_json({ name = name, annotations = ann }))
        end
        nodes = {
            node("idle", "0.10", 5),
            node("busy", "0.60", 5),
            node("hot", "0.95", 5),
            node("stale-hot", "0.95", 3600),
            node("silent", nil),
        }
        pod = w:pod(h.pod_json({ name = "x" }))
    end)
    teardown(function() w:close() end)

    it("rejects fresh hot nodes only", function()
        local p = assert(w:policy_file("policies/avoid-hot-nodes.lua"))
        local r = w:schedule(p, pod, nodes)
        local codes = {}
        for i, st in ipairs(r.filter) do codes[i] = st.code end
        assert.are.same({ h.SUCCESS, h.SUCCESS, h.UNSCHEDULABLE, h.SUCCESS, h.SUCCESS }, codes)
        assert.truthy(r.filter[3].reason:find("too busy", 1, true))
        -- idle 90, busy 40, stale and silent as unknown (0.5): 50
        assert.are.same({ 90, 40, 50, 50 }, r.scores)
    end)

    it("honours max_age, threshold = false and the unknown load", function()
        local p = assert(w:policy_file("policies/avoid-hot-nodes.lua",
            [[{"max_age": 7200, "threshold": false, "unknown": 1}]]))
        local r = w:schedule(p, pod, nodes)
        assert.are.equal(5, #r.feasible)
        assert.are.same({ 90, 40, 5, 5, 0 }, r.scores)
    end)

    it("refuses a bad max_age", function()
        local p, err = w:policy_file("policies/avoid-hot-nodes.lua", [[{"max_age": -1}]])
        assert.is_nil(p)
        assert.truthy(err:find("max_age", 1, true), err)
    end)
end)
