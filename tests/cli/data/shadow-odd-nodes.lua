-- Shadow test policy: only nodes whose name ends in an odd number.
local p = { name = "odd-nodes" }
function p.filter(pod, node, state)
  local n = tonumber(node.name:match("(%d+)$")) or 0
  return n % 2 == 1, "even node"
end
return p
