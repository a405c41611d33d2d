-- avoid-hot-nodes: keeps pods off nodes that an external agent reports as
-- busy. The agent writes the node's load (0 = idle, 1 = saturated) and the
-- time of the measurement (unix seconds) in two annotations; a reading
-- older than max_age seconds is ignored (the agent may be gone).
--
-- args:
--   annotation            load annotation (default "moonsched.io/load")
--   timestamp_annotation  time annotation (default "moonsched.io/load-timestamp")
--   max_age               seconds a reading stays valid (default 120)
--   threshold             fresh loads at or above it reject the node
--                         (default 0.9; false: never reject)
--   unknown               load assumed without a valid reading (default 0.5)

---@type moonsched.Policy
local p = { name = "avoid-hot-nodes" }

local annotation, ts_annotation, max_age, threshold, unknown

function p.init(args)
    annotation = args.annotation or "moonsched.io/load"
    ts_annotation = args.timestamp_annotation or "moonsched.io/load-timestamp"
    max_age = args.max_age or 120
    threshold = args.threshold
    if threshold == nil then threshold = 0.9 end
    unknown = args.unknown or 0.5
    if type(max_age) ~= "number" or max_age <= 0 then
        error("avoid-hot-nodes: args.max_age must be a positive number of seconds", 0)
    end
end

-- The node's load when its reading is fresh, else nil.
local function load_of(node, now)
    local l = tonumber(node.annotations[annotation] or "")
    local at = tonumber(node.annotations[ts_annotation] or "")
    if l == nil or at == nil or now - at > max_age then return nil end
    if l < 0 then l = 0 elseif l > 1 then l = 1 end
    return l
end

function p.pre_filter(_, state)
    state.now = os.time()
end

function p.filter(_, node, state)
    if not threshold then return true end
    local l = load_of(node, state.now)
    if l == nil or l < threshold then return true end
    return false, "node(s) were too busy (load reported by the node agent)"
end

function p.score(_, node, state)
    local l = load_of(node, state.now) or unknown
    return 100 * (1 - l)
end

function p.normalize(_, scores)
    for i = 1, #scores do scores[i] = math.floor(scores[i] + 0.5) end
end

return p
