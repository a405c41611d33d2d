-- The globals of the policy sandbox (lua/moonsched/sandbox.lua; the list
-- in docs/policies.md, "Sandbox") as a luacheck standard: a policy that
-- passes luacheck with it reads no global the sandbox lacks (`assert`,
-- `print`, `io`, `require`...). tests/lua/luacheck_std_spec.lua checks it
-- against the sandbox itself.
return {
    read_globals = {
        string = { fields = { "byte", "char", "find", "format", "gmatch", "gsub", "len", "lower",
                              "match", "rep", "reverse", "sub", "upper" } },
        table = { fields = { "concat", "foreach", "foreachi", "getn", "insert", "maxn", "move", "remove",
                             "sort" } },
        math = { fields = { "abs", "acos", "asin", "atan", "atan2", "ceil", "cos", "cosh", "deg",
                            "exp", "floor", "fmod", "frexp", "huge", "ldexp", "log", "log10", "max",
                            "min", "modf", "pi", "pow", "rad", "random", "randomseed", "sin",
                            "sinh", "sqrt", "tan", "tanh" } },
        bit = { fields = { "arshift", "band", "bnot", "bor", "bswap", "bxor", "lshift", "rol", "ror",
                           "rshift", "tobit", "tohex" } },
        os = { fields = { "clock", "time" } },
        "sched", "error", "pcall", "type", "tostring", "tonumber", "select", "next", "pairs", "ipairs",
        "unpack", "setmetatable", "getmetatable", "load", "loadstring",
    },
}
