-- Unbounded recursion in Lua, then through C (gsub calling itself from its
-- replacement function).
-- expect: C stack overflow
local p = { name = "recursion" }
local function deep(n) return 1 + deep(n + 1) end
local function through_c(s)
    return (s:gsub(".", through_c))
end
function p.filter(_, _)
    local ok, err = pcall(deep, 1)
    if ok or not tostring(err):find("stack overflow", 1, true) then error("deep: " .. tostring(err)) end
    return through_c("ab") ~= nil
end
return p
