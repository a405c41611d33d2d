-- Raises an error in evictable (the descheduler).
-- expect: broken on purpose
local p = { name = "evictable-error" }
function p.evictable(_) error("broken on purpose", 0) end
return p
