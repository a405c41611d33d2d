-- A policy that misbehaves on purpose, by the pod's "mode" label: spins
-- for ever, allocates without end, or raises an error. Other pods pass.
local p = { name = "hostile" }

function p.filter(pod)
    local mode = pod.labels.mode
    if mode == "spin" then
        while true do end
    elseif mode == "bomb" then
        local t = {}
        for i = 1, 1e9 do t[i] = string.rep("x", 1e6) .. i end
    elseif mode == "error" then
        error("broken for " .. pod.name, 0)
    end
    return true
end

return p
