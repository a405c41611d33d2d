-- Tries to load bytecode: "\27LJ" and "\27Lua" chunks through load and
-- loadstring, from a string and from a reader that hands the header in
-- pieces, and string.dump, also through the string metatable.
-- expect: bytecode: 0 of 7 loaded
local p = { name = "bytecode" }
function p.filter(_, _)
    local lj = "\27LJ\2\0\0"
    local function reader(pieces)
        local i = 0
        return function() i = i + 1; return pieces[i] end
    end
    local tries = {
        function() return load(lj) end,
        function() return loadstring(lj) end,
        function() return load("\27Lua\81\0") end,
        function() return load(reader({ "\27", "LJ\2\0\0" })) end,
        function() return load(reader({ " ", "\27LJ\2\0\0" })) end,
        function() return ("").dump(function() end) end,
        function() return string.dump(function() end) end,
    }
    local loaded = 0
    for _, t in ipairs(tries) do
        local ok, v = pcall(t)
        if ok and v ~= nil then loaded = loaded + 1 end
    end
    error(("bytecode: %d of %d loaded"):format(loaded, #tries), 0)
end
return p
