-- Catches the budget's error with pcall around the matcher and goes on,
-- hoping to outlive the budget; xpcall and coroutines are not there to
-- help (each attempt is checked).
-- expect: stopped after its CPU budget
local p = { name = "swallow-kill" }
function p.filter(_, _)
    local s, pat = string.rep("a", 40), string.rep("a?", 40) .. string.rep("a", 40)
    local helpers = {
        function() return xpcall end,
        function() return coroutine.wrap end,
        function() return debug.sethook end,
    }
    for i, get in ipairs(helpers) do
        if pcall(get) then error("helper " .. i .. " is reachable") end
    end
    while true do
        pcall(string.find, s, pat)
        pcall(error, "again")
    end
end
return p
