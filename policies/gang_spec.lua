-- gang through the real runtime: members wait at Permit until the last
-- arrives, which releases them all with sched.permit.allow; a member that
-- gives up its node (timeout, rejection) has the others denied.
local h = require("tests.lua.helper")

describe("gang", function()
    local w, p
    local function member(name, gang, size)
        return w:pod(h.pod_json({ name = name, ns = "ml", uid = "uid-" .. name,
                                  labels = { ["moonsched.io/gang"] = gang,
                                             ["moonsched.io/gang-size"] = tostring(size) } }))
    end
    before_each(function()
        w = h.world()
        w:node(h.node_json({ name = "n1" }))
        p = assert(w:policy_file("policies/gang.lua", [[{"timeout": 12}]]))
    end)
    after_each(function() w:close() end)

    it("holds members until the gang is complete, then releases them together", function()
        local rc, wait = w:permit(p, member("a", "g", 3), "n1")
        assert.are.equal(h.WAIT, rc)
        assert.are.equal(12, wait)
        rc = w:permit(p, member("b", "g", 3), "n1")
        assert.are.equal(h.WAIT, rc)
        assert.are.same({}, w.permits)
        rc = w:permit(p, member("c", "g", 3), "n1")
        assert.are.equal(h.SUCCESS, rc)
        table.sort(w.permits, function(x, y) return x.uid < y.uid end)
        assert.are.same({ { uid = "uid-a", allow = true }, { uid = "uid-b", allow = true } }, w.permits)
    end)

    it("keeps gangs apart and lets other pods through", function()
        assert.are.equal(h.WAIT, (w:permit(p, member("a", "g1", 2), "n1")))
        assert.are.equal(h.WAIT, (w:permit(p, member("x", "g2", 2), "n1")))
        assert.are.equal(h.SUCCESS, (w:permit(p, w:pod(h.pod_json({ name = "solo" })), "n1")))
        assert.are.equal(h.SUCCESS, (w:permit(p, member("y", "g2", 2), "n1")))
        assert.are.same({ { uid = "uid-x", allow = true } }, w.permits)
    end)

    it("denies the rest when a waiting member gives up its node", function()
        local a, b = member("a", "g", 3), member("b", "g", 3)
        w:permit(p, a, "n1")
        w:permit(p, b, "n1")
        w:unreserve(p, a, "n1")
        assert.are.same({ { uid = "uid-b", allow = false,
                            reason = "gang ml/g incomplete: 2 of 3 members had a node" } }, w.permits)
        -- the gang starts over
        w.permits = {}
        assert.are.equal(h.WAIT, (w:permit(p, member("c", "g", 3), "n1")))
        assert.are.same({}, w.permits)
    end)

    it("ignores Unreserve of a member that was already released", function()
        w:permit(p, member("a", "g", 2), "n1")
        w:permit(p, member("b", "g", 2), "n1")
        w.permits = {}
        w:unreserve(p, member("a2", "g", 2), "n1")
        assert.are.same({}, w.permits)
    end)
end)
