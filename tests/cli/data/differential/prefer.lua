-- Twin of NodeAffinity's Score for preferred terms of one label each:
-- annotation diff/prefer "key=value:weight,...", normalised as upstream's
-- DefaultNormalizeScore (100 * score / max, rounded down).
local p = { name = "twin-prefer" }

function p.pre_filter(pod, state)
    local terms = {}
    for k, v, w in (pod.annotations["diff/prefer"] or ""):gmatch("([^=,]+)=([^:]+):(%d+)") do
        terms[#terms + 1] = { key = k, value = v, weight = tonumber(w) }
    end
    state.terms = terms
end

function p.score(_, node, state)
    local s = 0
    for _, t in ipairs(state.terms) do
        if node.labels[t.key] == t.value then s = s + t.weight end
    end
    return s
end

function p.normalize(_, scores, _, _)
    local max = 0
    for i = 1, #scores do
        if scores[i] > max then max = scores[i] end
    end
    for i = 1, #scores do
        scores[i] = max == 0 and 0 or math.floor(100 * scores[i] / max)
    end
end

return p
