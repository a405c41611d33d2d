-- Never returns from deschedule (the descheduler).
-- expect: stopped after its CPU budget
local p = { name = "deschedule-loop" }
function p.deschedule(_)
    while true do end
end
return p
