-- Allocates without end in add_pod (preemption's dry runs): 1 MiB strings
-- kept in a table, until the memory cap (or the CPU budget, whichever
-- comes first on this machine).
-- expect: exceeded its memory cap|stopped after its CPU budget
local p = { name = "add-pod-alloc" }
function p.pre_filter() return true end
function p.filter() return true end
function p.remove_pod() end
function p.add_pod(_, other)
    local kept = {}
    while true do
        kept[#kept + 1] = string.rep(other.name, 2 ^ 20 / #other.name) .. #kept
    end
end
return p
