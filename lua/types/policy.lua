---@meta
-- LuaLS annotations for moonsched policies (docs/policies.md): point the
-- luacheck: ignore
-- language server at this directory ("workspace.library": ["lua/types"])
-- and annotate a policy table with ---@type moonsched.Policy.
-- Not loaded at run time.

---@alias moonsched.Resources table<string, number> cpu in millicores, memory and ephemeral-storage in bytes, extended resources by name; 0 when absent; pairs() iterates those that are set

---@class moonsched.Toleration
---@field key string "" for an empty key
---@field operator "Equal"|"Exists"
---@field value string
---@field effect ""|"NoSchedule"|"PreferNoSchedule"|"NoExecute"
---@field tolerationSeconds? number

---@class moonsched.Taint
---@field key string
---@field value string
---@field effect "NoSchedule"|"PreferNoSchedule"|"NoExecute"

---@class moonsched.HostPort
---@field hostPort integer
---@field hostIP string
---@field protocol "TCP"|"UDP"|"SCTP"

---A read-only view of a pod, valid only during the call that received it.
---@class moonsched.Pod
---@field name string
---@field namespace string
---@field uid string metadata.uid, or "namespace/name" for a pod without one (what sched.permit takes)
---@field priority integer
---@field scheduler_name string
---@field node_name? string set for bound pods
---@field nominated_node_name? string
---@field qos "Guaranteed"|"Burstable"|"BestEffort"
---@field owner_kind? string
---@field owner_name? string
---@field created number unix seconds
---@field labels table<string, string> pairs() iterates
---@field annotations table<string, string> pairs() iterates
---@field requests moonsched.Resources
---@field limits moonsched.Resources
---@field tolerations moonsched.Toleration[]
---@field node_selector table<string, string>
---@field ports moonsched.HostPort[]

---A read-only view of a node (NodeInfo), valid only during the call that received it.
---@class moonsched.Node
---@field name string
---@field unschedulable boolean
---@field labels table<string, string>
---@field annotations table<string, string>
---@field taints moonsched.Taint[]
---@field allocatable moonsched.Resources
---@field requested moonsched.Resources sum over the pods on the node, assumed ones included
---@field free fun(resource: string): number allocatable minus requested; node.free(r) or node:free(r)
---@field pod_count integer
local Node = {}

---The pods on the node (bound and assumed).
---@return fun(): moonsched.Pod?
function Node:pods() end

---@class moonsched.LabelSelectorRequirement
---@field key string
---@field operator "In"|"NotIn"|"Exists"|"DoesNotExist"
---@field values? string[]

---@class moonsched.LabelSelector
---@field matchLabels? table<string, string>
---@field matchExpressions? moonsched.LabelSelectorRequirement[]

---@class moonsched.PreemptionOption
---@field node moonsched.Node
---@field victims moonsched.Pod[]
---@field pdb_violations integer

---A device of a ResourceSlice, as chosen for one of the pod's claims.
---@class moonsched.Device
---@field claim string the pod's name for the claim (spec.resourceClaims[].name)
---@field request string the claim's request, "req" or "req/sub" (a firstAvailable entry)
---@field driver string
---@field pool string
---@field name string the device's name in its pool
---@field attributes table<string, integer|boolean|string> by qualified name ("gpu.example.com/model"), and by identifier alone for the driver's own domain ("model"); versions as strings
---@field capacity table<string, number> by name as attributes; the quantity's value (bytes for memory)

---One way to allocate every claim of the pod on the node.
---@class moonsched.DeviceOption
---@field devices moonsched.Device[]

---The policy's own table for one pod's scheduling cycle: the hooks of that
---cycle share it, the next cycle (and an Unreserve after a failed bind)
---gets a fresh one.
---@alias moonsched.State table

---A policy: only `name` is required; each hook is optional, and the policy
---takes part only in the extension points whose hooks it defines.
---@class moonsched.Policy
---@field name string
---@field init? fun(args: table) once per load, with the args of the policy's pluginConfig entry (an empty table without)
---@field pre_enqueue? fun(pod: moonsched.Pod): (boolean?, string?) false, reason keeps the pod out of activeQ
---@field less? fun(a: moonsched.Pod, b: moonsched.Pod): boolean true when a goes before b
---@field pre_filter? fun(pod: moonsched.Pod, state: moonsched.State): (boolean|"skip"|nil, string?, boolean?) nil or true goes on; "skip" skips the policy's filter and score; false, reason rejects (a true third value: unresolvable)
---@field filter? fun(pod: moonsched.Pod, node: moonsched.Node, state: moonsched.State): (boolean, string?, boolean?) a false or nil first value rejects; a true third value makes it unresolvable
---@field add_pod? fun(pod: moonsched.Pod, other: moonsched.Pod, node: moonsched.Node, state: moonsched.State) a dry run (preemption, nominated pods) added other to a copy of node: update what pre_filter counted in state (a copy for that dry run); needs pre_filter
---@field remove_pod? fun(pod: moonsched.Pod, other: moonsched.Pod, node: moonsched.Node, state: moonsched.State) a dry run removed other (a victim) from a copy of node; as add_pod
---@field score? fun(pod: moonsched.Pod, node: moonsched.Node, state: moonsched.State): number a finite number; rescaled to 0..100 unless normalize is defined
---@field normalize? fun(pod: moonsched.Pod, scores: number[], nodes: moonsched.Node[], state: moonsched.State) scores[i] writable, each must end in 0..100
---@field reserve? fun(pod: moonsched.Pod, node_name: string, state: moonsched.State): (boolean?, string?)
---@field unreserve? fun(pod: moonsched.Pod, node_name: string, state: moonsched.State)
---@field permit? fun(pod: moonsched.Pod, node_name: string, state: moonsched.State): ("allow"|"deny"|"wait"|boolean|nil, (string|number)?)
---@field select_victims? fun(pod: moonsched.Pod, node: moonsched.Node, candidates: moonsched.Pod[]): moonsched.Pod[]? candidates: lower priority, lowest first; nil: this node cannot help
---@field pick_preemption? fun(pod: moonsched.Pod, options: moonsched.PreemptionOption[]): integer? the chosen option's index; nil: DefaultPreemption's choice
---@field pick_devices? fun(pod: moonsched.Pod, node: moonsched.Node, options: moonsched.DeviceOption[], state: moonsched.State): (integer|number[]|nil) DynamicResources' Reserve, once per pod with claims to allocate that can be allocated in two ways or more on its node: the chosen option's index, or a finite score per option (the highest wins, the first among equals); nil: the allocator's choice (options[1])
---@field deschedule? fun(nodes: moonsched.Node[]): (moonsched.Pod|{pod: moonsched.Pod, reason: string?})[]? descheduling: the pods of those nodes to evict; nil: none
---@field evictable? fun(pod: moonsched.Pod): (boolean?, string?) descheduling: false, reason protects the pod from every strategy of the profile

---@class moonsched.Log
---@field info fun(msg: any, fields?: table)
---@field warn fun(msg: any, fields?: table)
---@field error fun(msg: any, fields?: table)

---Releases pods that a permit hook made wait. Each returns whether the pod
---waits now; the release happens when the current scheduling cycle ends.
---@class moonsched.Permit
---@field allow fun(uid: string): boolean lets a waiting pod go on to binding
---@field deny fun(uid: string, reason?: string): boolean rejects a waiting pod (its Unreserve runs)

---@class moonsched.Sched
---@field nodes fun(): (fun(): moonsched.Node?) every node of the cycle's snapshot
---@field quantity fun(q: string): number, number the value ("500m" -> 0.5) and thousandths (500)
---@field match_labels fun(selector: moonsched.LabelSelector?, labels: table<string, string>?): boolean
---@field log moonsched.Log
---@field now fun(): number monotonic seconds
---@field permit moonsched.Permit

---@type moonsched.Sched
sched = {}
