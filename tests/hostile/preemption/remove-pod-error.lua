-- Raises an error in remove_pod (preemption's dry runs).
-- expect: broken on purpose
local p = { name = "remove-pod-error" }
function p.pre_filter() return true end
function p.filter() return true end
function p.add_pod() end
function p.remove_pod() error("broken on purpose", 0) end
return p
