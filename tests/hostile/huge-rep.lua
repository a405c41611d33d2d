-- string.rep up to the largest string LuaJIT makes (2 GiB), then in
-- pieces just under the cap.
-- expect: exceeded its memory cap|stopped after its CPU budget
local p = { name = "huge-rep" }
function p.filter(_, _)
    local ok = pcall(string.rep, "x", 2 ^ 31 - 1)
    if ok then error("a 2 GiB string was made") end
    local keep = {}
    for i = 1, 1e6 do keep[i] = string.rep("y", 2 ^ 22) .. i end
    return #keep > 0
end
return p
