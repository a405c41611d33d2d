-- table.sort with a comparator that is inconsistent (always true: sort
-- runs off the array) and then one that raises.
-- expect: invalid order function for sorting
local p = { name = "sort-erroring-comparator" }
function p.filter(_, _)
    local t = {}
    for i = 1, 100 do t[i] = i end
    local ok, err = pcall(table.sort, t, function() return true end)
    if ok then return true end
    table.sort({ 3, 2, 1 }, function() error(err, 0) end)
    return true
end
return p
