-- spread-by-label through the real runtime: counts over every node of the
-- snapshot (sched.nodes()), scores the emptier domain higher, enforces
-- max_skew.
local h = require("tests.lua.helper")

local ZONE = "topology.kubernetes.io/zone"

describe("spread-by-label", function()
    local w, nodes
    setup(function()
        w = h.world()
        local function web(name, node, ns)
            return w:pod(h.pod_json({ name = name, ns = ns, node = node, labels = { app = "web" } }))
        end
        -- zone a: 2 web pods, zone b: 1, zone c: none (and a web pod of
        -- another namespace, which does not count), one node without a zone.
        nodes = {
            w:node(h.node_json({ name = "a1", labels = { [ZONE] = "a" } }), { web("w1", "a1"), web("w2", "a1") }),
            w:node(h.node_json({ name = "b1", labels = { [ZONE] = "b" } }), { web("w3", "b1") }),
            w:node(h.node_json({ name = "c1", labels = { [ZONE] = "c" } }), { web("other", "c1", "elsewhere") }),
            w:node(h.node_json({ name = "nozone" })),
        }
    end)
    teardown(function() w:close() end)

    it("scores the domains with fewer of the application's pods higher", function()
        local p = assert(w:policy_file("policies/spread-by-label.lua", ('{"key": "%s"}'):format(ZONE)))
        local r = w:schedule(p, w:pod(h.pod_json({ name = "new", labels = { app = "web" } })), nodes)
        -- raw: max - count + 1 = a:1, b:2, c:3, nozone:0 -> normalized by the top score
        assert.are.same({ 33, 67, 100, 0 }, r.scores)
        assert.are.equal(4, #r.feasible)
    end)

    it("with max_skew rejects domains too far above the emptiest, and nodes without the label", function()
        local p = assert(w:policy_file("policies/spread-by-label.lua",
            ('{"key": "%s", "max_skew": 1}'):format(ZONE)))
        local r = w:schedule(p, w:pod(h.pod_json({ name = "new2", labels = { app = "web" } })), nodes)
        -- counts a:2 b:1 c:0: a pod more in a or b is 3 or 2 above c
        local codes = {}
        for i, st in ipairs(r.filter) do codes[i] = st.code end
        assert.are.same({ h.UNSCHEDULABLE, h.UNSCHEDULABLE, h.SUCCESS, h.UNRESOLVABLE }, codes)
        assert.truthy(r.filter[1].reason:find("more than 1 pods above the emptiest " .. ZONE, 1, true))
        assert.are.equal("node(s) didn't have label " .. ZONE, r.filter[4].reason)
        assert.are.same({ 100 }, r.scores)
    end)

    it("skips pods without the matching labels", function()
        local p = assert(w:policy_file("policies/spread-by-label.lua", ('{"key": "%s"}'):format(ZONE)))
        assert.is_true(w:schedule(p, w:pod(h.pod_json({ name = "batch" })), nodes).skip)
    end)

    it("needs a key", function()
        local p, err = w:policy_file("policies/spread-by-label.lua")
        assert.is_nil(p)
        assert.truthy(err:find("args.key", 1, true), err)
    end)
end)
