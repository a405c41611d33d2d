-- gpu-topology: chooses the devices a pod's resource claims get on its
-- node (DynamicResources, docs/dra.md): each claim's devices on as few
-- NVLink islands (or PCIe roots, or any attribute the driver publishes)
-- as possible, and, among those, on the islands with the fewest free
-- devices (best fit), so that whole islands stay free for the claims that
-- need them. Upstream takes the first devices that fit, whichever islands
-- they are on.
--
-- args:
--   attribute   the device attribute naming the island: an identifier of
--               the driver's domain ("nvlinkIsland", the default) or a
--               qualified name ("gpu.example.com/pciRoot")
--
-- A device without the attribute is an island of its own. Free devices
-- are those the options show, which are all of them unless the options
-- were cut at their limit.

---@type moonsched.Policy
local p = { name = "gpu-topology" }

local attribute

function p.init(args)
    attribute = args.attribute or "nvlinkIsland"
    if type(attribute) ~= "string" or attribute == "" then
        error("gpu-topology: args.attribute must be an attribute name", 0)
    end
end

local function island(d)
    local v = d.attributes[attribute]
    if v == nil then return "device " .. d.pool .. "/" .. d.name end
    return tostring(v)
end

--- One score per option: islands spanned per claim weigh most, then the
--- free devices of the islands used (fewer is better).
---@param options moonsched.DeviceOption[]
function p.pick_devices(_, _, options)
    local free, seen = {}, {}
    for _, o in ipairs(options) do
        for _, d in ipairs(o.devices) do
            local key = d.pool .. "/" .. d.name
            if not seen[key] then
                seen[key] = true
                local i = island(d)
                free[i] = (free[i] or 0) + 1
            end
        end
    end
    local scores = {}
    for k, o in ipairs(options) do
        local spans, islands, packed = 0, {}, 0
        for _, d in ipairs(o.devices) do
            local i = island(d)
            local per_claim = islands[d.claim]
            if per_claim == nil then
                per_claim = {}
                islands[d.claim] = per_claim
            end
            if not per_claim[i] then
                per_claim[i] = true
                spans = spans + 1
            end
            packed = packed + free[i]
        end
        scores[k] = -(spans * 1e6 + packed)
    end
    return scores
end

return p
