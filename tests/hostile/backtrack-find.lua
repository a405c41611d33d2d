-- The issue's example: a backtracking pattern through string.find in
-- Filter, 2^40 ways to match inside one C call.
-- expect: stopped after its CPU budget
local p = { name = "backtrack-find" }
function p.filter(_, _)
    local s = string.rep("a", 40)
    return s:find(string.rep("a?", 40) .. string.rep("a", 40)) ~= nil
end
return p
