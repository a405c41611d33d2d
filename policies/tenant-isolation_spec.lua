-- tenant-isolation through the real runtime: a namespace's pods only on its
-- pool's nodes, pool nodes only for their namespaces.
local h = require("tests.lua.helper")

local POOL = "moonsched.io/pool"

describe("tenant-isolation", function()
    local w, nodes
    setup(function()
        w = h.world()
        nodes = {
            w:node(h.node_json({ name = "a1", labels = { [POOL] = "a" } })),
            w:node(h.node_json({ name = "b1", labels = { [POOL] = "b" } })),
            w:node(h.node_json({ name = "shared" })),
        }
    end)
    teardown(function() w:close() end)

    local ARGS = [[{"pools": {"team-a": "a", "team-b": "b"}}]]

    local function codes(r)
        local t = {}
        for i, st in ipairs(r.filter) do t[i] = st.code end
        return t
    end

    it("keeps a namespace's pods on its pool", function()
        local p = assert(w:policy_file("policies/tenant-isolation.lua", ARGS))
        local r = w:schedule(p, w:pod(h.pod_json({ name = "x", ns = "team-a" })), nodes)
        assert.are.same({ h.SUCCESS, h.UNRESOLVABLE, h.UNRESOLVABLE }, codes(r))
        assert.are.equal("node(s) not in pool a of namespace team-a", r.filter[2].reason)
    end)

    it("keeps other namespaces off pool nodes", function()
        local p = assert(w:policy_file("policies/tenant-isolation.lua", ARGS))
        local r = w:schedule(p, w:pod(h.pod_json({ name = "y", ns = "default" })), nodes)
        assert.are.same({ h.UNRESOLVABLE, h.UNRESOLVABLE, h.SUCCESS }, codes(r))
        assert.are.equal("node(s) reserved for pool a", r.filter[1].reason)
    end)

    it("lets other namespaces anywhere when not exclusive, and maps them to a default pool", function()
        local p = assert(w:policy_file("policies/tenant-isolation.lua",
            [[{"pools": {"team-a": "a"}, "exclusive": false}]]))
        local r = w:schedule(p, w:pod(h.pod_json({ name = "z", ns = "default" })), nodes)
        assert.are.same({ h.SUCCESS, h.SUCCESS, h.SUCCESS }, codes(r))
        local q = assert(w:policy_file("policies/tenant-isolation.lua",
            [[{"pools": {"team-a": "a"}, "default_pool": "b", "label": "moonsched.io/pool"}]]))
        r = w:schedule(q, w:pod(h.pod_json({ name = "z2", ns = "default" })), nodes)
        assert.are.same({ h.UNRESOLVABLE, h.SUCCESS, h.UNRESOLVABLE }, codes(r))
    end)

    it("refuses a pool that is not a string", function()
        local p, err = w:policy_file("policies/tenant-isolation.lua", [[{"pools": {"team-a": 3}}]])
        assert.is_nil(p)
        assert.truthy(err:find("pool of namespace team-a", 1, true), err)
    end)
end)
