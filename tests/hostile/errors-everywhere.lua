-- Raises an error in every hook a profile calls.
-- expect: broken on purpose
local p = { name = "errors-everywhere" }
local function boom() error("broken on purpose", 0) end
for _, hook in ipairs({ "pre_enqueue", "pre_filter", "filter", "score", "normalize", "reserve",
                        "unreserve", "permit", "select_victims", "pick_preemption" }) do
    p[hook] = boom
end
return p
