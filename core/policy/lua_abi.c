/* The declarations the Lua side of policies is built on, generated from the
 * C headers: layouts from the compiler's offsets and sizes, constants from
 * the C enums. Nothing here is written twice: a field's Lua type is the
 * only text, and where it is a function pointer the compiler checks it
 * against the C member. */
#include "policy/lua_abi.h"

#include <stdio.h>
#include <string.h>

#include "api/dra.h"
#include "moonsched/decode.h"
#include "moonsched/error.h"
#include "moonsched/plugin.h"
#include "moonsched/status.h"

/* ---- layouts ----------------------------------------------------------- */

typedef struct lfield {
    const char *decl;
    size_t off, size;
} lfield;

typedef struct ltype {
    const char *name;
    size_t size, align;
    const lfield *fields;
    size_t nfields;
} ltype;

#define F(T, m, decl) {decl, offsetof(T, m), sizeof(((T *)0)->m)}
/* A function pointer member: its Lua declaration is `ret (*m) params`,
 * which must be the C member's type (a negative array size otherwise). */
#define FN(T, m, ret, params)                                                         \
    {#ret " (*" #m ")" #params, offsetof(T, m),                                      \
     sizeof(((T *)0)->m) +                                                            \
         0 * sizeof(char[__builtin_types_compatible_p(__typeof__(((T *)0)->m),        \
                                                      ret (*) params) ? 1 : -1])}
#define LTYPE(T, arr) {#T, sizeof(T), _Alignof(T), arr, sizeof arr / sizeof arr[0]}

static const lfield f_label[] = {F(ms_label, key, "uint32_t key"), F(ms_label, value, "uint32_t value")};
static const lfield f_labels[] = {F(ms_labels, n, "uint32_t n"),
                                  F(ms_labels, items, "const ms_label *items")};
static const lfield f_annotation[] = {F(ms_annotation, key, "uint32_t key"),
                                      F(ms_annotation, value, "const char *value")};
static const lfield f_annotations[] = {F(ms_annotations, n, "uint32_t n"),
                                       F(ms_annotations, items, "const ms_annotation *items")};
static const lfield f_scalar[] = {F(ms_scalar, name, "uint32_t name"),
                                  F(ms_scalar, value, "int64_t value")};
static const lfield f_resources[] = {F(ms_resources, v, "int64_t v[4]"),
                                     F(ms_resources, nscalar, "uint32_t nscalar"),
                                     F(ms_resources, scalar, "const ms_scalar *scalar")};
static const lfield f_owner[] = {F(ms_owner_ref, kind, "uint32_t kind"),
                                 F(ms_owner_ref, name, "uint32_t name"),
                                 F(ms_owner_ref, controller, "bool controller")};
static const lfield f_meta[] = {
    F(ms_object_meta, name, "uint32_t name"),
    F(ms_object_meta, namespace_, "uint32_t namespace_"),
    F(ms_object_meta, uid, "const char *uid"),
    F(ms_object_meta, labels, "ms_labels labels"),
    F(ms_object_meta, annotations, "ms_annotations annotations"),
    F(ms_object_meta, nowners, "uint32_t nowners"),
    F(ms_object_meta, owners, "const ms_owner_ref *owners"),
    F(ms_object_meta, creation, "double creation"),
};
static const lfield f_toleration[] = {
    F(ms_toleration, key, "uint32_t key"),
    F(ms_toleration, value, "uint32_t value"),
    F(ms_toleration, op, "uint8_t op"),
    F(ms_toleration, effect, "uint8_t effect"),
    F(ms_toleration, has_seconds, "bool has_seconds"),
    F(ms_toleration, toleration_seconds, "int64_t toleration_seconds"),
};
static const lfield f_host_port[] = {F(ms_host_port, host_ip, "uint32_t host_ip"),
                                     F(ms_host_port, port, "int32_t port"),
                                     F(ms_host_port, protocol, "uint8_t protocol")};
static const lfield f_taint[] = {F(ms_taint, key, "uint32_t key"), F(ms_taint, value, "uint32_t value"),
                                 F(ms_taint, effect, "uint8_t effect")};
static const lfield f_pod[] = {
    F(ms_pod, meta, "ms_object_meta meta"),
    F(ms_pod, node_name, "uint32_t node_name"),
    F(ms_pod, scheduler_name, "uint32_t scheduler_name"),
    F(ms_pod, priority, "int32_t priority"),
    F(ms_pod, node_selector, "ms_labels node_selector"),
    F(ms_pod, ntolerations, "uint32_t ntolerations"),
    F(ms_pod, tolerations, "const ms_toleration *tolerations"),
    F(ms_pod, nhost_ports, "uint32_t nhost_ports"),
    F(ms_pod, host_ports, "const ms_host_port *host_ports"),
    F(ms_pod, requests, "ms_resources requests"),
    F(ms_pod, limits, "ms_resources limits"),
    F(ms_pod, qos, "uint8_t qos"),
    F(ms_pod, nominated_node_name, "uint32_t nominated_node_name"),
};
static const lfield f_node[] = {
    F(ms_node, meta, "ms_object_meta meta"),
    F(ms_node, unschedulable, "bool unschedulable"),
    F(ms_node, ntaints, "uint32_t ntaints"),
    F(ms_node, taints, "const ms_taint *taints"),
    F(ms_node, allocatable, "ms_resources allocatable"),
};
static const lfield f_node_info[] = {
    F(ms_node_info, name, "uint32_t name"),
    F(ms_node_info, node, "const ms_node *node"),
    F(ms_node_info, npods, "uint32_t npods"),
    F(ms_node_info, pods, "const uint64_t *pods"),
    F(ms_node_info, requested, "ms_resources requested"),
};
static const lfield f_snapshot[] = {F(ms_snapshot, nodes, "const uint64_t *nodes"),
                                    F(ms_snapshot, nnodes, "uint32_t nnodes")};
static const lfield f_option[] = {
    F(ms_preemption_option, node, "uint64_t node"),
    F(ms_preemption_option, victims, "const uint64_t *victims"),
    F(ms_preemption_option, nvictims, "uint32_t nvictims"),
    F(ms_preemption_option, pdb_violations, "uint32_t pdb_violations"),
};
static const lfield f_attribute[] = {
    F(ms_device_attribute, domain, "uint32_t domain"), F(ms_device_attribute, id, "uint32_t id"),
    F(ms_device_attribute, type, "uint8_t type"),      F(ms_device_attribute, b, "bool b"),
    F(ms_device_attribute, i, "int64_t i"),            F(ms_device_attribute, s, "uint32_t s"),
};
static const lfield f_capacity[] = {
    F(ms_device_capacity, domain, "uint32_t domain"), F(ms_device_capacity, id, "uint32_t id"),
    F(ms_device_capacity, value, "int64_t value"),
};
static const lfield f_device[] = {
    F(ms_device, name, "uint32_t name"),
    F(ms_device, nattributes, "uint32_t nattributes"),
    F(ms_device, attributes, "const ms_device_attribute *attributes"),
    F(ms_device, ncapacity, "uint32_t ncapacity"),
    F(ms_device, capacity, "const ms_device_capacity *capacity"),
};
static const lfield f_device_pick[] = {
    F(ms_device_pick, claim, "uint32_t claim"),   F(ms_device_pick, request, "uint32_t request"),
    F(ms_device_pick, driver, "uint32_t driver"), F(ms_device_pick, pool, "uint32_t pool"),
    F(ms_device_pick, device, "const ms_device *device"),
};
static const lfield f_device_option[] = {
    F(ms_device_option, picks, "const ms_device_pick *picks"),
    F(ms_device_option, npicks, "uint32_t npicks"),
};
static const lfield f_api[] = {
    FN(ms_lua_api, str, const char *, (const ms_lua_state *, ms_str)),
    FN(ms_lua_api, find, ms_str, (const ms_lua_state *, const char *, size_t)),
    FN(ms_lua_api, reason, ms_str, (ms_lua_state *, const char *, size_t)),
    FN(ms_lua_api, label, ms_str, (const ms_labels *, ms_str)),
    FN(ms_lua_api, annotation, const char *, (const ms_annotations *, ms_str)),
    FN(ms_lua_api, scalar, int64_t, (const ms_resources *, ms_str)),
    FN(ms_lua_api, controller, const ms_owner_ref *, (const ms_object_meta *)),
    FN(ms_lua_api, quantity, int, (const char *, size_t, double *, int64_t *)),
    FN(ms_lua_api, log, void, (ms_lua_state *, int, const char *, size_t)),
    FN(ms_lua_api, now, double, (ms_lua_state *)),
    FN(ms_lua_api, permit, int, (ms_lua_state *, const char *, int, const char *)),
};
static const lfield f_frame[] = {
    F(ms_lua_frame, epoch, "double epoch"),
    F(ms_lua_frame, op, "uint32_t op"),
    F(ms_lua_frame, cycle, "double cycle"),
    F(ms_lua_frame, pod, "uint64_t pod"),
    F(ms_lua_frame, pod2, "uint64_t pod2"),
    F(ms_lua_frame, nodes, "const uint64_t *nodes"),
    F(ms_lua_frame, n, "uint32_t n"),
    F(ms_lua_frame, result, "int32_t result"),
    F(ms_lua_frame, reason, "uint32_t reason"),
    F(ms_lua_frame, node_name, "uint32_t node_name"),
    F(ms_lua_frame, number, "double number"),
    F(ms_lua_frame, node, "uint64_t node"),
    F(ms_lua_frame, snap, "const ms_snapshot *snap"),
    F(ms_lua_frame, codes, "uint8_t *codes"),
    F(ms_lua_frame, reasons, "uint32_t *reasons"),
    F(ms_lua_frame, scores, "double *scores"),
    F(ms_lua_frame, cands, "const uint64_t *cands"),
    F(ms_lua_frame, ncands, "uint32_t ncands"),
    F(ms_lua_frame, npicked, "uint32_t npicked"),
    F(ms_lua_frame, picked, "uint32_t *picked"),
    F(ms_lua_frame, options, "const ms_preemption_option *options"),
    F(ms_lua_frame, noptions, "uint32_t noptions"),
    F(ms_lua_frame, devices, "const ms_device_option *devices"),
    F(ms_lua_frame, dry, "uint32_t dry"),
    F(ms_lua_frame, dry_base, "uint32_t dry_base"),
    F(ms_lua_frame, state, "ms_lua_state *state"),
    F(ms_lua_frame, api, "const ms_lua_api *api"),
};

/* In dependency order: a type is declared before it is embedded. */
static const ltype runtime_types[] = {
    LTYPE(ms_label, f_label),
    LTYPE(ms_labels, f_labels),
    LTYPE(ms_annotation, f_annotation),
    LTYPE(ms_annotations, f_annotations),
    LTYPE(ms_scalar, f_scalar),
    LTYPE(ms_resources, f_resources),
    LTYPE(ms_owner_ref, f_owner),
    LTYPE(ms_object_meta, f_meta),
    LTYPE(ms_toleration, f_toleration),
    LTYPE(ms_host_port, f_host_port),
    LTYPE(ms_taint, f_taint),
    LTYPE(ms_pod, f_pod),
    LTYPE(ms_node, f_node),
    LTYPE(ms_node_info, f_node_info),
    LTYPE(ms_snapshot, f_snapshot),
    LTYPE(ms_preemption_option, f_option),
    LTYPE(ms_device_attribute, f_attribute),
    LTYPE(ms_device_capacity, f_capacity),
    LTYPE(ms_device, f_device),
    LTYPE(ms_device_pick, f_device_pick),
    LTYPE(ms_device_option, f_device_option),
    LTYPE(ms_lua_api, f_api),
    LTYPE(ms_lua_frame, f_frame),
};

/* What a LuaJIT host needs to drive policies the way the scheduler does. */
static const lfield f_error[] = {F(ms_error, rc, "ms_rc rc"), F(ms_error, msg, "char msg[512]")};
static const lfield f_status[] = {
    F(ms_status, code, "uint8_t code"),
    F(ms_status, nreasons, "uint8_t nreasons"),
    F(ms_status, plugin, "int16_t plugin"),
    F(ms_status, reasons, "const char *reasons[4]"),
};
static const lfield f_arena[] = {F(ms_arena, head, "ms_arena_block *head"),
                                 F(ms_arena, total, "size_t total")};
static const lfield f_decoder[] = {F(ms_decoder, in, "ms_interner *in"),
                                   F(ms_decoder, keep_raw, "bool keep_raw")};
static const lfield f_cycle[] = {
    F(ms_cycle, pod, "ms_pod *pod"),
    F(ms_cycle, snap, "const ms_snapshot *snap"),
    F(ms_cycle, arena, "ms_arena *arena"),
    F(ms_cycle, current, "uint32_t current"),
    F(ms_cycle, skip_filter, "uint64_t skip_filter"),
    F(ms_cycle, skip_score, "uint64_t skip_score"),
    F(ms_cycle, cycle, "uint64_t cycle"),
};
static const lfield f_ops[] = {
    F(ms_plugin_ops, name, "const char *name"),
    FN(ms_plugin_ops, pre_enqueue, bool, (void *, const ms_pod *, const char **)),
    FN(ms_plugin_ops, less, bool, (void *, const ms_queued_pod *, const ms_queued_pod *)),
    FN(ms_plugin_ops, pre_filter, ms_code, (void *, ms_cycle *, ms_status *)),
    FN(ms_plugin_ops, score, ms_code,
       (void *, ms_cycle *, ms_node_info *const *, uint32_t, int64_t *, ms_status *)),
    FN(ms_plugin_ops, reserve, ms_code, (void *, ms_cycle *, ms_str, ms_status *)),
    FN(ms_plugin_ops, unreserve, void, (void *, ms_cycle *, ms_str)),
    FN(ms_plugin_ops, permit, ms_code, (void *, ms_cycle *, ms_str, double *, ms_status *)),
    FN(ms_plugin_ops, filter_batch, ms_code,
       (void *, ms_cycle *, ms_node_info *const *, uint32_t, ms_status *)),
    F(ms_plugin_ops, ctx, "void *ctx"),
};
static const lfield f_options[] = {
    F(ms_lua_options, budget, "double budget"),
    F(ms_lua_options, memory, "size_t memory"),
    F(ms_lua_options, max_failures, "uint32_t max_failures"),
    F(ms_lua_options, on_error, "uint8_t on_error"),
    FN(ms_lua_options, log, void, (void *, ms_lua_log_level, const char *, const char *)),
    F(ms_lua_options, log_ctx, "void *log_ctx"),
    FN(ms_lua_options, now, double, (void *)),
    F(ms_lua_options, now_ctx, "void *now_ctx"),
    FN(ms_lua_options, permit, bool, (void *, const char *, bool, const char *)),
    F(ms_lua_options, permit_ctx, "void *permit_ctx"),
    FN(ms_lua_options, disabled, void, (void *, ms_policy *, const char *)),
    F(ms_lua_options, disabled_ctx, "void *disabled_ctx"),
};
static const lfield f_stats[] = {
    F(ms_policy_stats, calls, "uint64_t calls"),
    F(ms_policy_stats, failures, "uint64_t failures"),
    F(ms_policy_stats, budget_kills, "uint64_t budget_kills"),
    F(ms_policy_stats, memory_errors, "uint64_t memory_errors"),
    F(ms_policy_stats, consecutive, "uint32_t consecutive"),
    F(ms_policy_stats, reloads_ok, "uint64_t reloads_ok"),
    F(ms_policy_stats, reloads_failed, "uint64_t reloads_failed"),
    F(ms_policy_stats, disabled, "uint64_t disabled"),
};

static const ltype host_types[] = {
    LTYPE(ms_error, f_error),
    LTYPE(ms_status, f_status),
    LTYPE(ms_arena, f_arena),
    LTYPE(ms_decoder, f_decoder),
    LTYPE(ms_cycle, f_cycle),
    LTYPE(ms_plugin_ops, f_ops),
    LTYPE(ms_lua_options, f_options),
    LTYPE(ms_policy_stats, f_stats),
};

/* Names the declarations use before (or without) defining them. */
static const char runtime_preamble[] = "typedef uint32_t ms_str;\n"
                                       "typedef struct ms_lua_state ms_lua_state;\n";
static const char host_preamble[] = "typedef struct ms_interner ms_interner;\n"
                                    "typedef struct ms_arena_block ms_arena_block;\n"
                                    "typedef struct ms_queued_pod ms_queued_pod;\n"
                                    "typedef struct ms_lua_runtime ms_lua_runtime;\n"
                                    "typedef struct ms_policy ms_policy;\n"
                                    "typedef struct cJSON cJSON;\n";

/* ---- constants ----------------------------------------------------------- */

typedef struct lconst {
    const char *name;
    long long value;
} lconst;

typedef struct lenum {
    const char *name;              /* the C typedef; NULL for an anonymous enum */
    const lconst *items;
    size_t n;
} lenum;

#define K(x) {#x, (long long)(x)}
#define LENUM(name, arr) {name, arr, sizeof arr / sizeof arr[0]}
/* Each list ends with its enum's last member: a member added to the C enum
 * and not here fails to compile. */
#define COMPLETE(arr, last, first) \
    _Static_assert(sizeof arr / sizeof arr[0] == (size_t)((last) - (first) + 1), #arr " is complete")

static const lconst e_op[] = {
    K(MS_LUA_OP_PRE_ENQUEUE), K(MS_LUA_OP_LESS),      K(MS_LUA_OP_PRE_FILTER),
    K(MS_LUA_OP_FILTER),      K(MS_LUA_OP_SCORE),     K(MS_LUA_OP_RESERVE),
    K(MS_LUA_OP_UNRESERVE),   K(MS_LUA_OP_PERMIT),    K(MS_LUA_OP_SELECT_VICTIMS),
    K(MS_LUA_OP_PICK_PREEMPTION), K(MS_LUA_OP_DESCHEDULE), K(MS_LUA_OP_EVICTABLE),
    K(MS_LUA_OP_ADD_POD),     K(MS_LUA_OP_REMOVE_POD), K(MS_LUA_OP_PICK_DEVICES),
};
COMPLETE(e_op, MS_LUA_OP_PICK_DEVICES, MS_LUA_OP_PRE_ENQUEUE);
static const lconst e_pre_enqueue[] = {K(MS_LUA_PRE_ENQUEUE_REJECT), K(MS_LUA_PRE_ENQUEUE_ADMIT)};
COMPLETE(e_pre_enqueue, MS_LUA_PRE_ENQUEUE_ADMIT, 0);
static const lconst e_less[] = {K(MS_LUA_LESS_NOT_BEFORE), K(MS_LUA_LESS_BEFORE)};
COMPLETE(e_less, MS_LUA_LESS_BEFORE, 0);
static const lconst e_pre_filter[] = {K(MS_LUA_PRE_FILTER_PASS), K(MS_LUA_PRE_FILTER_REJECT),
                                      K(MS_LUA_PRE_FILTER_SKIP),
                                      K(MS_LUA_PRE_FILTER_REJECT_UNRESOLVABLE)};
COMPLETE(e_pre_filter, MS_LUA_PRE_FILTER_REJECT_UNRESOLVABLE, 0);
static const lconst e_filter[] = {K(MS_LUA_FILTER_PASS), K(MS_LUA_FILTER_REJECT),
                                  K(MS_LUA_FILTER_REJECT_UNRESOLVABLE)};
COMPLETE(e_filter, MS_LUA_FILTER_REJECT_UNRESOLVABLE, 0);
static const lconst e_score[] = {K(MS_LUA_SCORE_RAW), K(MS_LUA_SCORE_NORMALIZED)};
COMPLETE(e_score, MS_LUA_SCORE_NORMALIZED, 0);
static const lconst e_reserve[] = {K(MS_LUA_RESERVE_OK), K(MS_LUA_RESERVE_REJECT)};
COMPLETE(e_reserve, MS_LUA_RESERVE_REJECT, 0);
static const lconst e_permit[] = {K(MS_LUA_PERMIT_ALLOW), K(MS_LUA_PERMIT_DENY), K(MS_LUA_PERMIT_WAIT)};
COMPLETE(e_permit, MS_LUA_PERMIT_WAIT, 0);
static const lconst e_select[] = {K(MS_LUA_SELECT_VICTIMS_NONE), K(MS_LUA_SELECT_VICTIMS_PICKED)};
COMPLETE(e_select, MS_LUA_SELECT_VICTIMS_PICKED, 0);
static const lconst e_pick[] = {K(MS_LUA_PICK_PREEMPTION_DEFAULT), K(MS_LUA_PICK_PREEMPTION_FIRST)};
COMPLETE(e_pick, MS_LUA_PICK_PREEMPTION_FIRST, 0);
static const lconst e_pick_devices[] = {K(MS_LUA_PICK_DEVICES_DEFAULT), K(MS_LUA_PICK_DEVICES_FIRST)};
COMPLETE(e_pick_devices, MS_LUA_PICK_DEVICES_FIRST, 0);
static const lconst e_attr[] = {K(MS_ATTR_INT), K(MS_ATTR_BOOL), K(MS_ATTR_STRING), K(MS_ATTR_VERSION)};
COMPLETE(e_attr, MS_ATTR_VERSION, 0);
static const lconst e_desched[] = {K(MS_LUA_DESCHEDULE_NONE), K(MS_LUA_DESCHEDULE_PICKED)};
COMPLETE(e_desched, MS_LUA_DESCHEDULE_PICKED, 0);
static const lconst e_evictable[] = {K(MS_LUA_EVICTABLE_NO), K(MS_LUA_EVICTABLE_YES)};
COMPLETE(e_evictable, MS_LUA_EVICTABLE_YES, 0);
static const lconst e_hook[] = {
    K(MS_LUA_HOOK_PRE_ENQUEUE), K(MS_LUA_HOOK_LESS),      K(MS_LUA_HOOK_PRE_FILTER),
    K(MS_LUA_HOOK_FILTER),      K(MS_LUA_HOOK_SCORE),     K(MS_LUA_HOOK_NORMALIZE),
    K(MS_LUA_HOOK_RESERVE),     K(MS_LUA_HOOK_UNRESERVE), K(MS_LUA_HOOK_PERMIT),
    K(MS_LUA_HOOK_SELECT_VICTIMS), K(MS_LUA_HOOK_PICK_PREEMPTION), K(MS_LUA_HOOK_DESCHEDULE),
    K(MS_LUA_HOOK_EVICTABLE),   K(MS_LUA_HOOK_ADD_POD), K(MS_LUA_HOOK_REMOVE_POD),
    K(MS_LUA_HOOK_PICK_DEVICES),
};
_Static_assert(MS_LUA_HOOK_PICK_DEVICES == 1u << (sizeof e_hook / sizeof e_hook[0] - 1),
               "e_hook is complete");
static const lconst e_log[] = {K(MS_LUA_LOG_INFO), K(MS_LUA_LOG_WARN), K(MS_LUA_LOG_ERROR)};
COMPLETE(e_log, MS_LUA_LOG_ERROR, 0);
static const lconst e_qos[] = {K(MS_QOS_BEST_EFFORT), K(MS_QOS_BURSTABLE), K(MS_QOS_GUARANTEED)};
COMPLETE(e_qos, MS_QOS_GUARANTEED, 0);
static const lconst e_effect[] = {K(MS_EFFECT_NONE), K(MS_EFFECT_NO_SCHEDULE),
                                  K(MS_EFFECT_PREFER_NO_SCHEDULE), K(MS_EFFECT_NO_EXECUTE)};
COMPLETE(e_effect, MS_EFFECT_NO_EXECUTE, 0);
static const lconst e_tol_op[] = {K(MS_TOL_EQUAL), K(MS_TOL_EXISTS)};
COMPLETE(e_tol_op, MS_TOL_EXISTS, 0);
static const lconst e_protocol[] = {K(MS_PROTO_TCP), K(MS_PROTO_UDP), K(MS_PROTO_SCTP)};
COMPLETE(e_protocol, MS_PROTO_SCTP, 0);
static const lconst e_res[] = {K(MS_RES_CPU), K(MS_RES_MEMORY), K(MS_RES_EPHEMERAL), K(MS_RES_PODS),
                               K(MS_RES_NBUILTIN)};
COMPLETE(e_res, MS_RES_NBUILTIN, 0);

static const lenum runtime_enums[] = {
    LENUM("ms_lua_op", e_op),
    LENUM("ms_lua_pre_enqueue_result", e_pre_enqueue),
    LENUM("ms_lua_less_result", e_less),
    LENUM("ms_lua_pre_filter_result", e_pre_filter),
    LENUM("ms_lua_filter_code", e_filter),
    LENUM("ms_lua_score_result", e_score),
    LENUM("ms_lua_reserve_result", e_reserve),
    LENUM("ms_lua_permit_result", e_permit),
    LENUM("ms_lua_select_victims_result", e_select),
    LENUM("ms_lua_pick_preemption_result", e_pick),
    LENUM("ms_lua_pick_devices_result", e_pick_devices),
    LENUM("ms_attr_type", e_attr),
    LENUM("ms_lua_deschedule_result", e_desched),
    LENUM("ms_lua_evictable_result", e_evictable),
    LENUM("ms_lua_hook", e_hook),
    LENUM("ms_lua_log_level", e_log),
    LENUM("ms_qos", e_qos),
    LENUM("ms_taint_effect", e_effect),
    LENUM("ms_toleration_op", e_tol_op),
    LENUM("ms_protocol", e_protocol),
    LENUM(NULL, e_res),
};

static const lconst e_rc[] = {K(MS_OK),     K(MS_EINVAL), K(MS_ENOMEM), K(MS_ENOENT),
                              K(MS_EEXIST), K(MS_EIO),    K(MS_ESTATE)};
COMPLETE(e_rc, MS_OK, MS_ESTATE);
static const lconst e_code[] = {K(MS_SUCCESS), K(MS_ERROR), K(MS_UNSCHEDULABLE),
                                K(MS_UNSCHEDULABLE_AND_UNRESOLVABLE), K(MS_WAIT), K(MS_SKIP),
                                K(MS_PENDING)};
COMPLETE(e_code, MS_PENDING, 0);
static const lconst e_on_error[] = {K(MS_POLICY_REJECT), K(MS_POLICY_SKIP)};
COMPLETE(e_on_error, MS_POLICY_SKIP, 0);

static const lenum host_enums[] = {
    LENUM("ms_rc", e_rc),
    LENUM("ms_code", e_code),
    LENUM("ms_policy_on_error", e_on_error),
};

/* ---- generation ---------------------------------------------------------- */

/* The field name: the identifier before any '[' at the end of decl, or
 * inside "(*name)" for function pointers. */
static void decl_name(const char *decl, char *out, size_t n) {
    const char *fp = strstr(decl, "(*");
    const char *s, *e;
    if (fp) {
        s = fp + 2;
        e = strchr(s, ')');
    } else {
        e = strchr(decl, '[');
        if (!e) e = decl + strlen(decl);
        s = e;
        while (s > decl && (s[-1] == '_' || (s[-1] >= 'a' && s[-1] <= 'z') ||
                            (s[-1] >= 'A' && s[-1] <= 'Z') || (s[-1] >= '0' && s[-1] <= '9')))
            s--;
    }
    size_t len = (size_t)(e - s);
    if (len >= n) len = n - 1;
    memcpy(out, s, len);
    out[len] = 0;
}

static bool emit_type(const ltype *lt, ms_buf *d, ms_buf *c) {
    /* Padding does not carry the alignment of the fields it stands for. */
    ms_buf_printf(d, "typedef struct __attribute__((aligned(%zu))) %s {\n", lt->align, lt->name);
    ms_buf_printf(c, "%s %zu %zu\n", lt->name, lt->size, lt->align);
    size_t cur = 0;
    for (size_t i = 0; i < lt->nfields; i++) {
        const lfield *f = &lt->fields[i];
        if (f->off < cur) return false;   /* tables must follow the C order */
        if (f->off > cur) ms_buf_printf(d, "  uint8_t _pad%zu[%zu];\n", i, f->off - cur);
        ms_buf_printf(d, "  %s;\n", f->decl);
        char name[64];
        decl_name(f->decl, name, sizeof name);
        ms_buf_printf(c, "%s %s %zu %zu\n", lt->name, name, f->off, f->size);
        cur = f->off + f->size;
    }
    if (lt->size > cur) ms_buf_printf(d, "  uint8_t _padend[%zu];\n", lt->size - cur);
    ms_buf_printf(d, "} %s;\n", lt->name);
    return true;
}

static void emit_enum(const lenum *le, ms_buf *d) {
    ms_buf_puts(d, le->name ? "typedef enum " : "enum ");
    if (le->name) ms_buf_printf(d, "%s ", le->name);
    ms_buf_puts(d, "{\n");
    for (size_t i = 0; i < le->n; i++)
        ms_buf_printf(d, "  %s = %lld,\n", le->items[i].name, le->items[i].value);
    ms_buf_printf(d, "}%s%s;\n", le->name ? " " : "", le->name ? le->name : "");
}

#define COUNT(a) (sizeof a / sizeof a[0])

bool ms_lua_abi_build(ms_lua_abi_set set, ms_buf *cdef, ms_buf *checks) {
    bool host = set == MS_LUA_ABI_HOST;
    ms_buf_puts(cdef, runtime_preamble);
    if (host) ms_buf_puts(cdef, host_preamble);
    for (size_t i = 0; i < COUNT(runtime_enums); i++) emit_enum(&runtime_enums[i], cdef);
    for (size_t i = 0; host && i < COUNT(host_enums); i++) emit_enum(&host_enums[i], cdef);
    for (size_t i = 0; i < COUNT(runtime_types); i++)
        if (!emit_type(&runtime_types[i], cdef, checks)) return false;
    for (size_t i = 0; host && i < COUNT(host_types); i++)
        if (!emit_type(&host_types[i], cdef, checks)) return false;
    return !cdef->failed && !checks->failed;
}

char *ms_lua_ffi_cdef(void) {
    ms_buf d = {0}, c = {0};
    bool ok = ms_lua_abi_build(MS_LUA_ABI_HOST, &d, &c);
    ms_buf_free(&c);
    if (!ok) {
        ms_buf_free(&d);
        return NULL;
    }
    return ms_buf_take(&d);
}
