/* The ABI between the C side of policies and the Lua runtime
 * (lua/moonsched/): the call frame, the table of helpers, the operations and
 * the result code of each hook. The Lua side reads the layouts and every
 * constant by name from the declarations generated here, with the C
 * compiler's offsets and sizes, so this header is their one source;
 * tests/unit/policy/test_lua_abi.c fails when the two sides disagree. */
#ifndef MOONSCHED_POLICY_LUA_ABI_H
#define MOONSCHED_POLICY_LUA_ABI_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "moonsched/lua_policy.h"
#include "backend/cache_snapshot.h"

/* Helpers the runtime calls; pointers, so that the FFI needs no symbols. */
typedef struct ms_lua_api {
    const char *(*str)(const ms_lua_state *s, ms_str id);
    ms_str (*find)(const ms_lua_state *s, const char *p, size_t len);
    ms_str (*reason)(ms_lua_state *s, const char *p, size_t len);
    ms_str (*label)(const ms_labels *l, ms_str key);
    const char *(*annotation)(const ms_annotations *a, ms_str key);
    int64_t (*scalar)(const ms_resources *r, ms_str name);
    const ms_owner_ref *(*controller)(const ms_object_meta *m);
    int (*quantity)(const char *p, size_t len, double *value, int64_t *milli);
    void (*log)(ms_lua_state *s, int level, const char *msg, size_t len);
    double (*now)(ms_lua_state *s);
    int (*permit)(ms_lua_state *s, const char *uid, int allow, const char *reason);
} ms_lua_api;

/* The call a frame asks the runtime's dispatcher for. */
typedef enum ms_lua_op {
    MS_LUA_OP_PRE_ENQUEUE = 1,
    MS_LUA_OP_LESS,
    MS_LUA_OP_PRE_FILTER,
    MS_LUA_OP_FILTER,
    MS_LUA_OP_SCORE,
    MS_LUA_OP_RESERVE,
    MS_LUA_OP_UNRESERVE,
    MS_LUA_OP_PERMIT,
    MS_LUA_OP_SELECT_VICTIMS,
    MS_LUA_OP_PICK_PREEMPTION,
    MS_LUA_OP_DESCHEDULE,
    MS_LUA_OP_EVICTABLE,
    MS_LUA_OP_ADD_POD,             /* frame.cands[0..ncands) added to frame.node */
    MS_LUA_OP_REMOVE_POD,          /* frame.cands[0..ncands) removed from frame.node */
    MS_LUA_OP_PICK_DEVICES,        /* frame.devices on frame.node */
} ms_lua_op;
/* One past the last operation, for arrays indexed by op. */
#define MS_LUA_NOPS (MS_LUA_OP_PICK_DEVICES + 1)

/* What a call leaves in frame.result (filter: in frame.codes[i]); the
 * meaning differs per hook, hence one set of names per hook. */
typedef enum ms_lua_pre_enqueue_result {
    MS_LUA_PRE_ENQUEUE_REJECT = 0,         /* reason: frame.reason */
    MS_LUA_PRE_ENQUEUE_ADMIT,
} ms_lua_pre_enqueue_result;

typedef enum ms_lua_less_result {
    MS_LUA_LESS_NOT_BEFORE = 0,
    MS_LUA_LESS_BEFORE,                    /* pod goes before pod2 */
} ms_lua_less_result;

typedef enum ms_lua_pre_filter_result {
    MS_LUA_PRE_FILTER_PASS = 0,
    MS_LUA_PRE_FILTER_REJECT,              /* Unschedulable, reason: frame.reason */
    MS_LUA_PRE_FILTER_SKIP,                /* skips the policy's Filter and Score */
    MS_LUA_PRE_FILTER_REJECT_UNRESOLVABLE, /* UnschedulableAndUnresolvable */
} ms_lua_pre_filter_result;

typedef enum ms_lua_filter_code {
    MS_LUA_FILTER_PASS = 0,
    MS_LUA_FILTER_REJECT,                  /* Unschedulable, reason: frame.reasons[i] */
    MS_LUA_FILTER_REJECT_UNRESOLVABLE,     /* UnschedulableAndUnresolvable */
} ms_lua_filter_code;

typedef enum ms_lua_score_result {
    MS_LUA_SCORE_RAW = 0,                  /* C normalizes (ms_lua_normalize) */
    MS_LUA_SCORE_NORMALIZED,               /* the policy's normalize ran */
} ms_lua_score_result;

typedef enum ms_lua_reserve_result {
    MS_LUA_RESERVE_OK = 0,
    MS_LUA_RESERVE_REJECT,                 /* reason: frame.reason */
} ms_lua_reserve_result;

typedef enum ms_lua_permit_result {
    MS_LUA_PERMIT_ALLOW = 0,
    MS_LUA_PERMIT_DENY,                    /* reason: frame.reason */
    MS_LUA_PERMIT_WAIT,                    /* seconds: frame.number */
} ms_lua_permit_result;

typedef enum ms_lua_select_victims_result {
    MS_LUA_SELECT_VICTIMS_NONE = 0,        /* the node cannot help */
    MS_LUA_SELECT_VICTIMS_PICKED,          /* frame.picked[0..npicked) */
} ms_lua_select_victims_result;

/* Any other result is MS_LUA_PICK_PREEMPTION_FIRST + the option's index. */
typedef enum ms_lua_pick_preemption_result {
    MS_LUA_PICK_PREEMPTION_DEFAULT = 0,    /* nil: the default choice */
    MS_LUA_PICK_PREEMPTION_FIRST,
} ms_lua_pick_preemption_result;

/* Any other result is MS_LUA_PICK_DEVICES_FIRST + the option's index. */
typedef enum ms_lua_pick_devices_result {
    MS_LUA_PICK_DEVICES_DEFAULT = 0,       /* nil: the allocator's choice */
    MS_LUA_PICK_DEVICES_FIRST,
} ms_lua_pick_devices_result;

typedef enum ms_lua_deschedule_result {
    MS_LUA_DESCHEDULE_NONE = 0,            /* nothing to evict */
    MS_LUA_DESCHEDULE_PICKED,              /* frame.picked[0..npicked), frame.reasons[k] */
} ms_lua_deschedule_result;
typedef enum ms_lua_evictable_result {
    MS_LUA_EVICTABLE_NO = 0,               /* reason: frame.reason */
    MS_LUA_EVICTABLE_YES,
} ms_lua_evictable_result;

/* One call's arguments and results. Views made during a call carry its
 * epoch; the epoch moves on after every call, so that a view kept past its
 * call raises an error instead of reading memory that may be gone. A
 * double counts exactly to 2^53 calls: a 32-bit count would come back to
 * a kept view's epoch after 2^32 calls (half a day at 100,000 a second). */
typedef struct ms_lua_frame {
    double epoch;
    uint32_t op;                   /* ms_lua_op */
    double cycle;                  /* the cycle's number: a new one gets a fresh `state` */
    const ms_pod *pod;
    const ms_pod *pod2;            /* less: b */
    ms_node_info *const *nodes;    /* filter, score: candidates; deschedule: the nodes */
    uint32_t n;
    int32_t result;                /* the hook's ms_lua_*_result */
    ms_str reason;
    ms_str node_name;              /* reserve, unreserve, permit */
    double number;                 /* permit: seconds to wait */
    const ms_node_info *node;      /* select_victims */
    const ms_snapshot *snap;       /* sched.nodes(); NULL outside a cycle */
    uint8_t *codes;                /* filter: ms_lua_filter_code per node */
    ms_str *reasons;               /* filter; deschedule: per picked pod */
    double *scores;                /* score: raw, or final when the policy normalizes */
    ms_pod *const *cands;          /* select_victims; deschedule: the nodes' pods */
    uint32_t ncands;
    uint32_t npicked;
    uint32_t *picked;
    const ms_preemption_option *options;
    uint32_t noptions;
    const ms_device_option *devices;   /* pick_devices: frame.noptions of them */
    /* 0: filter and add_pod/remove_pod use the cycle's `state`; else the
     * copy of a dry run (ms_cycle.dry), made from dry_base's (0: the
     * cycle's) the first time this id is seen. */
    uint32_t dry;
    uint32_t dry_base;
    ms_lua_state *state;
    const ms_lua_api *api;
} ms_lua_frame;

/* Which declarations to generate: what the runtime inside a policy state
 * needs, or that plus what a LuaJIT host driving the library needs
 * (options, statuses, cycles, plugin ops: ms_lua_ffi_cdef). */
typedef enum ms_lua_abi_set {
    MS_LUA_ABI_RUNTIME = 0,
    MS_LUA_ABI_HOST,
} ms_lua_abi_set;

/* cdef: the declarations for ffi.cdef (structs in C order, fields the Lua
 * side does not read as padding, pointers that become views as uint64_t,
 * and the constants as enums). checks: one line per type ("type size
 * align") and per field ("type field offset size"), for the runtime and
 * the tests to compare with what the FFI made of cdef. false when out of
 * memory. */
bool ms_lua_abi_build(ms_lua_abi_set set, ms_buf *cdef, ms_buf *checks);

#endif
