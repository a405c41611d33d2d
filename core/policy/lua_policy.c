/* All C <-> Lua glue for policies: states with a counting allocator, the
 * watchdog, the layouts the FFI views read, the calls per extension point
 * and the plugin adapter. The Lua half lives in lua/moonsched/. */
#include "moonsched/lua_policy.h"

#include <cJSON.h>
#include <errno.h>
#include <lauxlib.h>
#include <lua.h>
#include <luajit.h>
#include <lualib.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/queue.h"
#include "backend/snapshot.h"
#include "base/quantity.h"
#include "moonsched/decode.h"

/* ---- what the Lua side reads ------------------------------------------ */

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

/* Operations; the same numbers are in lua/moonsched/runtime.lua. */
enum {
    OP_PRE_ENQUEUE = 1,
    OP_LESS,
    OP_PRE_FILTER,
    OP_FILTER,
    OP_SCORE,
    OP_RESERVE,
    OP_UNRESERVE,
    OP_PERMIT,
    OP_SELECT_VICTIMS,
    OP_PICK_PREEMPTION,
};

/* One call's arguments and results. Views made during a call carry its
 * epoch; the epoch moves on after every call, so that a view kept past its
 * call raises an error instead of reading memory that may be gone. A
 * double counts exactly to 2^53 calls: a 32-bit count would come back to
 * a kept view's epoch after 2^32 calls (half a day at 100,000 a second). */
typedef struct ms_lua_frame {
    double epoch;
    uint32_t op;
    double cycle;                  /* the cycle's number: a new one gets a fresh `state` */
    const ms_pod *pod;
    const ms_pod *pod2;            /* less: b */
    ms_node_info *const *nodes;    /* filter, score: candidates */
    uint32_t n;
    int32_t result;
    ms_str reason;
    ms_str node_name;              /* reserve, unreserve, permit */
    double number;                 /* permit: seconds to wait */
    const ms_node_info *node;      /* select_victims */
    const ms_snapshot *snap;       /* sched.nodes(); NULL outside a cycle */
    uint8_t *codes;                /* filter: 0 pass, 1 Unschedulable, 2 ...AndUnresolvable */
    ms_str *reasons;               /* filter */
    double *scores;                /* score: raw, or final when the policy normalizes */
    ms_pod *const *cands;          /* select_victims */
    uint32_t ncands;
    uint32_t npicked;
    uint32_t *picked;
    const ms_preemption_option *options;
    uint32_t noptions;
    ms_lua_state *state;
    const ms_lua_api *api;
} ms_lua_frame;

/* The FFI declarations are generated from these tables with the C
 * compiler's offsets and sizes: fields the Lua side does not read become
 * padding, so the headers stay the single source of every layout. Pointers
 * that the runtime turns into views are declared uint64_t (the address). */
typedef struct lfield {
    const char *decl;
    size_t off, size;
} lfield;

typedef struct ltype {
    const char *name;
    size_t size;
    const lfield *fields;
    size_t nfields;
} ltype;

#define F(T, m, decl) {decl, offsetof(T, m), sizeof(((T *)0)->m)}
#define LTYPE(T, arr) {#T, sizeof(T), arr, sizeof arr / sizeof arr[0]}

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
static const lfield f_api[] = {
    F(ms_lua_api, str, "const char *(*str)(const struct ms_lua_state *, uint32_t)"),
    F(ms_lua_api, find, "uint32_t (*find)(const struct ms_lua_state *, const char *, size_t)"),
    F(ms_lua_api, reason, "uint32_t (*reason)(struct ms_lua_state *, const char *, size_t)"),
    F(ms_lua_api, label, "uint32_t (*label)(const ms_labels *, uint32_t)"),
    F(ms_lua_api, annotation, "const char *(*annotation)(const ms_annotations *, uint32_t)"),
    F(ms_lua_api, scalar, "int64_t (*scalar)(const ms_resources *, uint32_t)"),
    F(ms_lua_api, controller, "const ms_owner_ref *(*controller)(const ms_object_meta *)"),
    F(ms_lua_api, quantity, "int (*quantity)(const char *, size_t, double *, int64_t *)"),
    F(ms_lua_api, log, "void (*log)(struct ms_lua_state *, int, const char *, size_t)"),
    F(ms_lua_api, now, "double (*now)(struct ms_lua_state *)"),
    F(ms_lua_api, permit, "int (*permit)(struct ms_lua_state *, const char *, int, const char *)"),
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
    F(ms_lua_frame, state, "struct ms_lua_state *state"),
    F(ms_lua_frame, api, "const ms_lua_api *api"),
};

/* In dependency order: a type is declared before it is embedded. */
static const ltype ltypes[] = {
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
    LTYPE(ms_lua_api, f_api),
    LTYPE(ms_lua_frame, f_frame),
};

typedef struct sbuf {
    char *p;
    size_t len, cap;
    bool oom;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...) {
    if (b->oom) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->oom = true;
            return;
        }
        if (b->p && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = b->cap ? b->cap * 2 : 4096;
        while (cap < b->len + (size_t)n + 1) cap *= 2;
        char *q = realloc(b->p, cap);
        if (!q) {
            b->oom = true;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
}

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

/* cdef: the declarations; checks: "type size" and "type field offset"
 * lines that the runtime verifies with ffi.sizeof / ffi.offsetof. */
static int build_layouts(char **cdef, char **checks) {
    sbuf d = {0}, c = {0};
    for (size_t t = 0; t < sizeof ltypes / sizeof ltypes[0]; t++) {
        const ltype *lt = &ltypes[t];
        sb_printf(&d, "typedef struct %s {\n", lt->name);
        sb_printf(&c, "%s %zu\n", lt->name, lt->size);
        size_t cur = 0;
        for (size_t i = 0; i < lt->nfields; i++) {
            const lfield *f = &lt->fields[i];
            if (f->off < cur) return -1;   /* tables must follow the C order */
            if (f->off > cur) sb_printf(&d, "  uint8_t _pad%zu[%zu];\n", i, f->off - cur);
            sb_printf(&d, "  %s;\n", f->decl);
            char name[64];
            decl_name(f->decl, name, sizeof name);
            sb_printf(&c, "%s %s %zu\n", lt->name, name, f->off);
            cur = f->off + f->size;
        }
        if (lt->size > cur) sb_printf(&d, "  uint8_t _padend[%zu];\n", lt->size - cur);
        sb_printf(&d, "} %s;\n", lt->name);
    }
    if (d.oom || c.oom) {
        free(d.p);
        free(c.p);
        return -1;
    }
    *cdef = d.p;
    *checks = c.p;
    return 0;
}

/* ---- runtime and watchdog --------------------------------------------- */

struct ms_lua_runtime {
    ms_lua_options o;
    ms_interner *in;
    ms_lua_api api;
    char *cdef, *checks;
    _Atomic uint32_t nstates;

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
     * after a second without calls, and the next call wakes it. */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool started, stop, parked;
    ms_lua_state *active;          /* states in a call, linked by next_active */
    struct timespec wake_at;       /* when the watchdog looks again */
    struct timespec idle_since;
};

struct ms_lua_state {
    ms_lua_runtime *rt;
    lua_State *L;
    size_t used, cap;
    double budget;                 /* seconds per call */
    bool oom;                      /* the allocator refused since the call began */
    _Atomic bool killed;           /* the watchdog stopped the current call */
    /* The CPU clock of the thread running the state's calls and a reading
     * of it (cpu_base) taken at wall time wall_base, renewed by a call that
     * starts more than 1/16 budget later: reading a thread's CPU clock is a
     * system call, too dear for every call. The watchdog counts the call's
     * CPU time from cpu_base, at most 1/16 budget too much, which it allows
     * for. `deadline`: when it looks (under rt->mu). */
    clockid_t cpu_clock;
    struct timespec cpu_base, wall_base;
    struct timespec deadline;
    ms_lua_state *next_active;
    int dispatch_ref;
    uint32_t hooks;
    uint32_t nreasons;             /* reasons this state interned */
    ms_str too_many;               /* the text once past MS_LUA_MAX_REASONS */
    ms_lua_frame frame;
    char name[128];
    char err[512];
};

static void ts_add(struct timespec *t, double sec) {
    time_t whole = (time_t)sec;
    long ns = (long)((sec - (double)whole) * 1e9);
    t->tv_sec += whole;
    t->tv_nsec += ns;
    if (t->tv_nsec >= 1000000000L) {
        t->tv_sec++;
        t->tv_nsec -= 1000000000L;
    }
}

static bool ts_before(const struct timespec *a, const struct timespec *b) {
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
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

static double ts_diff(const struct timespec *a, const struct timespec *b) {
    return (double)(a->tv_sec - b->tv_sec) + (double)(a->tv_nsec - b->tv_nsec) * 1e-9;
}

/* CPU seconds the call in progress may be charged: its thread's clock since
 * cpu_base, which holds at most 1/16 budget from before the call. */
#define BASE_SLACK 0.0625

static double cpu_used(const ms_lua_state *s) {
    struct timespec t;
    if (clock_gettime(s->cpu_clock, &t) != 0) return s->budget * (1 + BASE_SLACK);
    return ts_diff(&t, &s->cpu_base);
}

static void *watchdog_main(void *arg) {
    ms_lua_runtime *rt = arg;
    pthread_mutex_lock(&rt->mu);
    while (!rt->stop) {
        struct timespec now, until;
        clock_gettime(CLOCK_MONOTONIC, &now);
        until = now;
        ts_add(&until, rt->o.budget);
        if (!rt->active) {
            struct timespec idle_end = rt->idle_since;
            ts_add(&idle_end, 1.0);
            if (!ts_before(&now, &idle_end)) {
                rt->parked = true;
                pthread_cond_wait(&rt->cv, &rt->mu);
                rt->parked = false;
                continue;
            }
        }
        for (ms_lua_state *s = rt->active; s; s = s->next_active) {
            if (atomic_load_explicit(&s->killed, memory_order_relaxed)) continue;
            if (!ts_before(&now, &s->deadline)) {
                double left = s->budget * (1 + BASE_SLACK) - cpu_used(s);
                if (left > 0) {
                    /* It waited for a CPU: look again when what is left
                     * could be spent. */
                    s->deadline = now;
                    ts_add(&s->deadline, left > 1e-3 ? left : 1e-3);
                }
            }
            if (ts_before(&now, &s->deadline)) {
                if (ts_before(&s->deadline, &until)) until = s->deadline;
                continue;
            }
            atomic_store_explicit(&s->killed, true, memory_order_release);
            /* lua_sethook is the one LuaJIT call allowed from another
             * thread; the mutex keeps the owner from clearing it at the
             * same time. */
            lua_sethook(s->L, kill_hook, LUA_MASKCOUNT, 1);
        }
        rt->wake_at = until;
        pthread_cond_timedwait(&rt->cv, &rt->mu, &until);
    }
    pthread_mutex_unlock(&rt->mu);
    return NULL;
}

static void arm(ms_lua_state *s) {
    ms_lua_runtime *rt = s->rt;
    s->oom = false;
    atomic_store_explicit(&s->killed, false, memory_order_relaxed);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    clockid_t cpu;
    if (pthread_getcpuclockid(pthread_self(), &cpu) != 0) cpu = CLOCK_MONOTONIC;
    if (cpu != s->cpu_clock || ts_diff(&now, &s->wall_base) > s->budget * BASE_SLACK) {
        struct timespec base;
        if (clock_gettime(cpu, &base) != 0) {
            cpu = CLOCK_MONOTONIC;
            base = now;
        }
        pthread_mutex_lock(&rt->mu);
        s->cpu_clock = cpu;
        s->cpu_base = base;
        s->wall_base = now;
    } else {
        pthread_mutex_lock(&rt->mu);
    }
    s->deadline = now;
    ts_add(&s->deadline, s->budget);
    s->next_active = rt->active;
    rt->active = s;
    /* A parked watchdog, or one that would look too late for this call's
     * (shorter) budget, must look now. */
    if (rt->parked || ts_before(&s->deadline, &rt->wake_at)) pthread_cond_signal(&rt->cv);
    pthread_mutex_unlock(&rt->mu);
}

static bool disarm(ms_lua_state *s) {
    ms_lua_runtime *rt = s->rt;
    pthread_mutex_lock(&rt->mu);
    for (ms_lua_state **pp = &rt->active; *pp; pp = &(*pp)->next_active)
        if (*pp == s) {
            *pp = s->next_active;
            break;
        }
    s->next_active = NULL;
    if (!rt->active) clock_gettime(CLOCK_MONOTONIC, &rt->idle_since);
    bool killed = atomic_load_explicit(&s->killed, memory_order_relaxed);
    if (killed) lua_sethook(s->L, NULL, 0, 0);
    pthread_mutex_unlock(&rt->mu);
    return killed;
}

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

ms_rc ms_lua_runtime_new(const ms_lua_options *o, ms_interner *in, ms_lua_runtime **out,
                         ms_error *err) {
    *out = NULL;
    ms_lua_runtime *rt = calloc(1, sizeof *rt);
    if (!rt) return ms_error_set(err, MS_ENOMEM, "lua runtime: out of memory");
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
    if (build_layouts(&rt->cdef, &rt->checks) != 0) {
        free(rt);
        return ms_error_set(err, MS_ENOMEM, "lua runtime: out of memory");
    }
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&rt->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&rt->mu, NULL);
    clock_gettime(CLOCK_MONOTONIC, &rt->idle_since);
    int e = pthread_create(&rt->thread, NULL, watchdog_main, rt);
    if (e != 0) {
        ms_lua_runtime_free(rt);
        return ms_error_set(err, MS_ENOMEM, "lua runtime: cannot start the watchdog: %s",
                            strerror(e));
    }
    rt->started = true;
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
    free(rt->cdef);
    free(rt->checks);
    free(rt);
}

const ms_lua_options *ms_lua_runtime_options(const ms_lua_runtime *rt) { return &rt->o; }

/* ---- helpers called from Lua ------------------------------------------ */

const char *ms_lua_str(const ms_lua_state *s, ms_str id) { return ms_str_get(s->rt->in, id); }

ms_str ms_lua_find(const ms_lua_state *s, const char *p, size_t len) {
    return ms_intern_find(s->rt->in, p, len);
}

ms_str ms_lua_reason(ms_lua_state *s, const char *p, size_t len) {
    if (len > 1024) len = 1024;   /* a reason is one line of a message */
    ms_str id = ms_intern_find(s->rt->in, p, len);
    if (id != MS_STR_NONE) return id;
    if (s->nreasons >= MS_LUA_MAX_REASONS) {
        if (s->too_many == MS_STR_NONE) {
            char buf[256];
            snprintf(buf, sizeof buf, "policy %s: too many distinct reasons", s->name);
            s->too_many = ms_intern_cstr(s->rt->in, buf);
        }
        return s->too_many;
    }
    s->nreasons++;
    return ms_intern(s->rt->in, p, len);
}

int ms_lua_quantity(const char *p, size_t len, double *value, int64_t *milli) {
    ms_quantity q;
    if (ms_quantity_parse(p, len, &q, NULL) != MS_OK) return -1;
    /* The exact value as a double: milli / 1000 unless that saturated. */
    *milli = q.milli;
    *value = (q.milli == INT64_MAX || q.milli == INT64_MIN) ? (double)q.value
                                                            : (double)q.milli / 1000.0;
    return 0;
}

void ms_lua_log(ms_lua_state *s, int level, const char *msg, size_t len) {
    char buf[2048];
    if (len >= sizeof buf) len = sizeof buf - 1;
    memcpy(buf, msg, len);
    buf[len] = 0;
    if (level < MS_LUA_LOG_INFO || level > MS_LUA_LOG_ERROR) level = MS_LUA_LOG_INFO;
    s->rt->o.log(s->rt->o.log_ctx, (ms_lua_log_level)level, s->name, buf);
}

double ms_lua_now(ms_lua_state *s) {
    if (s->rt->o.now) return s->rt->o.now(s->rt->o.now_ctx);
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int ms_lua_permit(ms_lua_state *s, const char *uid, int allow, const char *reason) {
    if (!s->rt->o.permit) return 0;
    return s->rt->o.permit(s->rt->o.permit_ctx, uid, allow != 0, reason) ? 1 : 0;
}

/* ---- states ------------------------------------------------------------ */

/* Counts what the state holds and refuses growth past the cap; LuaJIT turns
 * the refusal into a "not enough memory" error in the policy. Shrinking and
 * freeing always succeed. */
static void *state_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    ms_lua_state *s = ud;
    if (nsize == 0) {
        free(ptr);
        s->used -= osize;
        return NULL;
    }
    size_t old = ptr ? osize : 0;
    if (nsize > old && s->used - old + nsize > s->cap) {
        s->oom = true;
        return NULL;
    }
    void *q = realloc(ptr, nsize);
    if (!q) {
        s->oom = true;
        return NULL;
    }
    s->used = s->used - old + nsize;
    return q;
}

static int panic(lua_State *L) {
    /* Every call into Lua is protected; reaching this is a bug. */
    fprintf(stderr, "moonsched: unprotected Lua error: %s\n", lua_tostring(L, -1));
    return 0;
}

/* cJSON args -> a plain table (null members are left out). */
static void push_json(lua_State *L, const cJSON *j, int depth) {
    if (depth > 64) luaL_error(L, "args: nested too deeply");
    luaL_checkstack(L, 4, "args");
    if (cJSON_IsString(j)) lua_pushstring(L, j->valuestring);
    else if (cJSON_IsNumber(j)) lua_pushnumber(L, j->valuedouble);
    else if (cJSON_IsBool(j)) lua_pushboolean(L, cJSON_IsTrue(j));
    else if (cJSON_IsArray(j)) {
        lua_createtable(L, cJSON_GetArraySize(j), 0);
        int i = 1;
        for (const cJSON *e = j->child; e; e = e->next, i++) {
            if (cJSON_IsNull(e)) continue;
            push_json(L, e, depth + 1);
            lua_rawseti(L, -2, i);
        }
    } else if (cJSON_IsObject(j)) {
        lua_createtable(L, 0, 4);
        for (const cJSON *e = j->child; e; e = e->next) {
            if (cJSON_IsNull(e) || !e->string) continue;
            push_json(L, e, depth + 1);
            lua_setfield(L, -2, e->string);
        }
    } else lua_pushnil(L);
}

typedef struct load_ctx {
    ms_lua_state *s;
    const char *chunkname, *src;
    size_t len;
    const cJSON *args;
} load_ctx;

static void open_lib(lua_State *L, const char *name, lua_CFunction fn) {
    lua_pushcfunction(L, fn);
    lua_pushstring(L, name);
    lua_call(L, 1, 0);
}

/* Runs protected: libraries (no io, no debug), the embedded modules as
 * package.preload entries, then runtime.start, which builds the sandbox,
 * loads the policy and runs init. */
static int load_protected(lua_State *L) {
    load_ctx *lc = lua_touserdata(L, 1);
    ms_lua_state *s = lc->s;
    open_lib(L, "", luaopen_base);
    open_lib(L, LUA_LOADLIBNAME, luaopen_package);
    open_lib(L, LUA_TABLIBNAME, luaopen_table);
    open_lib(L, LUA_STRLIBNAME, luaopen_string);
    open_lib(L, LUA_MATHLIBNAME, luaopen_math);
    open_lib(L, LUA_OSLIBNAME, luaopen_os);
    open_lib(L, LUA_BITLIBNAME, luaopen_bit);
    open_lib(L, LUA_JITLIBNAME, luaopen_jit);

    lua_getglobal(L, "package");
    lua_getfield(L, -1, "preload");
    lua_pushcfunction(L, luaopen_ffi);
    lua_setfield(L, -2, "ffi");
    for (const ms_lua_module *m = ms_lua_modules; m->name; m++) {
        if (luaL_loadbuffer(L, m->src, m->len, m->chunkname) != 0) lua_error(L);
        lua_setfield(L, -2, m->name);
    }
    lua_pop(L, 2);

    lua_getglobal(L, "require");
    lua_pushstring(L, "moonsched.runtime");
    lua_call(L, 1, 1);
    lua_getfield(L, -1, "start");
    lua_pushlightuserdata(L, &s->frame);
    lua_pushstring(L, s->rt->cdef);
    lua_pushstring(L, s->rt->checks);
    lua_pushstring(L, lc->chunkname);
    lua_pushlstring(L, lc->src, lc->len);
    if (lc->args) push_json(L, lc->args, 0);
    else lua_newtable(L);
    lua_call(L, 6, 3);
    /* dispatcher, name, hooks */
    s->hooks = (uint32_t)lua_tointeger(L, -1);
    snprintf(s->name, sizeof s->name, "%s", lua_tostring(L, -2));
    lua_pop(L, 2);
    s->dispatch_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    return 0;
}

/* The error on top of the stack, as text; not tostring on a table error
 * object: its __tostring would be policy code running outside any budget. */
static const char *error_text(lua_State *L) {
    int t = lua_type(L, -1);
    if (t == LUA_TSTRING || t == LUA_TNUMBER) return lua_tostring(L, -1);
    return lua_typename(L, t);
}

static void set_call_error(ms_lua_state *s, bool killed, int rc) {
    lua_State *L = s->L;
    if (killed)
        snprintf(s->err, sizeof s->err, "policy %s: stopped after its CPU budget of %g ms",
                 s->name, s->budget * 1e3);
    else if (rc == LUA_ERRMEM || s->oom)
        snprintf(s->err, sizeof s->err, "policy %s: exceeded its memory cap of %zu KiB", s->name,
                 s->cap >> 10);
    else if (lua_type(L, -1) == LUA_TSTRING || lua_type(L, -1) == LUA_TNUMBER)
        snprintf(s->err, sizeof s->err, "policy %s: %s", s->name, lua_tostring(L, -1));
    else
        snprintf(s->err, sizeof s->err, "policy %s: (error object is a %s value)", s->name,
                 error_text(L));
}

void ms_lua_limits_default(ms_lua_limits *l) {
    l->budget = 0;
    l->memory = 0;
    l->max_failures = -1;
    l->on_error = -1;
}

ms_rc ms_lua_state_load_ex(ms_lua_runtime *rt, const ms_lua_limits *lim, const char *chunkname,
                           const char *src, size_t len, const cJSON *args, ms_lua_state **out,
                           ms_error *err) {
    *out = NULL;
    ms_lua_state *s = calloc(1, sizeof *s);
    if (!s) return ms_error_set(err, MS_ENOMEM, "policy: out of memory");
    s->rt = rt;
    s->cap = lim && lim->memory ? lim->memory : rt->o.memory;
    s->budget = lim && lim->budget > 0 ? lim->budget : rt->o.budget;
    s->dispatch_ref = LUA_NOREF;
    snprintf(s->name, sizeof s->name, "%s", chunkname && *chunkname == '@' ? chunkname + 1 : "?");
    s->frame.state = s;
    s->frame.api = &rt->api;
    s->L = lua_newstate(state_alloc, s);
    if (!s->L) {
        free(s);
        return ms_error_set(err, MS_ENOMEM, "policy %s: cannot create a Lua state", chunkname);
    }
    lua_atpanic(s->L, panic);
    atomic_fetch_add(&rt->nstates, 1);
    load_ctx lc = {s, chunkname ? chunkname : "=policy", src, len, args};
    arm(s);
    int rc = lua_cpcall(s->L, load_protected, &lc);
    bool killed = disarm(s);
    if (rc != 0) {
        set_call_error(s, killed, rc);
        /* "policy FILE: FILE:3: ..." says the file twice. */
        const char *msg = s->err;
        size_t nlen = strlen(s->name);
        if (strncmp(msg, "policy ", 7) == 0 && strncmp(msg + 7, s->name, nlen) == 0 &&
            strncmp(msg + 7 + nlen, ": ", 2) == 0 && strncmp(msg + 9 + nlen, s->name, nlen) == 0)
            msg += 9 + nlen;
        ms_error_set(err, rc == LUA_ERRMEM || s->oom ? MS_ENOMEM : MS_EINVAL, "%s", msg);
        ms_lua_state_free(s);
        return err ? err->rc : MS_EINVAL;
    }
    lua_settop(s->L, 0);
    s->err[0] = 0;
    /* Room for the dispatcher and its error on every call. */
    lua_checkstack(s->L, 8);
    *out = s;
    return MS_OK;
}

ms_rc ms_lua_state_load(ms_lua_runtime *rt, const char *chunkname, const char *src, size_t len,
                        const cJSON *args, ms_lua_state **out, ms_error *err) {
    return ms_lua_state_load_ex(rt, NULL, chunkname, src, len, args, out, err);
}

#define MAX_POLICY_FILE ((size_t)64 << 20)   /* a policy is a text file, not data */

ms_rc ms_lua_read_file(const char *path, char **out, size_t *len, ms_error *err) {
    return ms_read_file(path, MAX_POLICY_FILE, out, len, err);
}

ms_rc ms_lua_state_load_file_ex(ms_lua_runtime *rt, const ms_lua_limits *lim, const char *path,
                                const cJSON *args, ms_lua_state **out, ms_error *err) {
    *out = NULL;
    char *buf;
    size_t len;
    ms_rc rc = ms_lua_read_file(path, &buf, &len, err);
    if (rc != MS_OK) return rc;
    size_t n = strlen(path) + 2;
    char *chunk = malloc(n);
    if (!chunk) {
        free(buf);
        return ms_error_set(err, MS_ENOMEM, "%s: out of memory", path);
    }
    snprintf(chunk, n, "@%s", path);
    rc = ms_lua_state_load_ex(rt, lim, chunk, buf, len, args, out, err);
    free(chunk);
    free(buf);
    return rc;
}

ms_rc ms_lua_state_load_file(ms_lua_runtime *rt, const char *path, const cJSON *args,
                             ms_lua_state **out, ms_error *err) {
    return ms_lua_state_load_file_ex(rt, NULL, path, args, out, err);
}

void ms_lua_state_free(ms_lua_state *s) {
    if (!s) return;
    if (s->L) {
        /* The watchdog never touches a state outside a call, and this one
         * is not in a call: closing needs no lock. */
        lua_close(s->L);
        atomic_fetch_sub(&s->rt->nstates, 1);
    }
    free(s);
}

const char *ms_lua_state_name(const ms_lua_state *s) { return s->name; }
uint32_t ms_lua_state_hooks(const ms_lua_state *s) { return s->hooks; }
size_t ms_lua_state_memory(const ms_lua_state *s) { return s->used; }

/* One call: the frame is filled; 0, or -1 with s->err set. */
static int state_call(ms_lua_state *s, uint32_t op, bool *killed_out, bool *oom_out) {
    lua_State *L = s->L;
    s->frame.op = op;
    arm(s);
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->dispatch_ref);
    int rc = lua_pcall(L, 0, 0, 0);
    bool killed = disarm(s);
    s->frame.epoch++;
    *killed_out = killed;
    *oom_out = false;
    if (rc == 0 && !killed) return 0;
    if (rc == 0) lua_pushstring(L, "CPU budget exceeded");
    bool oom = rc == LUA_ERRMEM || s->oom;
    set_call_error(s, killed, rc);
    lua_settop(L, 0);
    /* After the cap was hit, give back what the failed call left behind. */
    if (oom) lua_gc(L, LUA_GCCOLLECT, 0);
    *oom_out = oom && !killed;
    return -1;
}

/* ---- policies as plugins ---------------------------------------------- */

struct ms_policy {
    ms_plugin_ops ops;
    ms_lua_runtime *rt;
    ms_lua_state *cur;
    bool disabled;
    uint8_t on_error;              /* ms_policy_on_error */
    uint32_t max_failures;
    ms_policy_stats stats;
    ms_str fail_reason;            /* the last failure, interned for statuses */
    char name[128];                /* the plugin name */
    char last_error[512];
};

static ms_code pol_pre_filter(void *self, ms_cycle *c, ms_status *st);
static ms_code pol_filter_batch(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n,
                                ms_status *statuses);
static ms_code pol_score(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n,
                         int64_t *scores, ms_status *st);
static ms_code pol_reserve(void *self, ms_cycle *c, ms_str node, ms_status *st);
static void pol_unreserve(void *self, ms_cycle *c, ms_str node);
static ms_code pol_permit(void *self, ms_cycle *c, ms_str node, double *timeout, ms_status *st);
static bool pol_pre_enqueue(void *self, const ms_pod *pod, const char **reason);
static bool pol_less(void *self, const ms_queued_pod *a, const ms_queued_pod *b);

/* The extension points a version with `hooks` serves: an entry per hook
 * it defines, none for the others, so that the framework calls nothing in
 * vain and a reload that adds or removes hooks changes the points (after
 * the scheduler re-derives them, ms_scheduler_plugin_reloaded). */
static void wire(const ms_policy *p, uint32_t h, ms_plugin_ops *o) {
    memset(o, 0, sizeof *o);
    o->name = p->name;
    o->ctx = (void *)p;
    /* Any cluster event may change a policy's mind (0: all). */
    o->events = 0;
    if (h & MS_LUA_HOOK_PRE_ENQUEUE) o->pre_enqueue = pol_pre_enqueue;
    if (h & MS_LUA_HOOK_LESS) o->less = pol_less;
    if (h & MS_LUA_HOOK_PRE_FILTER) o->pre_filter = pol_pre_filter;
    if (h & MS_LUA_HOOK_FILTER) o->filter_batch = pol_filter_batch;
    if (h & MS_LUA_HOOK_SCORE) o->score = pol_score;
    if (h & MS_LUA_HOOK_RESERVE) o->reserve = pol_reserve;
    if (h & MS_LUA_HOOK_UNRESERVE) o->unreserve = pol_unreserve;
    /* The framework runs Unreserve only for plugins at the Reserve point. */
    if ((h & MS_LUA_HOOK_UNRESERVE) && !(h & MS_LUA_HOOK_RESERVE)) o->reserve = pol_reserve;
    if (h & MS_LUA_HOOK_PERMIT) o->permit = pol_permit;
}

ms_rc ms_policy_new_ex(ms_lua_runtime *rt, ms_lua_state *first, const char *plugin_name,
                       const ms_lua_limits *lim, ms_policy **out, ms_error *err) {
    *out = NULL;
    const char *name = plugin_name && *plugin_name ? plugin_name : first->name;
    if (strlen(name) >= sizeof ((ms_policy *)0)->name) {
        ms_lua_state_free(first);
        return ms_error_set(err, MS_EINVAL, "policy: the name \"%.40s...\" is too long", name);
    }
    ms_policy *p = calloc(1, sizeof *p);
    if (!p) {
        ms_lua_state_free(first);
        return ms_error_set(err, MS_ENOMEM, "policy: out of memory");
    }
    p->rt = rt;
    p->cur = first;
    snprintf(p->name, sizeof p->name, "%s", name);
    p->on_error = lim && lim->on_error >= 0 ? (uint8_t)lim->on_error : rt->o.on_error;
    p->max_failures = lim && lim->max_failures >= 0 ? (uint32_t)lim->max_failures
                                                    : rt->o.max_failures;
    wire(p, first->hooks, &p->ops);
    *out = p;
    return MS_OK;
}

ms_rc ms_policy_new(ms_lua_runtime *rt, ms_lua_state *first, ms_policy **out, ms_error *err) {
    return ms_policy_new_ex(rt, first, NULL, NULL, out, err);
}

void ms_policy_free(ms_policy *p) {
    if (!p) return;
    ms_lua_state_free(p->cur);
    free(p);
}

ms_lua_state *ms_policy_swap(ms_policy *p, ms_lua_state *next) {
    ms_lua_state *old = p->cur;
    p->cur = next;
    p->disabled = false;
    p->stats.consecutive = 0;
    p->stats.reloads_ok++;
    wire(p, next->hooks, &p->ops);
    return old;
}

void ms_policy_ops_for(const ms_policy *p, uint32_t hooks, ms_plugin_ops *out) {
    wire(p, hooks, out);
}

void ms_policy_reload_failed(ms_policy *p) { p->stats.reloads_failed++; }

const ms_lua_state *ms_policy_state(const ms_policy *p) { return p->cur; }
const ms_plugin_ops *ms_policy_ops(ms_policy *p) { return &p->ops; }
const char *ms_policy_name(const ms_policy *p) { return p->name; }
uint32_t ms_policy_hooks(const ms_policy *p) { return p->cur->hooks; }
bool ms_policy_disabled(const ms_policy *p) { return p->disabled; }
const char *ms_policy_last_error(const ms_policy *p) { return p->last_error; }
void ms_policy_get_stats(const ms_policy *p, ms_policy_stats *out) { *out = p->stats; }

/* Starts a call: frame cleared of the last call's arguments. */
static ms_lua_frame *begin(ms_policy *p, const ms_cycle *c) {
    ms_lua_frame *f = &p->cur->frame;
    double epoch = f->epoch;
    ms_lua_state *s = f->state;
    const ms_lua_api *api = f->api;
    memset(f, 0, sizeof *f);
    f->epoch = epoch;
    f->state = s;
    f->api = api;
    if (c) {
        f->cycle = (double)c->cycle;
        f->snap = c->snap;
        f->pod = c->pod;
    }
    return f;
}

/* Runs the call; on failure counts it, and past max_failures disables
 * the policy. Returns 0 or -1. */
static int run(ms_policy *p, uint32_t op) {
    ms_lua_state *s = p->cur;
    bool killed, oom;
    p->stats.calls++;
    if (state_call(s, op, &killed, &oom) == 0) {
        p->stats.consecutive = 0;
        return 0;
    }
    p->stats.failures++;
    p->stats.consecutive++;
    if (killed) p->stats.budget_kills++;
    if (oom) p->stats.memory_errors++;
    snprintf(p->last_error, sizeof p->last_error, "%s", s->err);
    p->fail_reason = ms_lua_reason(s, s->err, strlen(s->err));
    ms_lua_runtime *rt = p->rt;
    /* The log line is tagged with the policy already. */
    size_t skip = strlen("policy ") + strlen(s->name) + 2;
    rt->o.log(rt->o.log_ctx, MS_LUA_LOG_ERROR, p->name,
              strlen(s->err) > skip ? s->err + skip : s->err);
    uint32_t max = p->max_failures;
    if (max && p->stats.consecutive >= max && !p->disabled) {
        p->disabled = true;
        p->stats.disabled++;
        char why[640];
        snprintf(why, sizeof why, "disabled after %u consecutive failures; the last: %s",
                 p->stats.consecutive, s->err);
        rt->o.log(rt->o.log_ctx, MS_LUA_LOG_ERROR, p->name, why);
        if (rt->o.disabled) rt->o.disabled(rt->o.disabled_ctx, p, why);
    }
    return -1;
}

static const char *fail_text(const ms_policy *p) {
    return p->fail_reason ? ms_str_get(p->rt->in, p->fail_reason) : p->last_error;
}

static bool skipping(const ms_policy *p) { return p->on_error == MS_POLICY_SKIP; }

static bool pol_pre_enqueue(void *self, const ms_pod *pod, const char **reason) {
    ms_policy *p = self;
    if (p->disabled) return true;
    ms_lua_frame *f = begin(p, NULL);
    f->pod = pod;
    if (run(p, OP_PRE_ENQUEUE) != 0) {
        if (skipping(p)) return true;
        if (reason) *reason = fail_text(p);
        return false;
    }
    if (f->result) return true;
    if (reason) *reason = f->reason ? ms_str_get(p->rt->in, f->reason) : NULL;
    return false;
}

/* PrioritySort's order, for a disabled or failing QueueSort policy. */
static bool fallback_less(const ms_queued_pod *a, const ms_queued_pod *b) {
    if (a->pod->priority != b->pod->priority) return a->pod->priority > b->pod->priority;
    return a->timestamp < b->timestamp;
}

static bool pol_less(void *self, const ms_queued_pod *a, const ms_queued_pod *b) {
    ms_policy *p = self;
    if (p->disabled) return fallback_less(a, b);
    ms_lua_frame *f = begin(p, NULL);
    f->pod = a->pod;
    f->pod2 = b->pod;
    if (run(p, OP_LESS) != 0) return fallback_less(a, b);
    return f->result != 0;
}

static ms_code reject(ms_policy *p, ms_status *st) {
    ms_status_set(st, MS_UNSCHEDULABLE, fail_text(p));
    return MS_UNSCHEDULABLE;
}

/* pre_filter results: 0 go on, 1 reject, 2 skip, 3 reject unresolvable. */
static ms_code pol_pre_filter(void *self, ms_cycle *c, ms_status *st) {
    ms_policy *p = self;
    if (p->disabled) return MS_SKIP;
    ms_lua_frame *f = begin(p, c);
    if (run(p, OP_PRE_FILTER) != 0) return skipping(p) ? MS_SKIP : reject(p, st);
    switch (f->result) {
    case 0: return MS_SUCCESS;
    case 2:
        /* "skip" skips this policy's Score too: the framework skips Filter
         * for a PreFilter Skip, Score for a PreScore one. */
        if (c->current < 64) c->skip_score |= 1ull << c->current;
        return MS_SKIP;
    default: break;
    }
    ms_code code = f->result == 3 ? MS_UNSCHEDULABLE_AND_UNRESOLVABLE : MS_UNSCHEDULABLE;
    return ms_status_set(st, code, f->reason ? ms_str_get(p->rt->in, f->reason) : NULL);
}

static ms_code pol_filter_batch(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n,
                                ms_status *statuses) {
    ms_policy *p = self;
    if (p->disabled || n == 0) {
        for (uint32_t i = 0; i < n; i++) ms_status_ok(&statuses[i]);
        return MS_SUCCESS;
    }
    uint8_t *codes = MS_ARENA_NEW(c->arena, uint8_t, n);
    ms_str *reasons = MS_ARENA_NEW(c->arena, ms_str, n);
    if (!codes || !reasons) {
        for (uint32_t i = 0; i < n; i++) ms_status_set(&statuses[i], MS_ERROR, "out of memory");
        return MS_ERROR;
    }
    ms_lua_frame *f = begin(p, c);
    f->nodes = nodes;
    f->n = n;
    f->codes = codes;
    f->reasons = reasons;
    if (run(p, OP_FILTER) != 0) {
        bool skip = skipping(p);
        const char *why = fail_text(p);
        for (uint32_t i = 0; i < n; i++) {
            if (skip) ms_status_ok(&statuses[i]);
            else ms_status_set(&statuses[i], MS_UNSCHEDULABLE, why);
        }
        return MS_SUCCESS;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (codes[i] == 0) {
            ms_status_ok(&statuses[i]);
            continue;
        }
        ms_code code = codes[i] == 2 ? MS_UNSCHEDULABLE_AND_UNRESOLVABLE : MS_UNSCHEDULABLE;
        ms_status_set(&statuses[i], code, ms_str_get(p->rt->in, reasons[i]));
    }
    return MS_SUCCESS;
}

void ms_lua_normalize(const double *raw, uint32_t n, int64_t *out) {
    if (n == 0) return;
    double lo = 0, hi = raw[0];
    for (uint32_t i = 0; i < n; i++) {
        if (raw[i] < lo) lo = raw[i];
        if (raw[i] > hi) hi = raw[i];
    }
    if (!(hi > lo)) {
        for (uint32_t i = 0; i < n; i++) out[i] = 0;
        return;
    }
    double k = (double)MS_MAX_NODE_SCORE / (hi - lo);
    for (uint32_t i = 0; i < n; i++) out[i] = (int64_t)llround((raw[i] - lo) * k);
}

/* The runtime sets result 1 when the policy normalized the scores itself. */
static ms_code pol_score(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n,
                         int64_t *scores, ms_status *st) {
    ms_policy *p = self;
    if (p->disabled || n == 0) {
        for (uint32_t i = 0; i < n; i++) scores[i] = 0;
        return MS_SUCCESS;
    }
    double *raw = MS_ARENA_NEW(c->arena, double, n);
    if (!raw) return ms_status_set(st, MS_ERROR, "out of memory");
    ms_lua_frame *f = begin(p, c);
    f->nodes = nodes;
    f->n = n;
    f->scores = raw;
    if (run(p, OP_SCORE) != 0) {
        for (uint32_t i = 0; i < n; i++) scores[i] = 0;
        if (skipping(p)) return MS_SUCCESS;
        return ms_status_set(st, MS_ERROR, fail_text(p));
    }
    if (f->result == 0) {
        ms_lua_normalize(raw, n, scores);
        return MS_SUCCESS;
    }
    for (uint32_t i = 0; i < n; i++) {
        double v = raw[i];
        if (!(v >= MS_MIN_NODE_SCORE && v <= MS_MAX_NODE_SCORE)) {
            char buf[256];
            snprintf(buf, sizeof buf, "policy %s: normalize left a score of %g, outside [0, 100]",
                     p->name, v);
            return ms_status_set(st, MS_ERROR, ms_str_get(p->rt->in, ms_lua_reason(p->cur, buf, strlen(buf))));
        }
        scores[i] = (int64_t)llround(v);
    }
    return MS_SUCCESS;
}

static ms_code pol_reserve(void *self, ms_cycle *c, ms_str node, ms_status *st) {
    ms_policy *p = self;
    if (p->disabled || !(p->cur->hooks & MS_LUA_HOOK_RESERVE)) return MS_SUCCESS;
    ms_lua_frame *f = begin(p, c);
    f->node_name = node;
    if (run(p, OP_RESERVE) != 0) return skipping(p) ? MS_SUCCESS : reject(p, st);
    if (f->result == 0) return MS_SUCCESS;
    return ms_status_set(st, MS_UNSCHEDULABLE,
                         f->reason ? ms_str_get(p->rt->in, f->reason) : NULL);
}

static void pol_unreserve(void *self, ms_cycle *c, ms_str node) {
    ms_policy *p = self;
    if (p->disabled) return;
    ms_lua_frame *f = begin(p, c);
    f->node_name = node;
    run(p, OP_UNRESERVE);
}

/* permit results: 0 allow, 1 deny, 2 wait (number = seconds). */
static ms_code pol_permit(void *self, ms_cycle *c, ms_str node, double *timeout, ms_status *st) {
    ms_policy *p = self;
    *timeout = 0;
    if (p->disabled) return MS_SUCCESS;
    ms_lua_frame *f = begin(p, c);
    f->node_name = node;
    if (run(p, OP_PERMIT) != 0) return skipping(p) ? MS_SUCCESS : reject(p, st);
    switch (f->result) {
    case 0: return MS_SUCCESS;
    case 2: *timeout = f->number; return ms_status_set(st, MS_WAIT, NULL);
    default: break;
    }
    return ms_status_set(st, MS_UNSCHEDULABLE,
                         f->reason ? ms_str_get(p->rt->in, f->reason) : NULL);
}

ms_code ms_policy_select_victims(ms_policy *p, ms_cycle *c, const ms_node_info *ni,
                                 ms_pod *const *candidates, uint32_t ncandidates,
                                 uint32_t *victims, uint32_t *nvictims, ms_status *st) {
    *nvictims = 0;
    if (p->disabled || !(p->cur->hooks & MS_LUA_HOOK_SELECT_VICTIMS)) return MS_SKIP;
    ms_lua_frame *f = begin(p, c);
    f->node = ni;
    f->cands = candidates;
    f->ncands = ncandidates;
    f->picked = victims;
    if (run(p, OP_SELECT_VICTIMS) != 0) {
        if (skipping(p)) return MS_SKIP;
        return ms_status_set(st, MS_ERROR, fail_text(p));
    }
    if (f->result == 0) return ms_status_set(st, MS_UNSCHEDULABLE, NULL);
    *nvictims = f->npicked;
    return MS_SUCCESS;
}

ms_code ms_policy_pick_preemption(ms_policy *p, ms_cycle *c, const ms_preemption_option *options,
                                  uint32_t noptions, uint32_t *chosen, ms_status *st) {
    *chosen = 0;
    if (p->disabled || noptions == 0 || !(p->cur->hooks & MS_LUA_HOOK_PICK_PREEMPTION))
        return MS_SKIP;
    ms_lua_frame *f = begin(p, c);
    f->options = options;
    f->noptions = noptions;
    if (run(p, OP_PICK_PREEMPTION) != 0) {
        if (skipping(p)) return MS_SKIP;
        return ms_status_set(st, MS_ERROR, fail_text(p));
    }
    if (f->result <= 0) return MS_SKIP;
    *chosen = (uint32_t)f->result - 1;
    return MS_SUCCESS;
}
