-- Twin of TaintToleration's Filter: a NoSchedule or NoExecute taint the
-- pod does not tolerate rules the node out.
local p = { name = "twin-taints" }

local function tolerates(tols, t)
    for _, x in ipairs(tols) do
        if (x.effect == "" or x.effect == t.effect)
            and ((x.operator == "Exists" and (x.key == "" or x.key == t.key))
                or (x.operator == "Equal" and x.key == t.key and x.value == t.value)) then
            return true
        end
    end
    return false
end

function p.pre_filter(pod, state)
    state.tols = pod.tolerations
end

function p.filter(_, node, state)
    for _, t in ipairs(node.taints) do
        if (t.effect == "NoSchedule" or t.effect == "NoExecute") and not tolerates(state.tols, t) then
            return false, ("node(s) had untolerated taint {%s: %s}"):format(t.key, t.value), true
        end
    end
    return true
end

return p
