-- Allocates without end in evictable (the descheduler): 1 MiB strings kept
-- in a table, until the memory cap (or the CPU budget, whichever comes
-- first on this machine).
-- expect: exceeded its memory cap|stopped after its CPU budget
local p = { name = "evictable-alloc" }
function p.evictable(_)
    local kept = {}
    while true do
        kept[#kept + 1] = string.rep("x", 2 ^ 20) .. #kept
    end
end
return p
