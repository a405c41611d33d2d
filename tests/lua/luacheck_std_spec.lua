-- The shipped luacheck standard (lua/kit/luacheck-std.lua) against the
-- sandbox's real environment: the same globals, and the same fields of
-- its library tables as a policy in the library's runtime finds them.
local sandbox = dofile("lua/moonsched/sandbox.lua")
local std = dofile("lua/kit/luacheck-std.lua")

local function sorted(set)
    local out = {}
    for k in pairs(set) do out[#out + 1] = k end
    table.sort(out)
    return out
end

describe("the luacheck standard for policies", function()
    local views = { pairs_of = function() end, ipairs_of = function() end }
    local env = sandbox.env(views, function() return {} end)

    it("names exactly the sandbox's globals", function()
        local listed = {}
        for k, v in pairs(std.read_globals) do
            listed[type(k) == "number" and v or k] = true
        end
        local real = {}
        for k in pairs(env) do real[k] = true end
        assert.are.same(sorted(real), sorted(listed))
    end)

    it("names exactly the fields of the sandbox's library tables", function()
        -- The fields as a policy in the library's own runtime sees them.
        local h = require("tests.lua.helper")
        local w = h.world()
        local p = assert(w:policy([[
            local p = { name = "fields" }
            function p.filter(pod, node)
                local lib = ({ string = string, table = table, math = math, bit = bit, os = os })[pod.name]
                local names = {}
                for k in pairs(lib) do names[#names + 1] = k end
                table.sort(names)
                return false, table.concat(names, ",")
            end
            return p
        ]]))
        local node = w:node(h.node_json({ name = "n" }))
        for name, def in pairs(std.read_globals) do
            if type(name) == "string" then
                local pod = w:pod(h.pod_json({ name = name }))
                local listed = {}
                for _, f in ipairs(def.fields) do listed[#listed + 1] = f end
                table.sort(listed)
                assert.are.equal(table.concat(listed, ","), w:filter(p, pod, { node })[1].reason, name)
            end
        end
        w:close()
    end)

    it("leaves out what fails in the sandbox", function()
        for _, g in ipairs({ "assert", "print", "require", "io", "debug", "rawget", "_G" }) do
            assert.is_nil(std.read_globals[g])
            for _, v in ipairs(std.read_globals) do assert.are_not.equal(g, v) end
        end
    end)
end)
