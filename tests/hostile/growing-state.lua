-- State that grows across calls: a module-level table keeps 4 MiB more at
-- every call, until the memory cap.
-- expect: exceeded its memory cap|stopped after its CPU budget
local p = { name = "growing-state" }
local kept = {}
function p.pre_filter(pod)
    kept[#kept + 1] = string.rep(pod.name, 2 ^ 22 / #pod.name) .. #kept
    return true
end
return p
