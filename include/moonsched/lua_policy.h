/* Scheduling policies written in Lua (LuaJIT): a policy file returns a
 * table of hooks that run at the framework's extension points (the contract
 * is docs/policies.md).
 *
 * Three objects:
 * - ms_lua_runtime: what the policies of one scheduler thread share: the
 *   options (budget, memory cap, failure handling, callbacks), the interner,
 *   and the watchdog thread that stops a call past its budget.
 * - ms_lua_state: one loaded version of one policy, in a lua_State of its
 *   own with a counting allocator (the memory cap) and the sandbox. Loading
 *   runs the file and init(args) in a fresh state, so that a reload is
 *   "load the new version, then swap a pointer at a cycle boundary".
 * - ms_policy: the stable handle that the framework sees as a plugin
 *   (ms_policy_ops); it runs the current ms_lua_state, counts consecutive
 *   failures and disables the policy after max_failures of them.
 *
 * The Lua boundary is crossed once per pod per extension point: Filter and
 * Score hand the pod and the whole node array to the runtime, whose loop
 * over the nodes runs in Lua (JIT-compiled), reading C-owned structs through
 * FFI views and writing results into C-owned arrays.
 *
 * A state runs on one thread at a time. States of one runtime may be
 * loaded on another thread than the one that runs the others (hot reload
 * loads on the watcher thread): loading and freeing are thread-safe, and
 * the log callback may then be called from that thread. Policies (ms_policy)
 * belong to the thread that runs them. */
#ifndef MOONSCHED_LUA_POLICY_H
#define MOONSCHED_LUA_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "moonsched/error.h"
#include "moonsched/intern.h"
#include "moonsched/labels.h"
#include "moonsched/meta.h"
#include "moonsched/nodeinfo.h"
#include "moonsched/plugin.h"
#include "moonsched/pod.h"
#include "moonsched/resources.h"
#include "moonsched/status.h"

#pragma GCC visibility push(default)

typedef struct cJSON cJSON;
typedef struct ms_policy ms_policy;

typedef enum ms_lua_log_level {
    MS_LUA_LOG_INFO = 0,
    MS_LUA_LOG_WARN,
    MS_LUA_LOG_ERROR,
} ms_lua_log_level;

/* What a failed call (an error, the budget, the memory cap) does to the pod
 * whose cycle it was part of. */
typedef enum ms_policy_on_error {
    MS_POLICY_REJECT = 0,          /* Unschedulable, the error as the reason */
    MS_POLICY_SKIP,                /* as if the policy had no opinion on this pod */
} ms_policy_on_error;

typedef struct ms_lua_options {
    double budget;                 /* seconds of the calling thread's CPU time per call;
                                    * default 0.05 */
    size_t memory;                 /* bytes per policy state; default 64 MiB */
    uint32_t max_failures;         /* consecutive failures that disable a policy;
                                    * default 10, 0 = never disable */
    uint8_t on_error;              /* ms_policy_on_error; default MS_POLICY_REJECT */
    /* sched.log.*, and the runtime's own reports. NULL: one line on stderr.
     * Called from the thread running the call (loads may run on another
     * thread than the scheduler's). */
    void (*log)(void *ctx, ms_lua_log_level level, const char *policy, const char *msg);
    void *log_ctx;
    /* sched.now(). NULL: CLOCK_MONOTONIC seconds. */
    double (*now)(void *ctx);
    void *now_ctx;
    /* sched.permit.allow(uid) / deny(uid, reason): releases a pod that a
     * Permit hook parked. Returns false when no such pod waits. NULL: the
     * calls return false. */
    bool (*permit)(void *ctx, const char *uid, bool allow, const char *reason);
    void *permit_ctx;
    /* A policy was disabled (also logged); ms_policy_name(p) names it. */
    void (*disabled)(void *ctx, struct ms_policy *p, const char *why);
    void *disabled_ctx;
} ms_lua_options;

void ms_lua_options_default(ms_lua_options *o);

/* One policy's own limits (its pluginConfig args), each overriding the
 * runtime's option of the same name. */
typedef struct ms_lua_limits {
    double budget;                 /* seconds per call; 0: the runtime's */
    /* Seconds for the load (the file's top level and init); 0: the call
     * budget, but at least MS_LUA_INIT_BUDGET_MIN: a load runs once per
     * version, so a 1 ms call budget must not make it depend on the
     * machine's speed. */
    double init_budget;
    size_t memory;                 /* bytes of the state; 0: the runtime's */
    int32_t max_failures;          /* -1: the runtime's; 0: never disable */
    int32_t on_error;              /* ms_policy_on_error; -1: the runtime's */
    /* A shadow instance (docs/policies.md, "Shadow mode"): it changes
     * nothing live, so sched.permit.allow/deny are refused (false, logged
     * once per loaded version). Per instance, not per file: the same file
     * may also run live. */
    bool shadow;
} ms_lua_limits;

#define MS_LUA_INIT_BUDGET_MIN 1.0

void ms_lua_limits_default(ms_lua_limits *l);

typedef struct ms_lua_runtime ms_lua_runtime;

/* Starts the watchdog thread. `in` must outlive the runtime: policies read
 * interned strings and filter reasons are interned (a bounded number per
 * policy state). */
ms_rc ms_lua_runtime_new(const ms_lua_options *o, ms_interner *in, ms_lua_runtime **out,
                         ms_error *err);
/* Every state of the runtime must be freed first. */
void ms_lua_runtime_free(ms_lua_runtime *rt);
const ms_lua_options *ms_lua_runtime_options(const ms_lua_runtime *rt);

/* Hooks a policy defines (bits of ms_lua_state_hooks). */
typedef enum ms_lua_hook {
    MS_LUA_HOOK_PRE_ENQUEUE = 1u << 0,
    MS_LUA_HOOK_LESS = 1u << 1,
    MS_LUA_HOOK_PRE_FILTER = 1u << 2,
    MS_LUA_HOOK_FILTER = 1u << 3,
    MS_LUA_HOOK_SCORE = 1u << 4,
    MS_LUA_HOOK_NORMALIZE = 1u << 5,
    MS_LUA_HOOK_RESERVE = 1u << 6,
    MS_LUA_HOOK_UNRESERVE = 1u << 7,
    MS_LUA_HOOK_PERMIT = 1u << 8,
    MS_LUA_HOOK_SELECT_VICTIMS = 1u << 9,
    MS_LUA_HOOK_PICK_PREEMPTION = 1u << 10,
    MS_LUA_HOOK_DESCHEDULE = 1u << 11,
    MS_LUA_HOOK_EVICTABLE = 1u << 12,
    MS_LUA_HOOK_ADD_POD = 1u << 13,
    MS_LUA_HOOK_REMOVE_POD = 1u << 14,
    MS_LUA_HOOK_PICK_DEVICES = 1u << 15,
} ms_lua_hook;

typedef struct ms_lua_state ms_lua_state;

/* Loads one version of a policy into a fresh state: the sandbox, the file
 * (text only), the returned table validated (`name` a non-empty string,
 * hooks functions), then init(args) with args converted to a plain table
 * (NULL: an empty table). The file's top level and init run under the
 * budget and the memory cap. On error *out is NULL and err says why,
 * naming the chunk ("@FILE" or "=NAME", without its mark) once and in
 * full: "FILE:LINE: ..." where Lua places the error in the chunk, else
 * "policy FILE: ...". */
ms_rc ms_lua_state_load(ms_lua_runtime *rt, const char *chunkname, const char *src, size_t len,
                        const cJSON *args, ms_lua_state **out, ms_error *err);
/* Same, reading the file; the chunk name is "@path". */
ms_rc ms_lua_state_load_file(ms_lua_runtime *rt, const char *path, const cJSON *args,
                             ms_lua_state **out, ms_error *err);
/* The same with a policy's own budget and memory cap (NULL: the runtime's). */
ms_rc ms_lua_state_load_ex(ms_lua_runtime *rt, const ms_lua_limits *lim, const char *chunkname,
                           const char *src, size_t len, const cJSON *args, ms_lua_state **out,
                           ms_error *err);
ms_rc ms_lua_state_load_file_ex(ms_lua_runtime *rt, const ms_lua_limits *lim, const char *path,
                                const cJSON *args, ms_lua_state **out, ms_error *err);
/* A policy file's text (at most 64 MiB), NUL-terminated; free() it. */
ms_rc ms_lua_read_file(const char *path, char **out, size_t *len, ms_error *err);
void ms_lua_state_free(ms_lua_state *s);
const char *ms_lua_state_name(const ms_lua_state *s);
uint32_t ms_lua_state_hooks(const ms_lua_state *s);
/* Bytes the state's allocator holds now. */
size_t ms_lua_state_memory(const ms_lua_state *s);

/* A policy handle around a first loaded version (taken over, also on
 * error). Its plugin name is the policy's `name`. */
ms_rc ms_policy_new(ms_lua_runtime *rt, ms_lua_state *first, ms_policy **out, ms_error *err);
/* The same under another plugin name ("lua:gpu-binpack" from a profile's
 * configuration; NULL: the policy's name) and with its own failure
 * handling (lim->max_failures, lim->on_error; NULL: the runtime's). The
 * versions loaded for it later should share lim's budget and memory. */
ms_rc ms_policy_new_ex(ms_lua_runtime *rt, ms_lua_state *first, const char *plugin_name,
                       const ms_lua_limits *lim, ms_policy **out, ms_error *err);
/* A policy whose file did not load (`run` at start): no version runs
 * until one loads and is swapped in (ms_policy_swap), as any reload.
 * fail_open false: its PreFilter rejects every pod of the profile
 * (UnschedulableAndUnresolvable, "<plugin> did not load: <why>"); true:
 * the profile schedules without it. Either way the points of
 * neutral_hooks (MS_LUA_HOOK_* bits: those the configuration names
 * explicitly) answer neutrally (pass, score 0, PrioritySort's order), so
 * that the profile builds. */
ms_rc ms_policy_new_unloaded(ms_lua_runtime *rt, const char *plugin_name, const ms_lua_limits *lim,
                             bool fail_open, uint32_t neutral_hooks, const char *why, ms_policy **out,
                             ms_error *err);
/* "<plugin> did not load: <why>" while no version runs; NULL after. */
const char *ms_policy_load_error(const ms_policy *p);
bool ms_policy_fail_open(const ms_policy *p);
void ms_policy_free(ms_policy *p);
/* Hot reload: from the next call on, `next` runs; returns the previous
 * version for the caller to free once no cycle uses it (between cycles that
 * is at once). The failure count is reset and a disabled policy comes back.
 * The plugin's ops follow next's hooks at once: a framework that runs it
 * must re-derive its points when the hooks changed (see
 * ms_scheduler_plugin_reloaded). */
ms_lua_state *ms_policy_swap(ms_policy *p, ms_lua_state *next);
/* A new version failed to load (counted in the stats; the running one stays). */
void ms_policy_reload_failed(ms_policy *p);
const ms_lua_state *ms_policy_state(const ms_policy *p);   /* NULL: none loaded */
/* The plugin name, and the hooks of the running version. */
const char *ms_policy_name(const ms_policy *p);
uint32_t ms_policy_hooks(const ms_policy *p);

/* The framework plugin: extension points for the hooks the running version
 * defines (re-wired by ms_policy_swap). ctx is the policy, so self is the
 * policy without a create step. Filter is filter_batch only; Score writes
 * normalized 0..100 scores itself (default: linear rescale with the top
 * score at 100). The same pointer while the policy lives. */
const ms_plugin_ops *ms_policy_ops(ms_policy *p);
/* The ops the policy would have with a version defining `hooks`: for
 * checking a reload against a configuration before swapping. */
void ms_policy_ops_for(const ms_policy *p, uint32_t hooks, ms_plugin_ops *out);

bool ms_policy_disabled(const ms_policy *p);
/* The last failure's message ("" before any). */
const char *ms_policy_last_error(const ms_policy *p);

typedef struct ms_policy_stats {
    uint64_t calls;
    uint64_t failures;             /* all failed calls */
    uint64_t budget_kills;         /* calls stopped by the watchdog */
    uint64_t memory_errors;        /* calls that hit the memory cap */
    uint32_t consecutive;          /* failures since the last success */
    uint64_t reloads_ok;           /* versions swapped in after the first */
    uint64_t reloads_failed;       /* versions that failed to load, init or fit */
    uint64_t disabled;             /* times the policy was disabled */
} ms_policy_stats;
void ms_policy_get_stats(const ms_policy *p, ms_policy_stats *out);

/* Preemption (PostFilter), for DefaultPreemption to consult.
 *
 * select_victims: candidates are the pods on `ni` with lower priority than
 * the preemptor, lowest priority first. MS_SUCCESS: victims[0..*nvictims)
 * are indexes into candidates (each at most once, in the order the policy
 * returned them; victims must have room for ncandidates). MS_UNSCHEDULABLE:
 * the policy says this node cannot help. MS_SKIP: the policy has no
 * select_victims (or is disabled, or failed under MS_POLICY_SKIP): use the
 * default. MS_ERROR: the call failed (st says why). */
ms_code ms_policy_select_victims(ms_policy *p, ms_cycle *c, const ms_node_info *ni,
                                 ms_pod *const *candidates, uint32_t ncandidates,
                                 uint32_t *victims, uint32_t *nvictims, ms_status *st);

typedef struct ms_preemption_option {
    const ms_node_info *node;
    ms_pod *const *victims;
    uint32_t nvictims;
    uint32_t pdb_violations;
} ms_preemption_option;

/* pick_preemption: MS_SUCCESS with *chosen an index into options; MS_SKIP
 * when the policy has no pick_preemption or returned nil (use the default);
 * MS_ERROR on failure. */
ms_code ms_policy_pick_preemption(ms_policy *p, ms_cycle *c, const ms_preemption_option *options,
                                  uint32_t noptions, uint32_t *chosen, ms_status *st);

/* Devices (DynamicResources' Reserve, docs/dra.md): options are the ways
 * the pod's claims can be allocated on the chosen node (plugin.h's
 * ms_device_option), the allocator's own choice (upstream's) first.
 * pick_devices: MS_SUCCESS with *chosen an index into options; MS_SKIP
 * when the policy has no pick_devices or returned nil (the allocator's
 * choice, options[0]); MS_ERROR on failure. */
ms_code ms_policy_pick_devices(ms_policy *p, ms_cycle *c, const ms_node_info *ni,
                               const ms_device_option *options, uint32_t noptions, uint32_t *chosen,
                               ms_status *st);

/* Descheduling (docs/descheduler.md), outside any scheduling cycle.
 *
 * deschedule(nodes): `pods` are every pod of `nodes`. MS_SUCCESS:
 * picked[0..*npicked) are indexes into pods (each at most once, in the
 * order the policy returned them; picked must have room for npods) and
 * reasons[k] the interned reason of picked[k]. MS_SKIP: no deschedule
 * hook, or the policy is disabled, or failed under MS_POLICY_SKIP.
 * MS_ERROR: the call failed (st says why). */
ms_code ms_policy_deschedule(ms_policy *p, ms_node_info *const *nodes, uint32_t nnodes,
                             ms_pod *const *pods, uint32_t npods, uint32_t *picked, ms_str *reasons,
                             uint32_t *npicked, ms_status *st);
/* evictable(pod): MS_SUCCESS evictable; MS_UNSCHEDULABLE protected (st
 * gives the reason); MS_SKIP no such hook (or disabled, or failed under
 * MS_POLICY_SKIP); MS_ERROR the call failed. */
ms_code ms_policy_evictable(ms_policy *p, const ms_pod *pod, ms_status *st);

/* The declarations (text for LuaJIT's ffi.cdef) of the structs and
 * constants above and of those a LuaJIT host needs to drive policies as
 * the scheduler does (ms_lua_options, ms_cycle, ms_status, ms_plugin_ops,
 * the hooks' result codes...), generated from the C layouts: fields a
 * host has no use for are padding. free() it; NULL when out of memory. */
char *ms_lua_ffi_cdef(void);

#pragma GCC visibility pop

#endif
