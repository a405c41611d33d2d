-- Looks for a way out of the sandbox: the globals that reach the process,
-- the file system, the FFI or other states. Every attempt must fail.
-- expect: escape: 0 of 19 ways out
local p = { name = "escape" }
function p.filter(_, _)
    local ways = {
        function() return getfenv(0) end,
        function() return setfenv(1, {}) end,
        function() return debug.getregistry() end,
        function() return io.open("/etc/hostname") end,
        function() return os.execute("true") end,
        function() return os.getenv("HOME") end,
        function() return require("ffi") end,
        function() return package.loaded end,
        function() return ffi.C end,
        function() return jit.off() end,
        function() return collectgarbage("count") end,
        function() return coroutine.create(print) end,
        function() return newproxy(true) end,
        function() return rawset(string, "x", 1) end,
        function() return _G end,
        function() return module("x") end,
        function() return load("return getfenv")() end,
        function() return load("return io")() end,
        function() return dofile("/etc/hostname") end,
    }
    local out = 0
    for _, w in ipairs(ways) do
        local ok, v = pcall(w)
        if ok and v ~= nil then out = out + 1 end
    end
    error(("escape: %d of %d ways out"):format(out, #ways), 0)
end
return p
