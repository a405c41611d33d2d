-- Library calls with huge counts and widths: each must be refused at
-- once, not attempted.
-- expect: limits: 0 of 6 went through
local p = { name = "limits" }
function p.filter(_, _)
    local tries = {
        function() return string.format("%99999d", 1) end,
        function() return string.format("%.99999f", 1) end,
        function() return unpack({}, 1, 1e8) end,
        function() return string.byte(string.rep("x", 2 ^ 20), 1, -1) end,
        function() return select(2 ^ 31, 1) end,
        function() return string.char(unpack({}, 1, 1e6)) end,
    }
    local through = 0
    for _, t in ipairs(tries) do
        if pcall(t) then through = through + 1 end
    end
    error(("limits: %d of %d went through"):format(through, #tries), 0)
end
return p
