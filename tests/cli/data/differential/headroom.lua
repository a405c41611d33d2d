-- Twin of NodeResourcesFit's Filter for pods with cpu and memory
-- requests: resolvable, as victims can make room.
local p = { name = "twin-headroom" }

function p.filter(pod, node)
    if node.pod_count + 1 > node.allocatable.pods then return false, "Too many pods" end
    for _, r in ipairs({ "cpu", "memory" }) do
        local want = pod.requests[r]
        if want > 0 and want > node.free(r) then return false, "Insufficient " .. r end
    end
    return true
end

return p
