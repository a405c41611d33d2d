-- A plain find that the naive search does in quadratic time: a 16 MiB text
-- of "a" and a 4 MiB needle "aaa...ab".
-- expect: stopped after its CPU budget
local p = { name = "plain-find" }
function p.filter(_, _)
    local s = string.rep("a", 2 ^ 24)
    local q = string.rep("a", 2 ^ 22) .. "b"
    while true do
        if s:find(q, 1, true) then return false end
    end
end
return p
