-- luacheck configuration for the Lua runtime, policies and specs.
std = "luajit"
max_line_length = 110
files["tests/lua"] = { std = "+busted", max_line_length = 130 }
files["tests/bench"] = { std = "+busted" }
-- Policies run in the sandbox: these are its globals (lua/moonsched/sandbox.lua).
files["policies"] = { std = "luajit", globals = { "sched" } }
files["tests/lua/policies"] = { std = "luajit", read_globals = { "sched" } }
-- Specs of the shipped policies drive them through the runtime from busted.
files["policies/*_spec.lua"] = { std = "+busted", max_line_length = 130 }
