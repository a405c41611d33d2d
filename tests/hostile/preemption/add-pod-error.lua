-- Raises an error in add_pod (preemption's dry runs).
-- expect: broken on purpose
local p = { name = "add-pod-error" }
function p.pre_filter() return true end
function p.filter() return true end
function p.remove_pod() end
function p.add_pod() error("broken on purpose", 0) end
return p
