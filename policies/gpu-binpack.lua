-- gpu-binpack: packs pods that request an extended resource (GPUs by
-- default) onto the nodes already using the most of it, so that whole
-- nodes stay free for large requests; pods that request none are kept off
-- the nodes that have it.
--
-- args:
--   resource       the extended resource (default "nvidia.com/gpu")
--   keep_others_off  score nodes without the resource higher for pods that
--                    do not request it (default true)

---@type moonsched.Policy
local p = { name = "gpu-binpack" }

local resource, keep_others_off, not_enough

function p.init(args)
    resource = args.resource or "nvidia.com/gpu"
    if type(resource) ~= "string" or resource == "" then
        error("gpu-binpack: args.resource must be a resource name", 0)
    end
    keep_others_off = args.keep_others_off ~= false
    -- Built once: a concatenation in filter would run on every node.
    not_enough = "not enough free " .. resource
end

function p.pre_filter(pod, state)
    state.want = pod.requests[resource]
    if state.want == 0 and not keep_others_off then return "skip" end
end

function p.filter(_, node, state)
    local want = state.want
    if want == 0 then return true end
    return node.free(resource) >= want, not_enough
end

-- The fraction of the node's resource in use once the pod is placed:
-- fuller nodes first. For pods without the resource: nodes without it.
function p.score(_, node, state)
    local want = state.want
    local total = node.allocatable[resource]
    if want == 0 then
        if total == 0 then return 100 end
        return 0
    end
    if total == 0 then return 0 end
    return 100 * (node.requested[resource] + want) / total
end

-- Scores are fractions already: keep them as they are (0..100).
function p.normalize(_, scores)
    for i = 1, #scores do
        local s = scores[i]
        if s > 100 then s = 100 end
        scores[i] = math.floor(s + 0.5)
    end
end

return p
