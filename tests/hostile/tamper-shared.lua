-- Writes to everything shared it can reach: pod and node views, the
-- sandbox's library tables, the string metatable, sched. Every write must
-- be refused; the error names how many took effect.
-- expect: tamper: 0 of 14 writes took effect
local p = { name = "tamper-shared" }
function p.filter(pod, node)
    local writes = {
        function() pod.name = "evil" end,
        function() node.labels.zone = "evil" end,
        function() node.allocatable.cpu = 1e9 end,
        function() node.free.cpu = 1 end,
        function() string.find = nil end,
        function() table.sort = nil end,
        function() math.huge = 0 end,
        function() sched.nodes = nil end,
        function() sched.log.info = nil end,
        function() setmetatable(string, {}) end,
        function() getmetatable("").__index = {} end,
        function() local _, real = pairs(string); real.rep = nil end,
        function() local _, real = next(string); real.x = 1 end,
        function() ("x").len = nil end,
    }
    local took = 0
    for _, w in ipairs(writes) do
        if pcall(w) then took = took + 1 end
    end
    error(("tamper: %d of %d writes took effect"):format(took, #writes), 0)
end
return p
