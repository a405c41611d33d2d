-- cost-aware: prefers cheaper nodes. A node's price is a number in a label
-- or an annotation (what a cloud controller or an operator writes there,
-- e.g. an hourly price); optionally per CPU core.
--
-- args:
--   label        node label holding the price (default "moonsched.io/price")
--   annotation   node annotation holding the price (used when set,
--                instead of the label)
--   per_cpu      divide the price by the node's allocatable cores (default false)
--   unknown      price of a node without one (default: the most expensive
--                node's, so unknown nodes come last)

---@type moonsched.Policy
local p = { name = "cost-aware" }

local label, annotation, per_cpu, unknown

function p.init(args)
    label = args.label or "moonsched.io/price"
    annotation = args.annotation
    per_cpu = args.per_cpu == true
    unknown = args.unknown
    if unknown ~= nil and type(unknown) ~= "number" then
        error("cost-aware: args.unknown must be a number", 0)
    end
end

local function price_of(node)
    local text
    if annotation then text = node.annotations[annotation] else text = node.labels[label] end
    local price = text and tonumber(text)
    if price == nil or price < 0 then return nil end
    if per_cpu then
        local cores = node.allocatable.cpu / 1000
        if cores <= 0 then return nil end
        price = price / cores
    end
    return price
end

-- Raw score: the price (nil for unknown: -1 marks it for normalize).
function p.score(_, node)
    return price_of(node) or -1
end

-- The cheapest node gets 100, the dearest 0.
function p.normalize(_, scores)
    local n = #scores
    local lo, hi = math.huge, -math.huge
    for i = 1, n do
        local s = scores[i]
        if s >= 0 then
            if s < lo then lo = s end
            if s > hi then hi = s end
        end
    end
    if lo == math.huge then
        for i = 1, n do scores[i] = 0 end
        return
    end
    local missing = unknown or hi
    if missing > hi then hi = missing end
    if missing < lo then lo = missing end
    for i = 1, n do
        local s = scores[i]
        if s < 0 then s = missing end
        if hi == lo then
            scores[i] = 100
        else
            scores[i] = math.floor(100 * (hi - s) / (hi - lo) + 0.5)
        end
    end
end

return p
