-- protected-preemption: preemption that never evicts the pods of protected
-- namespaces and, among the others, evicts the youngest pods first (the
-- ones that have done the least work), taking just enough of them to make
-- room for the pod's cpu, memory, pod count and extended resources.
--
-- args:
--   protected   namespaces whose pods are never evicted
--               (default {"kube-system"})

---@type moonsched.Policy
local p = { name = "protected-preemption" }

local protected

function p.init(args)
    protected = {}
    for _, ns in ipairs(args.protected or { "kube-system" }) do protected[ns] = true end
end

-- What the pod needs beyond what the node has free, per resource.
local function shortfall(pod, node)
    local need, any = {}, false
    local function want(r, amount)
        local missing = amount - node.free(r)
        if missing > 0 then
            need[r] = missing
            any = true
        end
    end
    want("cpu", pod.requests.cpu)
    want("memory", pod.requests.memory)
    want("ephemeral-storage", pod.requests["ephemeral-storage"])
    want("pods", 1)
    for r, amount in pairs(pod.requests) do
        if r ~= "cpu" and r ~= "memory" and r ~= "ephemeral-storage" and r ~= "pods" then
            want(r, amount)
        end
    end
    return need, any
end

local function younger(a, b)
    if a.created ~= b.created then return a.created > b.created end
    return a.priority < b.priority
end

function p.select_victims(pod, node, candidates)
    local pool = {}
    for _, c in ipairs(candidates) do
        if not protected[c.namespace] then pool[#pool + 1] = c end
    end
    if #pool == 0 then return nil end
    table.sort(pool, younger)
    local need, any = shortfall(pod, node)
    local victims = {}
    for _, v in ipairs(pool) do
        if not any then break end
        victims[#victims + 1] = v
        any = false
        for r, missing in pairs(need) do
            local left = missing - (r == "pods" and 1 or v.requests[r])
            need[r] = left
            if left > 0 then any = true end
        end
    end
    if any then return nil end
    -- Nothing was short (the pod fails for another reason): evicting the
    -- youngest pod is the least harm that may help.
    if #victims == 0 then victims[1] = pool[1] end
    return victims
end

-- Fewest PDB violations, then the option whose oldest victim is the
-- youngest, then the fewest victims.
function p.pick_preemption(_, options)
    local best, best_key
    for i, o in ipairs(options) do
        local oldest = math.huge
        for _, v in ipairs(o.victims) do
            if v.created < oldest then oldest = v.created end
        end
        local key = { o.pdb_violations, -oldest, #o.victims }
        local better = best_key == nil
        if not better then
            for k = 1, 3 do
                if key[k] ~= best_key[k] then
                    better = key[k] < best_key[k]
                    break
                end
            end
        end
        if better then best, best_key = i, key end
    end
    return best
end

return p
