-- luacheck configuration for the Lua runtime, policies and specs.
std = "luajit"
max_line_length = 110
files["tests/lua"] = { std = "+busted", max_line_length = 130 }
files["tests/bench"] = { std = "+busted" }
-- Policies run in the sandbox: its globals, as the standard the policy kit
-- ships (lua/kit/luacheck-std.lua, checked against the sandbox itself).
stds.moonsched = dofile("lua/kit/luacheck-std.lua")
files["policies"] = { std = "moonsched" }
files["tests/lua/policies"] = { std = "moonsched" }
files["lua/kit/init/policy.lua"] = { std = "moonsched" }
-- Specs drive policies through the runtime from busted.
files["policies/*_spec.lua"] = { std = "luajit+busted", max_line_length = 130 }
files["lua/kit/init/policy_spec.lua"] = { std = "luajit+busted" }
-- Hostile policies (tests/hostile) run in the sandbox too. Some warnings
-- are what a file tests: escape, bytecode and swallow-kill reach for what
-- the sandbox leaves out (undefined globals and fields: 113, 143), and
-- tamper-shared writes to the sandbox's shared tables (read-only fields:
-- 122); every other warning in them still counts.
files["tests/hostile"] = { std = "moonsched" }
files["tests/hostile/escape.lua"] = { std = "moonsched", ignore = { "113", "143" } }
files["tests/hostile/bytecode.lua"] = { std = "moonsched", ignore = { "143" } }
files["tests/hostile/swallow-kill.lua"] = { std = "moonsched", ignore = { "113" } }
files["tests/hostile/tamper-shared.lua"] = { std = "moonsched", ignore = { "122" } }
