-- Never returns from add_pod (called in preemption's dry runs, for a policy
-- with pre_filter); remove_pod and filter are well behaved.
-- expect: stopped after its CPU budget
local p = { name = "add-pod-loop" }
function p.pre_filter() return true end
function p.filter() return true end
function p.remove_pod() end
function p.add_pod()
    while true do end
end
return p
