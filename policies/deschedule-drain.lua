-- deschedule-drain: a descheduling strategy that drains nodes gradually.
-- Each pass evicts at most `per_pass` pods from every node labelled
-- `label` = "true", lowest priority first, so that a node empties over a
-- few passes instead of all at once; the scheduler then places each pod
-- elsewhere (the descheduler checks that it can before evicting). Its
-- evictable hook protects pods annotated `pin_annotation` = "true" and the
-- pods of `protected_namespaces`, from every strategy of the profile.
--
-- args:
--   label                 node label that marks a node for draining
--                         (default "moonsched.io/drain")
--   per_pass              pods evicted per node and pass (default 1)
--   pin_annotation        pod annotation that protects it (default
--                         "moonsched.io/pinned")
--   protected_namespaces  namespaces never evicted (default {"kube-system"})

---@type moonsched.Policy
local p = { name = "deschedule-drain" }

local label, per_pass, pin, protected

function p.init(args)
    label = args.label or "moonsched.io/drain"
    per_pass = args.per_pass or 1
    pin = args.pin_annotation or "moonsched.io/pinned"
    if type(per_pass) ~= "number" or per_pass < 1 or per_pass % 1 ~= 0 then
        error("deschedule-drain: args.per_pass must be a positive integer", 0)
    end
    protected = {}
    for _, ns in ipairs(args.protected_namespaces or { "kube-system" }) do protected[ns] = true end
end

function p.evictable(pod)
    if pod.annotations[pin] == "true" then return false, "pinned by the annotation " .. pin end
    if protected[pod.namespace] then return false, "namespace " .. pod.namespace .. " is protected" end
    return true
end

local function lower_first(a, b)
    if a.priority ~= b.priority then return a.priority < b.priority end
    return a.name < b.name
end

function p.deschedule(nodes)
    local out = {}
    for _, node in ipairs(nodes) do
        if node.labels[label] == "true" then
            local pods = {}
            for pod in node:pods() do
                if p.evictable(pod) then pods[#pods + 1] = pod end
            end
            table.sort(pods, lower_first)
            for i = 1, math.min(per_pass, #pods) do
                out[#out + 1] = { pod = pods[i], reason = "node " .. node.name .. " is being drained" }
            end
        end
    end
    return out
end

return p
