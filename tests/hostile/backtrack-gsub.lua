-- A backtracking pattern through string.gsub, with a function replacement
-- that is never reached.
-- expect: stopped after its CPU budget
local p = { name = "backtrack-gsub" }
function p.filter(pod, _)
    local s = string.rep(pod.name:sub(1, 1), 40)
    local out = s:gsub(string.rep("v?", 40) .. string.rep("v", 40), function(x) return x end)
    return out ~= nil
end
return p
