-- Shadow test policy: prefers the node whose name ends in the highest number.
local p = { name = "last-node" }
function p.score(pod, node, state)
  return tonumber(node.name:match("(%d+)$")) or 0
end
return p
