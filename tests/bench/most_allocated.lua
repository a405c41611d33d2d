-- NodeResourcesFit's MostAllocated scoring (cpu and memory, weight 1
-- each), written as a policy: the Lua side of tests/bench/bench_lua_score.c.
-- Scores are upstream's integers already, so normalize keeps them.
local floor = math.floor

local p = { name = "most-allocated-lua" }

local function most_requested(requested, capacity)
    if requested > capacity then requested = capacity end
    return floor(requested * 100 / capacity)
end

function p.score(pod, node, state)
    local cpu, mem = state.cpu, state.mem
    if cpu == nil then
        local req = pod.requests
        cpu, mem = req.cpu, req.memory
        state.cpu, state.mem = cpu, mem
    end
    local alloc, used = node.allocatable, node.requested
    local sum, weights = 0, 0
    local ac = alloc.cpu
    if ac > 0 then
        sum = sum + most_requested(used.cpu + cpu, ac)
        weights = weights + 1
    end
    local am = alloc.memory
    if am > 0 then
        sum = sum + most_requested(used.memory + mem, am)
        weights = weights + 1
    end
    if weights == 0 then return 0 end
    return floor(sum / weights)
end

function p.normalize() end

return p
