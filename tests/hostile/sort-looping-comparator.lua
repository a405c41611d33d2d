-- table.sort with a comparator that never returns.
-- expect: stopped after its CPU budget
local p = { name = "sort-looping-comparator" }
function p.filter(_, node)
    local t = { node.name, "b", "a", "c" }
    table.sort(t, function(_, _) while true do end end)
    return true
end
return p
