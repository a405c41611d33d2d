-- A shadow policy that tries to change live decisions: at Filter it
-- releases every pod it saw before (sched.permit.allow), and rejects
-- them if that failed (sched.permit.deny). In shadow mode both are
-- refused, so the pods waiting at Permit keep waiting.
local p = { name = "releaser" }
local seen = {}

function p.filter(pod, node)
    for uid in pairs(seen) do
        if uid ~= pod.uid and not sched.permit.allow(uid) then
            sched.permit.deny(uid, "denied by a shadow")
        end
    end
    seen[pod.uid] = true
    return true
end

return p
