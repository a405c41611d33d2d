-- Twin of NodeUnschedulable: an unschedulable node takes only a pod that
-- tolerates node.kubernetes.io/unschedulable:NoSchedule.
local p = { name = "twin-unschedulable" }

local KEY = "node.kubernetes.io/unschedulable"

function p.pre_filter(pod, state)
    state.tolerates = false
    for _, x in ipairs(pod.tolerations) do
        if (x.effect == "" or x.effect == "NoSchedule")
            and ((x.operator == "Exists" and (x.key == "" or x.key == KEY))
                or (x.operator == "Equal" and x.key == KEY and x.value == "")) then
            state.tolerates = true
        end
    end
end

function p.filter(_, node, state)
    if node.unschedulable and not state.tolerates then
        return false, "node(s) were unschedulable", true
    end
    return true
end

return p
