-- gang: all-or-nothing scheduling of a group of pods. The pods of a gang
-- share a label value; each member that gets a node waits at Permit, and
-- when the last member arrives they are all released together. When a
-- member's wait times out (or it is rejected while waiting), the others of
-- its gang are denied too, so that a partial gang holds no resources.
--
-- Pods: labels moonsched.io/gang=NAME and moonsched.io/gang-size=N
-- (N members, counted per namespace).
--
-- args:
--   label        gang label (default "moonsched.io/gang")
--   size_label   size label (default "moonsched.io/gang-size")
--   size         size for gangs without a size label (default: none, such
--                pods are not held)
--   timeout      seconds a member waits for the rest (default 30)

---@type moonsched.Policy
local p = { name = "gang" }

local label, size_label, default_size, timeout
-- namespace/gang -> { [uid] = true } of the members waiting now
local waiting = {}

function p.init(args)
    label = args.label or "moonsched.io/gang"
    size_label = args.size_label or "moonsched.io/gang-size"
    default_size = args.size
    timeout = args.timeout or 30
    if type(timeout) ~= "number" or timeout <= 0 then
        error("gang: args.timeout must be a positive number of seconds", 0)
    end
end

local function gang_of(pod)
    local name = pod.labels[label]
    if name == nil then return nil end
    local size = tonumber(pod.labels[size_label] or "") or default_size
    if size == nil or size <= 1 then return nil end
    return pod.namespace .. "/" .. name, size
end

local function count(set)
    local n = 0
    for _ in pairs(set) do n = n + 1 end
    return n
end

function p.permit(pod)
    local gang, size = gang_of(pod)
    if gang == nil then return "allow" end
    local members = waiting[gang] or {}
    if count(members) + 1 >= size then
        waiting[gang] = nil
        for uid in pairs(members) do sched.permit.allow(uid) end
        sched.log.info("gang complete", { gang = gang, size = size })
        return "allow"
    end
    members[pod.uid] = true
    waiting[gang] = members
    return "wait", timeout
end

-- A member gave up its node while waiting (timed out, rejected, deleted):
-- the rest of the gang cannot complete, release their nodes too.
function p.unreserve(pod)
    local gang, size = gang_of(pod)
    if gang == nil then return end
    local members = waiting[gang]
    if members == nil or not members[pod.uid] then return end
    members[pod.uid] = nil
    waiting[gang] = nil
    local reason = ("gang %s incomplete: %d of %d members had a node"):format(gang, count(members) + 1, size)
    for uid in pairs(members) do sched.permit.deny(uid, reason) end
end

return p
