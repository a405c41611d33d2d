-- Twin of a nodeSelector {pool: X}: the pod says X in an annotation.
local p = { name = "twin-selector" }

function p.filter(pod, node)
    local want = pod.annotations["diff/pool"]
    if want ~= nil and node.labels.pool ~= want then
        return false, "node(s) didn't match Pod's node affinity/selector", true
    end
    return true
end

return p
