/* One loaded version of one policy: a lua_State of its own with a counting
 * allocator (the memory cap), the sandbox and the runtime's dispatcher,
 * and the call frame that carries each call's arguments and results. */
#ifndef MOONSCHED_POLICY_LUA_STATE_H
#define MOONSCHED_POLICY_LUA_STATE_H

#include <lua.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>

#include "moonsched/config.h"
#include "moonsched/lua_policy.h"
#include "policy/lua_abi.h"

/* A filter or rejection reason, interned so that statuses can point at it
 * for as long as the interner lives. A state interns at most
 * MS_LUA_MAX_REASONS distinct new texts; past that it gets one fixed text. */
#define MS_LUA_MAX_REASONS 4096

/* A policy instance's limits from its pluginConfig args: the one
 * translation for the scheduler's profiles and the descheduler's. */
void ms_lua_limits_from_args(const ms_policy_args *a, ms_lua_limits *l);

struct ms_lua_state {
    ms_lua_runtime *rt;
    lua_State *L;
    size_t used, cap;
    size_t peak;                   /* the most `used` has been since the last give_back */
    double budget;                 /* seconds per call */
    bool oom;                      /* the allocator refused since the call began */
    _Atomic bool killed;           /* the watchdog stopped the current call */
    /* The CPU clock of the thread running the state's calls and a reading
     * of it (cpu_base) taken at monotonic time wall_base, renewed by a call
     * that starts more than 1/16 budget later: reading a thread's CPU clock
     * is a system call, too dear for every call. The watchdog counts the
     * call's CPU time from cpu_base, at most 1/16 budget too much, which it
     * allows for. `deadline`: when it looks (under rt->mu). */
    clockid_t cpu_clock;
    struct timespec cpu_base;
    double wall_base;
    double deadline;
    ms_lua_state *next_active;
    int dispatch_ref;
    uint32_t hooks;
    bool shadow;                   /* ms_lua_limits.shadow: no live effect */
    bool permit_refused;           /* a refused sched.permit call was logged */
    uint32_t nreasons;             /* reasons this state interned */
    ms_str too_many;               /* the text once past MS_LUA_MAX_REASONS */
    ms_lua_frame frame;
    char name[128];
    char err[512];
};

/* One call of the dispatcher with the frame filled for `op`: 0, or -1 with
 * s->err set; *killed: the watchdog stopped it, *oom: it hit the memory cap. */
int ms_lua_state_call(ms_lua_state *s, ms_lua_op op, bool *killed, bool *oom);

/* Called by the runtime's Lua side through the FFI (ms_lua_api holds
 * pointers to them, so no dynamic symbol lookup is needed). `s` is the
 * calling state. */
const char *ms_lua_str(const ms_lua_state *s, ms_str id);
ms_str ms_lua_find(const ms_lua_state *s, const char *p, size_t len);
ms_str ms_lua_reason(ms_lua_state *s, const char *p, size_t len);
/* 0 and the exact value (value() as a double, milli) or -1 when malformed. */
int ms_lua_quantity(const char *p, size_t len, double *value, int64_t *milli);
void ms_lua_log(ms_lua_state *s, int level, const char *msg, size_t len);
double ms_lua_now(ms_lua_state *s);
int ms_lua_permit(ms_lua_state *s, const char *uid, int allow, const char *reason);

#endif
