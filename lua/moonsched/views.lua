-- Read-only views over the C-owned pods and nodes, as FFI cdata with
-- metatypes. A view is an address and the epoch of the call that made it:
-- every read checks the epoch first, so a view kept past its call raises an
-- error instead of reading memory the scheduler may have freed. Nothing is
-- copied per node: reads go straight to the C structs, and the JIT sinks
-- the short-lived view objects made inside a policy's loop.
--
-- The struct layouts (ms_pod, ms_node_info, ...) and the enums read here
-- (MS_* constants of ffi.C) are declared by the C side from its own
-- offsets and values (core/policy/lua_abi.c); only fields read here appear.

local ffi = require("ffi")

local M = {}

ffi.cdef([[
typedef struct ms_pod_view { const uint64_t __p; const double __e; } ms_pod_view;
typedef struct ms_node_view { const uint64_t __p; const double __e; } ms_node_view;
typedef struct ms_labels_view { const uint64_t __p; const double __e; } ms_labels_view;
typedef struct ms_annotations_view { const uint64_t __p; const double __e; } ms_annotations_view;
typedef struct ms_res_view { const uint64_t __p; const double __e; } ms_res_view;
typedef struct ms_free_view { const uint64_t __p; const double __e; } ms_free_view;
typedef struct ms_scores_view { const uint64_t __p; const double __e; const uint32_t n; } ms_scores_view;
typedef struct ms_nodes_view { const uint64_t __p; const double __e; const uint32_t n; } ms_nodes_view;
]])

local U64 = ffi.typeof("uint64_t")
local PodP = ffi.typeof("const ms_pod *")
local NodeInfoP = ffi.typeof("const ms_node_info *")
local LabelsP = ffi.typeof("const ms_labels *")
local AnnotationsP = ffi.typeof("const ms_annotations *")
local ResP = ffi.typeof("const ms_resources *")
local DoubleP = ffi.typeof("double *")
local U64P = ffi.typeof("const uint64_t *")

local offsetof = ffi.offsetof
local META = offsetof("ms_pod", "meta")
local OFF = {
    pod_labels = META + offsetof("ms_object_meta", "labels"),
    pod_annotations = META + offsetof("ms_object_meta", "annotations"),
    pod_requests = offsetof("ms_pod", "requests"),
    pod_limits = offsetof("ms_pod", "limits"),
    node_labels = offsetof("ms_node", "meta") + offsetof("ms_object_meta", "labels"),
    node_annotations = offsetof("ms_node", "meta") + offsetof("ms_object_meta", "annotations"),
    node_allocatable = offsetof("ms_node", "allocatable"),
    ni_requested = offsetof("ms_node_info", "requested"),
}

local C = ffi.C
local QOS = {
    [C.MS_QOS_BEST_EFFORT] = "BestEffort", [C.MS_QOS_BURSTABLE] = "Burstable",
    [C.MS_QOS_GUARANTEED] = "Guaranteed",
}
local EFFECT = {
    [C.MS_EFFECT_NONE] = "", [C.MS_EFFECT_NO_SCHEDULE] = "NoSchedule",
    [C.MS_EFFECT_PREFER_NO_SCHEDULE] = "PreferNoSchedule", [C.MS_EFFECT_NO_EXECUTE] = "NoExecute",
}
local PROTOCOL = { [C.MS_PROTO_TCP] = "TCP", [C.MS_PROTO_UDP] = "UDP", [C.MS_PROTO_SCTP] = "SCTP" }
local TOL_EXISTS = C.MS_TOL_EXISTS
local BUILTIN = {
    cpu = C.MS_RES_CPU, memory = C.MS_RES_MEMORY, ["ephemeral-storage"] = C.MS_RES_EPHEMERAL,
    pods = C.MS_RES_PODS,
}
local NBUILTIN = C.MS_RES_NBUILTIN
local BUILTIN_NAMES = {}
for name, i in pairs(BUILTIN) do BUILTIN_NAMES[i] = name end

local tonumber, type, error, tostring = tonumber, type, error, tostring
local cast, istype, fstring = ffi.cast, ffi.istype, ffi.string
local band, rshift, arshift = bit.band, bit.rshift, bit.arshift

--- Builds the views of one state around its call frame F.
function M.setup(F)
    local api, S = F.api, F.state
    local V = {}

    -- Empty structs stand in for a NodeInfo whose node is missing.
    local empty = ffi.new("ms_node")
    local EMPTY_NODE = cast(U64, cast("const ms_node *", empty))

    local function stale(what)
        error(what .. " view used after the call that received it", 3)
    end

    -- Interned strings by id, and ids by text: the text of an id never
    -- changes, and a text once interned keeps its id. Pod names are the
    -- exception (released with their pods, their ids reused): they are
    -- read through pod_name, never remembered.
    local strs, ids, nids = {}, {}, 0
    local function str(id)
        local s = strs[id]
        if s == nil then
            s = fstring(api.str(S, id))
            strs[id] = s
        end
        return s
    end
    local function pod_name(p) return fstring(api.str(S, p.meta.name)) end
    -- A text the interner does not know is no key of the call's pods and
    -- nodes (they were decoded before the call began): it is remembered as
    -- absent for the rest of the call, so that a policy testing for a label
    -- that no node has does not ask the C side on every node. `ncall`
    -- counts calls (V.next_call) and, unlike the epoch, never wraps.
    local absent, nabsent, ncall = {}, 0, 0
    function V.next_call() ncall = ncall + 1 end
    local function id_of(k)
        local id = ids[k]
        if id ~= nil then return id end
        if absent[k] == ncall then return 0 end
        id = api.find(S, k, #k)
        if id ~= 0 then
            if nids < 65536 then
                ids[k] = id
                nids = nids + 1
            end
        elseif nabsent < 4096 then
            if absent[k] == nil then nabsent = nabsent + 1 end
            absent[k] = ncall
        end
        return id
    end
    V.str, V.id_of = str, id_of

    -- Label and annotation lookups run in Lua, so that they compile into
    -- the policy's trace: a call to C there would keep the JIT from sinking
    -- the node view made per node (each read would allocate it).
    --
    -- Nodes of a cluster mostly carry the same label keys, hence the same
    -- sorted key ids at the same positions: `at[k]` is where key k was last
    -- found (one table for labels, one for annotations), tried first.
    -- Otherwise a binary search without branches (six halvings cover 64
    -- items; past that, the C side). It returns the last position whose
    -- key is <= id (position 0 when none is).
    local function search(items, n, id)
        local base, len = 0, n
        local half = rshift(len, 1)
        base = base + band(half, arshift(items[base + half].key - id - 1, 31))
        len = len - half
        half = rshift(len, 1)
        base = base + band(half, arshift(items[base + half].key - id - 1, 31))
        len = len - half
        half = rshift(len, 1)
        base = base + band(half, arshift(items[base + half].key - id - 1, 31))
        len = len - half
        half = rshift(len, 1)
        base = base + band(half, arshift(items[base + half].key - id - 1, 31))
        len = len - half
        half = rshift(len, 1)
        base = base + band(half, arshift(items[base + half].key - id - 1, 31))
        len = len - half
        half = rshift(len, 1)
        return base + band(half, arshift(items[base + half].key - id - 1, 31))
    end
    --- The position of key k (a string, interned as id) among n > 0
    --- sorted items: -1 when absent, -2 when n is too large to search here.
    local function position(at, items, n, k, id)
        local i = at[k]
        if i ~= nil and i < n and items[i].key == id then return i end
        if n > 64 then return -2 end
        i = search(items, n, id)
        if items[i].key ~= id then return -1 end
        -- Only for keys id_of keeps: as many as those at most.
        if ids[k] ~= nil then at[k] = i end
        return i
    end
    local label_at, annotation_at = {}, {}

    local function res_get(r, name)
        local i = BUILTIN[name]
        if i ~= nil then return tonumber(r.v[i]) end
        if type(name) ~= "string" then
            error("a resource name is a string, not " .. type(name), 3)
        end
        local id = id_of(name)
        if id == 0 then return 0 end
        local sc = r.scalar
        for j = 0, r.nscalar - 1 do
            if sc[j].name == id then return tonumber(sc[j].value) end
        end
        return 0
    end

    local function readonly()
        error("views are read-only", 2)
    end

    -- Iterator states are plain tables the policy can reach (`local f, st
    -- = pairs(node.labels)`) and write to: they hold the view, never a
    -- pointer, and each step checks the view's type and the index's range.
    local function tampered(what)
        error(what .. " iterator state was tampered with", 3)
    end

    local PodView, NodeView

    local LabelsView = ffi.metatype("ms_labels_view", {
        __index = function(v, k)
            if v.__e ~= F.epoch then stale("labels") end
            if type(k) ~= "string" then return nil end
            local id = id_of(k)
            if id == 0 then return nil end
            local l = cast(LabelsP, v.__p)
            local n = l.n
            if n == 0 then return nil end
            local items = l.items
            local i = position(label_at, items, n, k, id)
            if i >= 0 then return str(items[i].value) end
            if i == -1 then return nil end
            local val = api.label(l, id)
            if val == 0 then return nil end
            return str(val)
        end,
        __newindex = readonly,
        __len = function(v)
            if v.__e ~= F.epoch then stale("labels") end
            return cast(LabelsP, v.__p).n
        end,
        __tostring = function() return "labels" end,
    })

    local AnnotationsView = ffi.metatype("ms_annotations_view", {
        __index = function(v, k)
            if v.__e ~= F.epoch then stale("annotations") end
            if type(k) ~= "string" then return nil end
            local id = id_of(k)
            if id == 0 then return nil end
            local a = cast(AnnotationsP, v.__p)
            local n = a.n
            if n == 0 then return nil end
            local items = a.items
            local i = position(annotation_at, items, n, k, id)
            if i >= 0 then return fstring(items[i].value) end
            if i == -1 then return nil end
            local val = api.annotation(a, id)
            if val == nil then return nil end
            return fstring(val)
        end,
        __newindex = readonly,
        __len = function(v)
            if v.__e ~= F.epoch then stale("annotations") end
            return cast(AnnotationsP, v.__p).n
        end,
        __tostring = function() return "annotations" end,
    })

    local ResView = ffi.metatype("ms_res_view", {
        __index = function(v, k)
            if v.__e ~= F.epoch then stale("resources") end
            return res_get(cast(ResP, v.__p), k)
        end,
        __newindex = readonly,
        __tostring = function() return "resources" end,
    })

    -- node.free(r) and node:free(r) both work: the view is callable.
    local FreeView = ffi.metatype("ms_free_view", {
        __call = function(fv, a, b)
            if fv.__e ~= F.epoch then stale("node") end
            local name = a
            if istype(NodeView, a) then name = b end
            local ni = cast(NodeInfoP, fv.__p)
            local node = ni.node
            if node == nil then return 0 end
            return res_get(node.allocatable, name) - res_get(ni.requested, name)
        end,
        __newindex = readonly,
    })

    local function labels_table(l)
        local t = {}
        local items = l.items
        for i = 0, l.n - 1 do
            t[str(items[i].key)] = str(items[i].value)
        end
        return t
    end

    local function owner(p)
        local o = api.controller(p.meta)
        if o == nil and p.meta.nowners > 0 then o = p.meta.owners end
        return o
    end

    local function opt_str(id)
        if id ~= 0 then return str(id) end
        return nil
    end

    local pod_get = {
        name = pod_name,
        namespace = function(p) return str(p.meta.namespace_) end,
        -- A pod without metadata.uid (simulate's files may omit it) is
        -- known by namespace/name, as the core keys it.
        uid = function(p)
            local u = p.meta.uid
            if u ~= nil and u[0] ~= 0 then return fstring(u) end
            return str(p.meta.namespace_) .. "/" .. pod_name(p)
        end,
        priority = function(p) return p.priority end,
        scheduler_name = function(p) return str(p.scheduler_name) end,
        node_name = function(p) return opt_str(p.node_name) end,
        nominated_node_name = function(p) return opt_str(p.nominated_node_name) end,
        qos = function(p) return QOS[p.qos] end,
        owner_kind = function(p)
            local o = owner(p)
            if o ~= nil then return str(o.kind) end
            return nil
        end,
        owner_name = function(p)
            local o = owner(p)
            if o ~= nil then return str(o.name) end
            return nil
        end,
        created = function(p) return p.meta.creation end,
        labels = function(_, v) return LabelsView(v.__p + OFF.pod_labels, v.__e) end,
        annotations = function(_, v) return AnnotationsView(v.__p + OFF.pod_annotations, v.__e) end,
        requests = function(_, v) return ResView(v.__p + OFF.pod_requests, v.__e) end,
        limits = function(_, v) return ResView(v.__p + OFF.pod_limits, v.__e) end,
        tolerations = function(p)
            local t = {}
            local tol = p.tolerations
            for i = 0, p.ntolerations - 1 do
                local x = tol[i]
                t[i + 1] = {
                    key = str(x.key),
                    operator = x.op == TOL_EXISTS and "Exists" or "Equal",
                    value = str(x.value),
                    effect = EFFECT[x.effect] or "",
                    tolerationSeconds = x.has_seconds and tonumber(x.toleration_seconds) or nil,
                }
            end
            return t
        end,
        node_selector = function(p) return labels_table(p.node_selector) end,
        ports = function(p)
            local t = {}
            local hp = p.host_ports
            for i = 0, p.nhost_ports - 1 do
                local x = hp[i]
                t[i + 1] = {
                    hostPort = x.port,
                    hostIP = str(x.host_ip),
                    protocol = PROTOCOL[x.protocol] or "TCP",
                }
            end
            return t
        end,
    }

    PodView = ffi.metatype("ms_pod_view", {
        __index = function(v, k)
            if v.__e ~= F.epoch then stale("pod") end
            local g = pod_get[k]
            if g == nil then error("pod has no field '" .. tostring(k) .. "'", 2) end
            return g(cast(PodP, v.__p), v)
        end,
        __newindex = readonly,
        __eq = function(a, b)
            return istype(PodView, a) and istype(PodView, b) and a.__p == b.__p
        end,
        __tostring = function(v)
            if v.__e ~= F.epoch then return "pod (stale view)" end
            local p = cast(PodP, v.__p)
            return "pod " .. str(p.meta.namespace_) .. "/" .. pod_name(p)
        end,
    })

    local function node_addr(ni)
        local node = ni.node
        if node == nil then return EMPTY_NODE end
        return cast(U64, node)
    end

    -- Iterators keep their position in a small table, not in a closure:
    -- making a closure is not compiled by the JIT, and these run per node.
    local function pods_next(st)
        local v = st.v
        if not istype(NodeView, v) then tampered("node:pods()") end
        if v.__e ~= F.epoch then stale("node") end
        local ni = cast(NodeInfoP, v.__p)
        local i = st.i + 1
        if i >= 0 and i < ni.npods then
            st.i = i
            return PodView(ni.pods[i], v.__e)
        end
        return nil
    end

    -- node:pods(): the pods on the node (bound and assumed).
    local function node_pods(v)
        if not istype(NodeView, v) then error("use node:pods()", 2) end
        if v.__e ~= F.epoch then stale("node") end
        return pods_next, { v = v, i = -1 }, nil
    end

    local node_get = {
        name = function(ni) return str(ni.name) end,
        unschedulable = function(ni)
            local node = ni.node
            return node ~= nil and node.unschedulable
        end,
        labels = function(ni, v) return LabelsView(node_addr(ni) + OFF.node_labels, v.__e) end,
        annotations = function(ni, v)
            return AnnotationsView(node_addr(ni) + OFF.node_annotations, v.__e)
        end,
        taints = function(ni)
            local t = {}
            local node = ni.node
            if node == nil then return t end
            local ts = node.taints
            for i = 0, node.ntaints - 1 do
                local x = ts[i]
                t[i + 1] = { key = str(x.key), value = str(x.value), effect = EFFECT[x.effect] or "" }
            end
            return t
        end,
        allocatable = function(ni, v) return ResView(node_addr(ni) + OFF.node_allocatable, v.__e) end,
        requested = function(_, v) return ResView(v.__p + OFF.ni_requested, v.__e) end,
        free = function(_, v) return FreeView(v.__p, v.__e) end,
        pod_count = function(ni) return ni.npods end,
        pods = function() return node_pods end,
    }

    NodeView = ffi.metatype("ms_node_view", {
        __index = function(v, k)
            if v.__e ~= F.epoch then stale("node") end
            local g = node_get[k]
            if g == nil then error("node has no field '" .. tostring(k) .. "'", 2) end
            return g(cast(NodeInfoP, v.__p), v)
        end,
        __newindex = readonly,
        __eq = function(a, b)
            return istype(NodeView, a) and istype(NodeView, b) and a.__p == b.__p
        end,
        __tostring = function(v)
            if v.__e ~= F.epoch then return "node (stale view)" end
            return "node " .. str(cast(NodeInfoP, v.__p).name)
        end,
    })

    -- normalize(pod, scores, nodes, state): scores[i] read and written,
    -- nodes[i] read, 1-based, #scores == #nodes.
    local function index_of(v, i)
        if v.__e ~= F.epoch then stale("scores") end
        if type(i) ~= "number" or i < 1 or i > v.n or i % 1 ~= 0 then
            error("index " .. tostring(i) .. " out of range 1.." .. v.n, 3)
        end
        return i - 1
    end
    local ScoresView = ffi.metatype("ms_scores_view", {
        __index = function(v, i) return cast(DoubleP, v.__p)[index_of(v, i)] end,
        __newindex = function(v, i, x)
            local j = index_of(v, i)
            if type(x) ~= "number" then error("a score is a number, not " .. type(x), 2) end
            cast(DoubleP, v.__p)[j] = x
        end,
        __len = function(v) return v.n end,
    })
    local NodesView = ffi.metatype("ms_nodes_view", {
        __index = function(v, i) return NodeView(cast(U64P, v.__p)[index_of(v, i)], v.__e) end,
        __newindex = readonly,
        __len = function(v) return v.n end,
    })

    local function labels_next(st)
        local v = st.v
        if not istype(LabelsView, v) then tampered("labels") end
        if v.__e ~= F.epoch then stale("labels") end
        local l = cast(LabelsP, v.__p)
        local i = st.i + 1
        if i >= 0 and i < l.n then
            st.i = i
            return str(l.items[i].key), str(l.items[i].value)
        end
        return nil
    end
    local function annotations_next(st)
        local v = st.v
        if not istype(AnnotationsView, v) then tampered("annotations") end
        if v.__e ~= F.epoch then stale("annotations") end
        local a = cast(AnnotationsP, v.__p)
        local i = st.i + 1
        if i >= 0 and i < a.n then
            st.i = i
            return str(a.items[i].key), fstring(a.items[i].value)
        end
        return nil
    end
    -- Resources: the built-in ones that are not 0, then the extended ones.
    local function res_next(st)
        local v = st.v
        if not istype(ResView, v) then tampered("resources") end
        if v.__e ~= F.epoch then stale("resources") end
        local r = cast(ResP, v.__p)
        local i = st.i + 1
        if i < 0 then return nil end
        while i < NBUILTIN do
            local x = r.v[i]
            if x ~= 0 then
                st.i = i
                return BUILTIN_NAMES[i], tonumber(x)
            end
            i = i + 1
        end
        local j = i - NBUILTIN
        if j < r.nscalar then
            st.i = i
            local sc = r.scalar[j]
            return str(sc.name), tonumber(sc.value)
        end
        return nil
    end
    local function seq_next(t, i)
        i = i + 1
        if i <= t.n then return i, t[i] end
        return nil
    end

    --- pairs() over a labels, annotations or resources view: iterator,
    --- state, control; nil for anything else.
    function V.pairs_of(t)
        if istype(ResView, t) then
            if t.__e ~= F.epoch then stale("resources") end
            return res_next, { v = t, i = -1 }, nil
        elseif istype(LabelsView, t) then
            if t.__e ~= F.epoch then stale("labels") end
            return labels_next, { v = t, i = -1 }, nil
        elseif istype(AnnotationsView, t) then
            if t.__e ~= F.epoch then stale("annotations") end
            return annotations_next, { v = t, i = -1 }, nil
        end
        return nil
    end

    --- ipairs() over the scores or nodes of normalize; nil for anything else.
    function V.ipairs_of(t)
        if istype(ScoresView, t) or istype(NodesView, t) then
            return seq_next, t, 0
        end
        return nil
    end

    V.PodView, V.NodeView, V.ScoresView, V.NodesView = PodView, NodeView, ScoresView, NodesView
    V.U64 = U64
    return V
end

return M
