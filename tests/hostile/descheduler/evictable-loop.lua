-- Never returns from evictable (the descheduler).
-- expect: stopped after its CPU budget
local p = { name = "evictable-loop" }
function p.evictable(_)
    while true do end
end
return p
