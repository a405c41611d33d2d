-- Shadow test policy: every Score call fails.
local p = { name = "failing" }
function p.score(pod, node, state)
  error("broken on purpose")
end
return p
