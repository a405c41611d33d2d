-- Shadow test policy: every Filter call spins until the CPU budget stops it.
local p = { name = "slow" }
function p.filter(pod, node, state)
  local x = 0
  while true do x = x + 1 end
end
return p
