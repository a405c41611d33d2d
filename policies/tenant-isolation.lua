-- tenant-isolation: the pods of a namespace run only on the nodes of their
-- pool, and (by default) nodes of a pool take only the pods of the
-- namespaces mapped to it. A pool is the value of a node label.
--
-- args:
--   label        the node label naming a node's pool (default "moonsched.io/pool")
--   pools        namespace -> pool, e.g. {"team-a": "a", "team-b": "b"}
--   default_pool pool of the namespaces not in `pools` (default: none,
--                they run on nodes without a pool)
--   exclusive    nodes of a pool refuse other namespaces' pods (default true)

---@type moonsched.Policy
local p = { name = "tenant-isolation" }

local label, pools, default_pool, exclusive

function p.init(args)
    label = args.label or "moonsched.io/pool"
    pools = args.pools or {}
    if type(pools) ~= "table" then error("tenant-isolation: args.pools maps namespaces to pools", 0) end
    for ns, pool in pairs(pools) do
        if type(pool) ~= "string" then
            error("tenant-isolation: the pool of namespace " .. tostring(ns) .. " is not a string", 0)
        end
    end
    default_pool = args.default_pool
    exclusive = args.exclusive ~= false
end

function p.pre_filter(pod, state)
    state.pool = pools[pod.namespace] or default_pool
end

-- Rejections are unresolvable: evicting pods cannot move a node to
-- another pool.
function p.filter(pod, node, state)
    local mine = state.pool
    local theirs = node.labels[label]
    if mine ~= nil then
        if theirs == mine then return true end
        return false, "node(s) not in pool " .. mine .. " of namespace " .. pod.namespace, true
    end
    if theirs ~= nil and exclusive then
        return false, "node(s) reserved for pool " .. theirs, true
    end
    return true
end

return p
