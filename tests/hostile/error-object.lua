-- Raises a table whose __tostring never returns, hoping the scheduler
-- formats it outside the budget.
-- expect: error object is a table value
local p = { name = "error-object" }
function p.filter(_, _)
    error(setmetatable({}, { __tostring = function() while true do end end }))
end
return p
