-- Rewrites the state tables of the view iterators (node:pods(),
-- pairs(labels), pairs(annotations), pairs(requests), sched.nodes()) to
-- read outside the objects; before they held raw pointers, this crashed.
-- expect: iterators: 0 of 8 reads got out
local p = { name = "tamper-iterators" }
function p.filter(pod, node)
    local tries = {
        function() local it, st = node:pods(); st.i, st.n = -1e8, 1e9; return it(st) end,
        function() local it, st = node:pods(); st.v = pod; return it(st) end,
        function() local it, st = pairs(node.labels); st.i = -1e8; return it(st) end,
        function() local it, st = pairs(node.labels); st.v = pod.requests; return it(st) end,
        function() local it, st = pairs(node.annotations); st.v = { __p = 8, __e = 0 }; return it(st) end,
        function() local it, st = pairs(pod.requests); st.i = -1e8; return it(st) end,
        function() local it, st = sched.nodes(); st.i = -1e8; return it(st) end,
        function() local it, st = sched.nodes(); st.i = 1e9; return it(st) end,
    }
    local got = 0
    for _, t in ipairs(tries) do
        local ok, v = pcall(t)
        if ok and v ~= nil then got = got + 1 end
    end
    error(("iterators: %d of %d reads got out"):format(got, #tries), 0)
end
return p
