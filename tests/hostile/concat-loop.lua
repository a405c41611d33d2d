-- A string that doubles by concatenation in a loop, and table.concat of
-- the pieces.
-- expect: exceeded its memory cap|stopped after its CPU budget
local p = { name = "concat-loop" }
function p.score(_, _)
    local s, parts = "x", {}
    while true do
        s = s .. s
        parts[#parts + 1] = s
        if #parts > 20 then parts = { table.concat(parts) } end
    end
end
return p
