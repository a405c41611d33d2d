/* One loaded version of one policy: a lua_State with a counting allocator
 * and the sandbox, loaded by running the runtime's start (declarations,
 * sandbox, the file, init), then called once per extension point through
 * the dispatcher it returned. Also the helpers the Lua side calls back. */
#include "policy/lua_state.h"

#include <cJSON.h>
#include <lauxlib.h>
#include <luajit.h>
#include <lualib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/quantity.h"
#include "moonsched/config.h"
#include "moonsched/decode.h"
#include "policy/lua_runtime.h"

/* ---- helpers called from Lua ------------------------------------------ */

const char *ms_lua_str(const ms_lua_state *s, ms_str id) { return ms_str_get(s->rt->in, id); }

ms_str ms_lua_find(const ms_lua_state *s, const char *p, size_t len) {
    return ms_intern_find(s->rt->in, p, len);
}

ms_str ms_lua_reason(ms_lua_state *s, const char *p, size_t len) {
    if (len > 1024) len = 1024;   /* a reason is one line of a message */
    /* A reason outlives the call, so its id is pinned: a text already
     * there may be a pod's name, counted and released with the pod, and
     * its id handed to another string later. */
    if (ms_intern_find(s->rt->in, p, len) != MS_STR_NONE) return ms_intern(s->rt->in, p, len);
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
    ms_lua_runtime_log(s->rt, (ms_lua_log_level)level, s->name, buf);
}

double ms_lua_now(ms_lua_state *s) {
    if (s->rt->o.now) return s->rt->o.now(s->rt->o.now_ctx);
    return ms_clock_monotonic();
}

/* A shadow state releases or rejects no waiting pod: that would change a
 * live decision. Refused, and said once per loaded version. */
static void refuse_shadow_permit(ms_lua_state *s) {
    if (s->permit_refused) return;
    s->permit_refused = true;
    s->rt->o.log(s->rt->o.log_ctx, MS_LUA_LOG_WARN, s->name,
                 "sched.permit.allow/deny refused: a shadow policy changes no live decision");
}

int ms_lua_permit(ms_lua_state *s, const char *uid, int allow, const char *reason) {
    if (s->shadow) {
        refuse_shadow_permit(s);
        return 0;
    }
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
    if (s->used > s->peak) s->peak = s->used;
    return q;
}

/* What a state that grew large freed goes back to the system. glibc keeps
 * freed memory inside the process unless it lies at the top of its heap,
 * so one allocation made elsewhere in the meantime pins it: a policy that
 * ran into its memory cap (64 MiB by default) once, or a replaced version
 * that held that much, would leave the process that much bigger for good
 * (the soak saw RSS go from 17 to 83 MiB after one broken version hit the
 * cap). malloc_trim walks every arena, a millisecond or so, which is
 * cheap next to building a state of that size; ordinary states stay under
 * the threshold and never pay for it. */
#define GIVE_BACK_FROM ((size_t)4 << 20)

static void give_back(ms_lua_state *s) {
    if (s->peak < GIVE_BACK_FROM) return;
    s->peak = s->used;
#ifdef __GLIBC__
    malloc_trim(0);
#endif
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
    int loader_ref;                /* what runtime.start returned */
    /* How Lua's messages name the chunk: chunkname shortened to
     * LUA_IDSIZE ("...TAIL" for a long path); "" until setup made it. */
    char short_src[LUA_IDSIZE];
} load_ctx;

static void open_lib(lua_State *L, const char *name, lua_CFunction fn) {
    lua_pushcfunction(L, fn);
    lua_pushstring(L, name);
    lua_call(L, 1, 0);
}

/* Runs protected: libraries (no io, no debug), the embedded modules as
 * package.preload entries, then runtime.start, which builds the sandbox
 * and returns the policy's loader. */
static int setup_protected(lua_State *L) {
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

    /* Lua itself says how it shortens the name: no copy of its rule. */
    lua_Debug ar;
    if (luaL_loadbuffer(L, "", 0, lc->chunkname) != 0) lua_error(L);
    lua_getinfo(L, ">S", &ar);
    snprintf(lc->short_src, sizeof lc->short_src, "%s", ar.short_src);

    lua_getglobal(L, "require");
    lua_pushstring(L, "moonsched.runtime");
    lua_call(L, 1, 1);
    lua_getfield(L, -1, "start");
    lua_pushlightuserdata(L, &s->frame);
    lua_pushstring(L, s->rt->cdef);
    lua_pushstring(L, s->rt->checks);
    lua_call(L, 3, 1);
    lc->loader_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    return 0;
}

/* Runs protected, under the budget: the loader runs the policy's file and
 * its init, and returns the dispatcher, the policy's name and its hooks. */
static int load_protected(lua_State *L) {
    load_ctx *lc = lua_touserdata(L, 1);
    ms_lua_state *s = lc->s;
    lua_rawgeti(L, LUA_REGISTRYINDEX, lc->loader_ref);
    luaL_unref(L, LUA_REGISTRYINDEX, lc->loader_ref);
    lc->loader_ref = LUA_NOREF;
    lua_pushstring(L, lc->chunkname);
    lua_pushlstring(L, lc->src, lc->len);
    if (lc->args) push_json(L, lc->args, 0);
    else lua_newtable(L);
    lua_call(L, 3, 3);
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

/* The failure of policy `name`'s load or call, into out. `budget`: the
 * one that stopped it, named by its field in the policy's args, so that
 * the message says what to raise. */
static void format_error(const ms_lua_state *s, const char *name, const char *budget, bool killed, int rc,
                         char *out, size_t n) {
    lua_State *L = s->L;
    if (killed)
        snprintf(out, n, "policy %s: stopped after its %s of %g ms", name, budget, s->budget * 1e3);
    else if (rc == LUA_ERRMEM || s->oom)
        snprintf(out, n, "policy %s: exceeded its memory cap of %zu KiB", name, s->cap >> 10);
    else if (lua_type(L, -1) == LUA_TSTRING || lua_type(L, -1) == LUA_TNUMBER)
        snprintf(out, n, "policy %s: %s", name, lua_tostring(L, -1));
    else
        snprintf(out, n, "policy %s: (error object is a %s value)", name, error_text(L));
}

static void set_call_error(ms_lua_state *s, bool killed, int rc) {
    format_error(s, s->name, "CPU budget (budgetMs)", killed, rc, s->err, sizeof s->err);
}

/* The line of the policy's own chunk where Lua's message `msg` places
 * the error ("SHORT_SRC:LINE: ..."), *rest what follows; 0 when it names
 * no place in the chunk. */
static unsigned long chunk_line(const load_ctx *lc, const char *msg, const char **rest) {
    size_t n = strlen(lc->short_src);
    if (n == 0 || strncmp(msg, lc->short_src, n) != 0 || msg[n] != ':') return 0;
    const char *p = msg + n + 1;
    if (*p < '0' || *p > '9') return 0;
    char *end;
    unsigned long line = strtoul(p, &end, 10);
    if (strncmp(end, ": ", 2) != 0) return 0;
    *rest = end + 2;
    return line;
}

/* A load's failure names the file once and in full, as given: "FILE:LINE:
 * ..." where Lua places the error in the file, else "policy FILE: ...".
 * Not by s->name (128 bytes) nor by Lua's own place (the name shortened
 * to LUA_IDSIZE): either would name a long path twice, cut. */
static ms_rc set_load_error(ms_lua_state *s, const load_ctx *lc, bool killed, int rc, ms_error *err) {
    ms_rc code = rc == LUA_ERRMEM || s->oom ? MS_ENOMEM : MS_EINVAL;
    if (!err) return code;
    const char *c = lc->chunkname;
    bool named = *c == '@' || *c == '=';
    const char *file = named ? c + 1 : "?", *rest = NULL;
    unsigned long line = 0;
    if (named && !killed && code != MS_ENOMEM && lua_type(s->L, -1) == LUA_TSTRING)
        line = chunk_line(lc, lua_tostring(s->L, -1), &rest);
    if (line) return ms_error_set(err, code, "%s:%lu: %s", file, line, rest);
    format_error(s, file, "load budget (initBudgetMs)", killed, rc, err->msg, sizeof err->msg);
    err->rc = code;
    return code;
}

void ms_lua_limits_default(ms_lua_limits *l) {
    l->budget = 0;
    l->init_budget = 0;
    l->memory = 0;
    l->max_failures = -1;
    l->on_error = -1;
    l->shadow = false;
}

void ms_lua_limits_from_args(const ms_policy_args *a, ms_lua_limits *l) {
    ms_lua_limits_default(l);
    l->budget = a->budget;
    l->init_budget = a->init_budget;
    l->memory = (size_t)a->memory;
    l->max_failures = a->max_failures;
    l->on_error = a->on_error;
    l->shadow = a->shadow;         /* its states refuse sched.permit (refuse_shadow_permit) */
}

ms_rc ms_lua_state_load_ex(ms_lua_runtime *rt, const ms_lua_limits *lim, const char *chunkname,
                           const char *src, size_t len, const cJSON *args, ms_lua_state **out,
                           ms_error *err) {
    *out = NULL;
    ms_lua_state *s = calloc(1, sizeof *s);
    if (!s) return ms_error_set(err, MS_ENOMEM, "policy: out of memory");
    s->rt = rt;
    s->cap = lim && lim->memory ? lim->memory : rt->o.memory;
    double call_budget = lim && lim->budget > 0 ? lim->budget : rt->o.budget;
    s->budget = call_budget;
    s->shadow = lim && lim->shadow;
    s->dispatch_ref = LUA_NOREF;
    /* Lua's own convention: "@FILE" is a file, "=NAME" a name as it is
     * (a spec's inline policy); anything else is source text, no name. */
    snprintf(s->name, sizeof s->name, "%s",
             chunkname && (*chunkname == '@' || *chunkname == '=') ? chunkname + 1 : "?");
    s->frame.state = s;
    s->frame.api = &rt->api;
    s->L = lua_newstate(state_alloc, s);
    if (!s->L) {
        ms_error_set(err, MS_ENOMEM, "policy %s: cannot create a Lua state", s->name);
        free(s);
        return MS_ENOMEM;
    }
    lua_atpanic(s->L, panic);
    load_ctx lc = {s, chunkname ? chunkname : "=policy", src, len, args, LUA_NOREF, ""};
    /* The runtime's setup is the same work for every policy and none of
     * the policy's: its budget starts with the policy's own code, so a
     * slow machine never refuses a good version for the runtime's cost. */
    int rc = lua_cpcall(s->L, setup_protected, &lc);
    bool killed = false;
    if (rc == 0) {
        /* The load has its own budget (the watchdog and the error read
         * s->budget): the call budget protects the cycle's per-pod calls. */
        s->budget = lim && lim->init_budget > 0 ? lim->init_budget
                    : call_budget > MS_LUA_INIT_BUDGET_MIN ? call_budget
                                                           : MS_LUA_INIT_BUDGET_MIN;
        ms_lua_watch(s);
        rc = lua_cpcall(s->L, load_protected, &lc);
        killed = ms_lua_unwatch(s);
    }
    if (rc != 0) {
        ms_rc code = set_load_error(s, &lc, killed, rc, err);
        ms_lua_state_free(s);
        return code;
    }
    s->budget = call_budget;
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
    }
    give_back(s);
    free(s);
}

const char *ms_lua_state_name(const ms_lua_state *s) { return s->name; }
uint32_t ms_lua_state_hooks(const ms_lua_state *s) { return s->hooks; }
size_t ms_lua_state_memory(const ms_lua_state *s) { return s->used; }

int ms_lua_state_call(ms_lua_state *s, ms_lua_op op, bool *killed_out, bool *oom_out) {
    lua_State *L = s->L;
    s->frame.op = op;
    ms_lua_watch(s);
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->dispatch_ref);
    int rc = lua_pcall(L, 0, 0, 0);
    bool killed = ms_lua_unwatch(s);
    s->frame.epoch++;
    *killed_out = killed;
    *oom_out = false;
    if (rc == 0 && !killed) return 0;
    if (rc == 0) lua_pushstring(L, "CPU budget exceeded");
    bool oom = rc == LUA_ERRMEM || s->oom;
    set_call_error(s, killed, rc);
    lua_settop(L, 0);
    /* After the cap was hit, give back what the failed call left behind. */
    if (oom) {
        lua_gc(L, LUA_GCCOLLECT, 0);
        give_back(s);
    }
    *oom_out = oom && !killed;
    return -1;
}
