-- Raises an error in deschedule (the descheduler).
-- expect: broken on purpose
local p = { name = "deschedule-error" }
function p.deschedule(_) error("broken on purpose", 0) end
return p
