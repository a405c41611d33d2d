-- table.sort without a comparator on two million numbers: the whole sort
-- runs in C, and one sort takes longer than the budget.
-- expect: stopped after its CPU budget|exceeded its memory cap
local p = { name = "sort-huge" }
function p.filter(_, _)
    local t = {}
    for i = 1, 2 ^ 21 do t[i] = (i * 7919) % 1000003 end
    table.sort(t)
    return true
end
return p
