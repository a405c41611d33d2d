-- Never returns from remove_pod (called in preemption's dry runs, for a policy
-- with pre_filter); add_pod and filter are well behaved.
-- expect: stopped after its CPU budget
local p = { name = "remove-pod-loop" }
function p.pre_filter() return true end
function p.filter() return true end
function p.add_pod() end
function p.remove_pod()
    while true do end
end
return p
