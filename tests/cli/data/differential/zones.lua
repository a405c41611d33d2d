-- luacheck: read globals sched
-- Twin of required pod anti-affinity on topologyKey zone against pods
-- labelled app=spread of the pod's namespace: no two such pods in one
-- zone. pre_filter counts
-- them per zone; add_pod and remove_pod keep the counts right while
-- preemption removes victims and adds nominated pods in its dry runs.
local p = { name = "twin-zones" }

function p.pre_filter(pod, state)
    if pod.annotations["diff/spread"] == nil then return "skip" end
    local count, ns = {}, pod.namespace
    for node in sched.nodes() do
        local z = node.labels.zone
        if z ~= nil then
            for q in node:pods() do
                if q.labels.app == "spread" and q.namespace == ns then count[z] = (count[z] or 0) + 1 end
            end
        end
    end
    state.count = count
end

function p.filter(_, node, state)
    local z = node.labels.zone
    if z ~= nil and (state.count[z] or 0) > 0 then
        return false, "node(s) didn't match pod anti-affinity rules"
    end
    return true
end

local function counter(by)
    return function(pod, other, node, state)
        local z = node.labels.zone
        if z ~= nil and other.labels.app == "spread" and other.namespace == pod.namespace then
            state.count[z] = (state.count[z] or 0) + by
        end
    end
end
p.add_pod = counter(1)
p.remove_pod = counter(-1)

return p
