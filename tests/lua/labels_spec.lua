-- Label and annotation reads in the real runtime: the lookup that runs in
-- Lua (a remembered position per key, a branch-free binary search, the C
-- side past 64 items) must find exactly what the C lookup finds, on nodes
-- with any number of labels in any order, interpreted and JIT-compiled
-- (hundreds of nodes per call make the runtime's loop hot).
local h = require("tests.lua.helper")

-- A deterministic shuffle, so that key ids (interned in order of first
-- appearance) do not follow the key names.
local function shuffled(n, seed)
    local t = {}
    for i = 1, n do t[i] = i end
    local x = seed
    for i = n, 2, -1 do
        x = (x * 1103515245 + 12345) % 2147483648
        local j = x % i + 1
        t[i], t[j] = t[j], t[i]
    end
    return t
end

-- The keys a policy reads: k1..k80 (nodes carry subsets of them) and two
-- that no node has (one never interned, one interned as a value only).
local NKEYS = 80
local READ = {}
for i = 1, NKEYS do READ[i] = "k" .. i end
READ[#READ + 1] = "no-such-key"
READ[#READ + 1] = "v-is-a-value"

-- One statement per key, no loop: the reads compile into the runtime's
-- loop over the nodes as a policy's would.
local function reader(field)
    local parts = {}
    for i, k in ipairs(READ) do
        parts[i] = ("tostring(node.%s[%q])"):format(field, k)
    end
    return ([[
local p = {name = "reader"}
function p.filter(pod, node)
  return false, table.concat({%s}, ",")
end
return p]]):format(table.concat(parts, ", "))
end

-- Node i carries (i % 71) of the keys, a different subset and order each.
local function node_maps(i)
    local m = {}
    local order = shuffled(NKEYS, i + 7)
    for j = 1, i % 71 do
        local k = order[j]
        m["k" .. k] = ("v%d-%d"):format(k, i % 5)
    end
    if i % 3 == 0 then m["k" .. order[NKEYS]] = "v-is-a-value" end
    return m
end

local function expected(m)
    local parts = {}
    for i, k in ipairs(READ) do parts[i] = tostring(m[k]) end
    return table.concat(parts, ",")
end

describe("label and annotation reads", function()
    local w, pod, nodes, maps
    setup(function()
        w = h.world({ budget = 5 })
        pod = w:pod(h.pod_json({ name = "p" }))
        nodes, maps = {}, {}
        -- Interned in a shuffled order before any node, so that ids and
        -- positions differ from names.
        for _, k in ipairs(shuffled(NKEYS, 3)) do h.C.ms_intern_cstr(w.in_, "k" .. k) end
        for i = 0, 299 do
            local m = node_maps(i)
            maps[i + 1] = m
            nodes[i + 1] = w:node(h.node_json({ name = "n" .. i, labels = m, annotations = m }))
        end
    end)
    teardown(function() w:close() end)

    for _, field in ipairs({ "labels", "annotations" }) do
        it("node." .. field .. "[k] finds every key and only those, on 0 to 70 items", function()
            local p = assert(w:policy(reader(field)))
            -- Several calls: the loop compiles during the first ones.
            for _ = 1, 3 do
                local r = w:filter(p, pod, nodes)
                for i = 1, #nodes do
                    assert.are.equal(expected(maps[i]), r[i].reason, "node n" .. (i - 1))
                end
            end
            -- Node order reversed: remembered positions are wrong more often.
            local rev = {}
            for i = #nodes, 1, -1 do rev[#rev + 1] = nodes[i] end
            local r = w:filter(p, pod, rev)
            for i = 1, #rev do
                assert.are.equal(expected(maps[#nodes - i + 1]), r[i].reason)
            end
        end)
    end

    it("pod.labels[k] reads the same way", function()
        local m = node_maps(42)
        local q = w:pod(h.pod_json({ name = "q", labels = m }))
        local src = reader("labels"):gsub("node%.labels", "pod.labels")
        local p = assert(w:policy(src))
        local r = w:filter(p, q, nodes)
        for i = 1, #nodes do assert.are.equal(expected(m), r[i].reason) end
    end)

    it("a key unknown in one call is found in the next once a node has it", function()
        local p = assert(w:policy([[
local p = {name = "late"}
function p.filter(pod, node)
  return false, tostring(node.labels["late-key"]) .. tostring(node.annotations["late-key"])
end
return p]]))
        local r = w:filter(p, pod, nodes)
        for i = 1, #nodes do assert.are.equal("nilnil", r[i].reason) end
        local late = w:node(h.node_json({ name = "late", labels = { ["late-key"] = "here" },
                                          annotations = { ["late-key"] = "too" } }))
        local all = { late }
        for i = 1, #nodes do all[#all + 1] = nodes[i] end
        r = w:filter(p, pod, all)
        assert.are.equal("heretoo", r[1].reason)
        for i = 2, #all do assert.are.equal("nilnil", r[i].reason) end
    end)

    it("a key given as a non-string reads nil", function()
        local p = assert(w:policy([[
local p = {name = "odd"}
function p.filter(pod, node)
  return false, tostring(node.labels[1]) .. tostring(node.annotations[true])
end
return p]]))
        assert.are.equal("nilnil", w:filter(p, pod, { nodes[10] })[1].reason)
    end)
end)

describe("tonumber in the sandbox", function()
    local w, pod, ni
    setup(function()
        w = h.world()
        pod = w:pod(h.pod_json({ name = "p" }))
        ni = w:node(h.node_json({ name = "n", labels = { price = "0.25", bad = "x1" } }))
    end)
    teardown(function() w:close() end)

    -- Each read twice: the second comes from what the first remembered.
    local cases = {
        { "tonumber(node.labels.price)", "0.25" },
        { "tonumber(node.labels.bad)", "nil" },
        { "tonumber('0x10')", "16" },
        { "tonumber(' 7 ')", "7" },
        { "tonumber('10', 2)", "2" },
        { "tonumber('ff', 16)", "255" },
        { "tonumber(5)", "5" },
        { "tonumber(nil)", "nil" },
        { "tonumber('')", "nil" },
        { "tonumber(string.rep(' ', 100) .. '5')", "5" },
        { "tonumber(string.rep('9', 80))", tostring(tonumber(string.rep('9', 80))) },
        { "select('#', tonumber('x'))", "1" },
    }
    for _, c in ipairs(cases) do
        it(c[1] .. " -> " .. c[2], function()
            local p = assert(w:policy(([[
local p = {name = "num"}
function p.filter(pod, node)
  local a, b = tostring(%s), tostring(%s)
  return false, a == b and a or (a .. " then " .. b)
end
return p]]):format(c[1], c[1])))
            assert.are.equal(c[2], w:filter(p, pod, { ni })[1].reason)
        end)
    end

    it("tonumber() without an argument is still an error", function()
        local p = assert(w:policy([[
local p = {name = "num"}
function p.filter(pod, node)
  return false, tostring((pcall(tonumber)))
end
return p]]))
        assert.are.equal("false", w:filter(p, pod, { ni })[1].reason)
    end)

    it("keeps working past the texts it remembers", function()
        local p = assert(w:policy([[
local p = {name = "many"}
function p.filter(pod, node)
  local sum = 0
  for i = 1, 10000 do sum = sum + tonumber(tostring(i)) end
  for i = 1, 10 do sum = sum + tonumber(tostring(i)) end
  return false, tostring(sum)
end
return p]]))
        assert.are.equal(tostring(10000 * 10001 / 2 + 55), w:filter(p, pod, { ni })[1].reason)
    end)
end)
