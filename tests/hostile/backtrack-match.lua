-- A backtracking pattern through string.match in Score, on the node's name.
-- expect: stopped after its CPU budget
local p = { name = "backtrack-match" }
function p.score(_, node)
    local s = string.rep(node.name, 8)
    local m = s:match(string.rep("[%w]-", 30) .. "!")
    return m and 1 or 0
end
return p
