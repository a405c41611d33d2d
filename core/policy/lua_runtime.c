/* The runtime the policies of one scheduler thread share: options, the
 * helper table and the declarations every state loads, and the watchdog
 * thread that stops a call past its CPU budget (lua_runtime.h says how). */
#include "policy/lua_runtime.h"

#include <lauxlib.h>
#include <lua.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "policy/lua_state.h"

/* ---- the watchdog ------------------------------------------------------ */

/* CPU seconds the call in progress may be charged: its thread's clock since
 * cpu_base, which holds at most 1/16 budget from before the call. */
#define BASE_SLACK 0.0625

static double ts_diff(const struct timespec *a, const struct timespec *b) {
    return (double)(a->tv_sec - b->tv_sec) + (double)(a->tv_nsec - b->tv_nsec) * 1e-9;
}

static struct timespec to_timespec(double t) {
    struct timespec ts;
    ts.tv_sec = (time_t)t;
    ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}

static void kill_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    void *ud = NULL;
    lua_getallocf(L, &ud);
    ms_lua_state *s = ud;
    if (!atomic_load_explicit(&s->killed, memory_order_acquire)) {
        lua_sethook(L, NULL, 0, 0);
        return;
    }
    luaL_error(L, "CPU budget exceeded");
}

static double cpu_used(const ms_lua_state *s) {
    struct timespec t;
    if (clock_gettime(s->cpu_clock, &t) != 0) return s->budget * (1 + BASE_SLACK);
    return ts_diff(&t, &s->cpu_base);
}

/* Stops the active calls past their budget; returns when to look again. */
static double look(ms_lua_runtime *rt, double now) {
    double until = now + rt->o.budget;
    for (ms_lua_state *s = rt->active; s; s = s->next_active) {
        if (atomic_load_explicit(&s->killed, memory_order_relaxed)) continue;
        if (now >= s->deadline) {
            double left = s->budget * (1 + BASE_SLACK) - cpu_used(s);
            /* It waited for a CPU: look again when what is left could be
             * spent. */
            if (left > 0) s->deadline = now + (left > 1e-3 ? left : 1e-3);
        }
        if (now < s->deadline) {
            if (s->deadline < until) until = s->deadline;
            continue;
        }
        atomic_store_explicit(&s->killed, true, memory_order_release);
        /* lua_sethook is the one LuaJIT call allowed from another thread;
         * the mutex keeps the owner from clearing it at the same time. */
        lua_sethook(s->L, kill_hook, LUA_MASKCOUNT, 1);
    }
    return until;
}

static void *watchdog_main(void *arg) {
    ms_lua_runtime *rt = arg;
    pthread_mutex_lock(&rt->mu);
    while (!rt->stop) {
        double now = ms_clock_monotonic();
        if (!rt->active && now >= rt->idle_since + 1.0) {
            rt->parked = true;
            pthread_cond_wait(&rt->cv, &rt->mu);
            rt->parked = false;
            continue;
        }
        rt->wake_at = look(rt, now);
        struct timespec until = to_timespec(rt->wake_at);
        pthread_cond_timedwait(&rt->cv, &rt->mu, &until);
    }
    pthread_mutex_unlock(&rt->mu);
    return NULL;
}

void ms_lua_watch(ms_lua_state *s) {
    ms_lua_runtime *rt = s->rt;
    s->oom = false;
    atomic_store_explicit(&s->killed, false, memory_order_relaxed);
    double now = ms_clock_monotonic();
    clockid_t cpu;
    if (pthread_getcpuclockid(pthread_self(), &cpu) != 0) cpu = CLOCK_MONOTONIC;
    if (cpu != s->cpu_clock || now - s->wall_base > s->budget * BASE_SLACK) {
        struct timespec base;
        if (clock_gettime(cpu, &base) != 0) {
            cpu = CLOCK_MONOTONIC;
            base = to_timespec(now);
        }
        pthread_mutex_lock(&rt->mu);
        s->cpu_clock = cpu;
        s->cpu_base = base;
        s->wall_base = now;
    } else {
        pthread_mutex_lock(&rt->mu);
    }
    s->deadline = now + s->budget;
    s->next_active = rt->active;
    rt->active = s;
    /* A parked watchdog, or one that would look too late for this call's
     * (shorter) budget, must look now. */
    if (rt->parked || s->deadline < rt->wake_at) pthread_cond_signal(&rt->cv);
    pthread_mutex_unlock(&rt->mu);
}

bool ms_lua_unwatch(ms_lua_state *s) {
    ms_lua_runtime *rt = s->rt;
    pthread_mutex_lock(&rt->mu);
    for (ms_lua_state **pp = &rt->active; *pp; pp = &(*pp)->next_active)
        if (*pp == s) {
            *pp = s->next_active;
            break;
        }
    s->next_active = NULL;
    if (!rt->active) rt->idle_since = ms_clock_monotonic();
    bool killed = atomic_load_explicit(&s->killed, memory_order_relaxed);
    if (killed) lua_sethook(s->L, NULL, 0, 0);
    pthread_mutex_unlock(&rt->mu);
    return killed;
}

/* ---- the runtime ------------------------------------------------------- */

static void default_log(void *ctx, ms_lua_log_level level, const char *policy, const char *msg) {
    (void)ctx;
    static const char *const names[] = {"info", "warn", "error"};
    fprintf(stderr, "policy %s: %s: %s\n", policy, names[level <= MS_LUA_LOG_ERROR ? level : 0],
            msg);
}

void ms_lua_options_default(ms_lua_options *o) {
    memset(o, 0, sizeof *o);
    o->budget = 0.05;
    o->memory = (size_t)64 << 20;
    o->max_failures = 10;
    o->on_error = MS_POLICY_REJECT;
}

static ms_str api_label(const ms_labels *l, ms_str key) { return ms_labels_get(l, key); }

static bool build_declarations(ms_lua_runtime *rt) {
    ms_buf d = {0}, c = {0};
    if (!ms_lua_abi_build(MS_LUA_ABI_RUNTIME, &d, &c)) {
        ms_buf_free(&d);
        ms_buf_free(&c);
        return false;
    }
    rt->cdef = ms_buf_take(&d);
    rt->checks = ms_buf_take(&c);
    return true;
}

static ms_rc start_watchdog(ms_lua_runtime *rt, ms_error *err) {
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&rt->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&rt->mu, NULL);
    rt->idle_since = ms_clock_monotonic();
    int e = pthread_create(&rt->thread, NULL, watchdog_main, rt);
    if (e != 0)
        return ms_error_set(err, MS_ENOMEM, "lua runtime: cannot start the watchdog: %s",
                            strerror(e));
    rt->started = true;
    return MS_OK;
}

ms_rc ms_lua_runtime_new(const ms_lua_options *o, ms_interner *in, ms_lua_runtime **out,
                         ms_error *err) {
    *out = NULL;
    ms_lua_runtime *rt = calloc(1, sizeof *rt);
    if (!rt) return ms_error_set(err, MS_ENOMEM, "lua runtime: out of memory");
    ms_log_limit_init(&rt->log_limit);
    if (o) rt->o = *o;
    else ms_lua_options_default(&rt->o);
    if (!(rt->o.budget > 0)) rt->o.budget = 0.05;
    if (rt->o.memory == 0) rt->o.memory = (size_t)64 << 20;
    if (!rt->o.log) rt->o.log = default_log;
    rt->in = in;
    rt->api = (ms_lua_api){
        .str = ms_lua_str,
        .find = ms_lua_find,
        .reason = ms_lua_reason,
        .label = api_label,
        .annotation = ms_annotations_get,
        .scalar = ms_resources_scalar,
        .controller = ms_meta_controller,
        .quantity = ms_lua_quantity,
        .log = ms_lua_log,
        .now = ms_lua_now,
        .permit = ms_lua_permit,
    };
    if (!build_declarations(rt)) {
        ms_log_limit_destroy(&rt->log_limit);
        free(rt);
        return ms_error_set(err, MS_ENOMEM, "lua runtime: out of memory");
    }
    ms_rc rc = start_watchdog(rt, err);
    if (rc != MS_OK) {
        ms_lua_runtime_free(rt);
        return rc;
    }
    *out = rt;
    return MS_OK;
}

void ms_lua_runtime_free(ms_lua_runtime *rt) {
    if (!rt) return;
    if (rt->started) {
        pthread_mutex_lock(&rt->mu);
        rt->stop = true;
        pthread_cond_signal(&rt->cv);
        pthread_mutex_unlock(&rt->mu);
        pthread_join(rt->thread, NULL);
    }
    pthread_cond_destroy(&rt->cv);
    pthread_mutex_destroy(&rt->mu);
    ms_log_limit_destroy(&rt->log_limit);
    free(rt->cdef);
    free(rt->checks);
    free(rt);
}

void ms_lua_runtime_log(ms_lua_runtime *rt, ms_lua_log_level level, const char *policy,
                        const char *msg) {
    uint64_t held;
    if (!ms_log_limit_pass(&rt->log_limit, policy, msg, ms_clock_monotonic(), &held)) return;
    if (held == 0) {
        rt->o.log(rt->o.log_ctx, level, policy, msg);
        return;
    }
    char line[2400];
    snprintf(line, sizeof line, "%s (%llu more like it held back)", msg, (unsigned long long)held);
    rt->o.log(rt->o.log_ctx, level, policy, line);
}

const ms_lua_options *ms_lua_runtime_options(const ms_lua_runtime *rt) { return &rt->o; }
