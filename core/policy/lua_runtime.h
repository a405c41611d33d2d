/* What the policies of one scheduler thread share (options, interner, the
 * helper table and declarations handed to each state) and the watchdog
 * that stops a call past its CPU budget. */
#ifndef MOONSCHED_POLICY_LUA_RUNTIME_H
#define MOONSCHED_POLICY_LUA_RUNTIME_H

#include <pthread.h>
#include <stdbool.h>

#include "moonsched/lua_policy.h"
#include "policy/log_limit.h"
#include "policy/lua_abi.h"

struct ms_lua_runtime {
    ms_lua_options o;
    ms_interner *in;
    ms_lua_api api;
    char *cdef, *checks;           /* MS_LUA_ABI_RUNTIME's declarations */

    /* The watchdog. Calls may run on more than one thread at once (the
     * scheduler thread's hooks, a reload's file and init on the watcher
     * thread): each state in a call is on the `active` list. The budget is
     * CPU time of the thread running the call, so that a call is not
     * stopped because its thread waited for a CPU (a busy machine, a reload
     * compiling on the other thread). The watchdog looks at a call when
     * its budget has passed in wall time (CPU time cannot pass faster), and
     * again later for what is left of it. Past the budget, it sets a count
     * hook that raises an error at every instruction until the call
     * returns, so that no pcall inside the policy can swallow it. It parks
     * after a second without calls, and the next call wakes it. Times are
     * ms_clock_monotonic seconds. */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool started, stop, parked;
    ms_lua_state *active;          /* states in a call, linked by next_active */
    double wake_at;                /* when the watchdog looks again */
    double idle_since;
    ms_log_limit log_limit;        /* for ms_lua_runtime_log */
};

/* A policy's failure or sched.log line through o.log, rate-limited per
 * policy and message (policy/log_limit.h). Lines that must not be lost
 * (a policy disabled) go to o.log directly. */
void ms_lua_runtime_log(ms_lua_runtime *rt, ms_lua_log_level level, const char *policy,
                        const char *msg);

/* The runtime's Lua sources, compiled into the library by lua/embed.sh.
 * name is the module name ("moonsched.views"); the list ends with name NULL. */
typedef struct ms_lua_module {
    const char *name;
    const char *chunkname;         /* "@lua/moonsched/views.lua", for error messages */
    const char *src;
    size_t len;
} ms_lua_module;
extern const ms_lua_module ms_lua_modules[];

/* A call of s begins: the watchdog watches it from now on. */
void ms_lua_watch(ms_lua_state *s);
/* The call ended; true when the watchdog stopped it. */
bool ms_lua_unwatch(ms_lua_state *s);

#endif
