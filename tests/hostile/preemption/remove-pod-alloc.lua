-- Allocates without end in remove_pod (preemption's dry runs): 1 MiB strings
-- kept in a table, until the memory cap (or the CPU budget, whichever
-- comes first on this machine).
-- expect: exceeded its memory cap|stopped after its CPU budget
local p = { name = "remove-pod-alloc" }
function p.pre_filter() return true end
function p.filter() return true end
function p.add_pod() end
function p.remove_pod(_, other)
    local kept = {}
    while true do
        kept[#kept + 1] = string.rep(other.name, 2 ^ 20 / #other.name) .. #kept
    end
end
return p
