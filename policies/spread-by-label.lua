-- spread-by-label: spreads the pods of one application over the values of
-- a node label (zones, racks): a node whose domain holds fewer of the
-- application's pods scores higher, and with max_skew set, a node whose
-- domain would hold more than max_skew pods above the emptiest domain is
-- rejected (as PodTopologySpread's DoNotSchedule).
--
-- args:
--   key        the node label that names the domain (required), e.g.
--              "topology.kubernetes.io/zone"
--   match      pod label keys that identify the application (default
--              {"app"}): pods of the same namespace with the same values
--   max_skew   optional hard limit (a positive integer)

---@type moonsched.Policy
local p = { name = "spread-by-label" }

local key, match, max_skew

function p.init(args)
    key = args.key
    if type(key) ~= "string" or key == "" then
        error("spread-by-label: args.key (a node label key) is required", 0)
    end
    match = args.match or { "app" }
    if type(match) ~= "table" or #match == 0 then
        error("spread-by-label: args.match is a list of pod label keys", 0)
    end
    max_skew = args.max_skew
    if max_skew ~= nil and (type(max_skew) ~= "number" or max_skew < 1 or max_skew % 1 ~= 0) then
        error("spread-by-label: args.max_skew must be a positive integer", 0)
    end
end

local function same_app(a, b, values)
    if a.namespace ~= b.namespace then return false end
    local labels = a.labels
    for i = 1, #match do
        if labels[match[i]] ~= values[i] then return false end
    end
    return true
end

-- Counts the application's pods per domain over every node once per pod.
function p.pre_filter(pod, state)
    local values = {}
    for i = 1, #match do
        local v = pod.labels[match[i]]
        if v == nil then return "skip" end
        values[i] = v
    end
    local counts = {}
    for node in sched.nodes() do
        local domain = node.labels[key]
        if domain ~= nil then
            local n = counts[domain] or 0
            for q in node:pods() do
                if same_app(q, pod, values) then n = n + 1 end
            end
            counts[domain] = n
        end
    end
    local min, max = math.huge, 0
    for _, n in pairs(counts) do
        if n < min then min = n end
        if n > max then max = n end
    end
    state.counts, state.min, state.max = counts, min, max
end

function p.filter(_, node, state)
    if max_skew == nil then return true end
    local domain = node.labels[key]
    if domain == nil then return false, "node(s) didn't have label " .. key, true end
    return state.counts[domain] + 1 - state.min <= max_skew,
        "node(s) would put more than " .. max_skew .. " pods above the emptiest " .. key
end

function p.score(_, node, state)
    local domain = node.labels[key]
    if domain == nil then return 0 end
    return state.max - state.counts[domain] + 1
end

return p
