-- load of a 16 MiB chunk of statements: the parser, in C, would take
-- several budgets.
-- expect: exceeded its memory cap|stopped after its CPU budget
local p = { name = "load-huge" }
function p.filter(_, _)
    local f = load(string.rep("x = 1 ", 2 ^ 22))
    return f ~= nil
end
return p
