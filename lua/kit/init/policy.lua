-- A moonsched policy (docs/policies.md): keeps pods off nodes labelled
-- example.com/maintenance=true and prefers nodes with the most free CPU.
-- Try it: moonsched policy check policy.lua --cluster CLUSTER.yaml
---@type moonsched.Policy
local p = { name = "my-policy" }

function p.init(args)
    p.label = args.label or "example.com/maintenance"
    if type(p.label) ~= "string" then error("args.label: a label key") end
end

function p.filter(_, node)
    if node.labels[p.label] == "true" then return false, "node under maintenance" end
    return true
end

function p.score(_, node)
    return node.allocatable.cpu - node.requested.cpu
end

return p
