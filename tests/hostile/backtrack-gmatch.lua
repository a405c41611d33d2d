-- A backtracking pattern through string.gmatch in PreFilter.
-- expect: stopped after its CPU budget
local p = { name = "backtrack-gmatch" }
function p.pre_filter(_)
    local s = string.rep("x", 30)
    local n = 0
    for _ in s:gmatch(string.rep("x*", 30) .. "y") do n = n + 1 end
    return n == 0
end
return p
