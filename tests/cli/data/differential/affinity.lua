-- Twin of required node affinity on one zone expression (In or NotIn):
-- annotations diff/zone-op and diff/zones (comma-separated).
local p = { name = "twin-affinity" }

function p.pre_filter(pod, state)
    local op = pod.annotations["diff/zone-op"]
    if op == nil then return "skip" end
    local set = {}
    for z in pod.annotations["diff/zones"]:gmatch("[^,]+") do set[z] = true end
    state.op, state.zones = op, set
end

function p.filter(_, node, state)
    local zone = node.labels.zone
    local hit = zone ~= nil and state.zones[zone] == true
    -- NotIn matches a node without the label too.
    local ok = (state.op == "In" and hit) or (state.op == "NotIn" and not hit)
    return ok, "node(s) didn't match Pod's node affinity/selector", true
end

return p
