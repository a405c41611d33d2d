/* The policies of one scheduler: loading from the configuration and the
 * command line, the reload channel between the watcher thread and the
 * scheduler thread, the swap at a cycle boundary, and the glue to the
 * scheduler (Permit releases, preemption hooks). */
#include "moonsched/policy_set.h"

#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/array.h"
#include "base/clock.h"
#include "base/map.h"
#include "framework/plugins/dynamic_resources.h"
#include "framework/plugins/preemption.h"
#include "moonsched/decode.h"
#include "policy/file_watch.h"
#include "policy/lua_state.h"
#include "policy/policy_preemption.h"

typedef struct pfile {
    char *path;
    uint32_t watch_index;
    uint64_t seen_hash;            /* the content last loaded (watcher thread after the start) */
} pfile;

typedef struct instance {
    ms_policy *p;
    uint32_t profile;
    uint32_t file;
    cJSON *args;                   /* the policy's init args, or NULL */
    ms_lua_limits lim;
    bool shadow;                   /* evaluated beside the profile, never applied */
} instance;

/* A command-line policy as loaded for its name: the first profile's
 * instance (the one whose plugin args are `args`) takes the state, so
 * that the file loads, and warns, once. */
typedef struct preload {
    const cJSON *args;
    ms_lua_state *state;
    uint64_t hash;
} preload;

/* A reload result on its way to the scheduler thread. */
typedef struct pending {
    struct pending *next;
    uint32_t instance;
    ms_lua_state *state;           /* NULL: failed */
    double written;                /* the file's modification time (realtime seconds) */
    char message[512];
} pending;

typedef struct prof {
    ms_policy_set *ps;
    uint32_t n;
    const ms_plugin_ops **ops;     /* the profile's policy plugins */
    uint32_t *inst;                /* the live ones' instances, in the profile's plugin order */
    uint32_t nlive;
    ms_preemption_hooks hooks;
    ms_dra_hooks devices;
} prof;

struct ms_policy_set {
    ms_policy_set_options o;
    ms_interner *in;
    ms_lua_runtime *rt;
    instance *inst;
    uint32_t ninst, instcap;
    pfile *files;
    uint32_t nfiles, filecap;
    preload *pre;
    uint32_t npre, precap;
    uint32_t nprofiles;
    prof *profs;
    const ms_plugin_ops *const **prof_ops;
    uint32_t *prof_n;
    char **profile_names;

    ms_scheduler *sched;
    pthread_t sched_thread;
    ms_watch *watch;

    pthread_mutex_t mu;            /* the channel and the graveyard */
    pending *head, *tail;
    _Atomic uint32_t npending;
    ms_lua_state **graves;         /* replaced states, freed on the watcher thread */
    uint32_t ngraves, gravecap;

    double latency_max, latency_last;
};

void ms_policy_set_options_default(ms_policy_set_options *o) {
    memset(o, 0, sizeof *o);
    ms_lua_options_default(&o->lua);
    o->watch = true;
}

static double written_at(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0) return 0;
    return (double)st.st_mtim.tv_sec + (double)st.st_mtim.tv_nsec * 1e-9;
}

/* ---- reports ------------------------------------------------------------ */

static void report(ms_policy_set *ps, ms_policy_event_kind kind, const instance *in,
                   const char *message, double latency) {
    ms_policy_event ev = {
        .kind = kind,
        .profile = ps->profile_names[in->profile],
        .plugin = ms_policy_name(in->p),
        .file = ps->files[in->file].path,
        .message = message,
        .latency = latency,
    };
    if (ps->o.report) {
        ps->o.report(ps->o.report_ctx, &ev);
        return;
    }
    /* The runtime logs a disabled policy itself. */
    if (kind == MS_POLICY_DISABLED) return;
    const ms_lua_options *lo = ms_lua_runtime_options(ps->rt);
    lo->log(lo->log_ctx, kind == MS_POLICY_RELOADED ? MS_LUA_LOG_INFO : MS_LUA_LOG_ERROR,
            ev.plugin, message);
}

static instance *instance_of(ms_policy_set *ps, const ms_policy *p) {
    for (uint32_t i = 0; i < ps->ninst; i++)
        if (ps->inst[i].p == p) return &ps->inst[i];
    return NULL;
}

static void on_disabled(void *ctx, ms_policy *p, const char *why) {
    ms_policy_set *ps = ctx;
    instance *in = instance_of(ps, p);
    if (in) report(ps, MS_POLICY_DISABLED, in, why, 0);
}

/* sched.permit.allow/deny of a live instance (a shadow instance's state
 * refuses them before they get here). Policies run on the scheduler
 * thread; init on the watcher thread (a reload) has no pod to release. */
static bool on_permit(void *ctx, const char *uid, bool allow, const char *reason) {
    ms_policy_set *ps = ctx;
    if (!ps->sched || !pthread_equal(pthread_self(), ps->sched_thread)) return false;
    return ms_scheduler_permit_later(ps->sched, uid, allow, reason);
}

/* ---- loading ------------------------------------------------------------ */

static ms_rc add_file(ms_policy_set *ps, const char *path, uint32_t *index, ms_error *err) {
    for (uint32_t i = 0; i < ps->nfiles; i++)
        if (strcmp(ps->files[i].path, path) == 0) {
            *index = i;
            return MS_OK;
        }
    if (!ms_array_grow((void **)&ps->files, &ps->filecap, ps->nfiles + 1, sizeof *ps->files))
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    pfile *f = &ps->files[ps->nfiles];
    memset(f, 0, sizeof *f);
    if (!(f->path = strdup(path))) return ms_error_set(err, MS_ENOMEM, "out of memory");
    ps->nfiles++;
    /* Watched from before the first read: a change in between is a reload. */
    if (ps->watch) {
        ms_rc rc = ms_watch_add(ps->watch, path, &f->watch_index, err);
        if (rc != MS_OK) return rc;
    }
    *index = ps->nfiles - 1;
    return MS_OK;
}

static ms_rc load_text(ms_policy_set *ps, const char *path, const ms_lua_limits *lim,
                       const cJSON *args, ms_lua_state **out, uint64_t *hash, ms_error *err) {
    char *buf = NULL;
    size_t len = 0;
    ms_rc rc = ps->o.read_file ? ps->o.read_file(ps->o.read_ctx, path, &buf, &len, err)
                               : ms_lua_read_file(path, &buf, &len, err);
    if (rc != MS_OK) return rc;
    if (hash) *hash = ms_hash_bytes(buf, len);
    size_t n = strlen(path) + 2;
    char *chunk = malloc(n);
    if (!chunk) {
        free(buf);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    snprintf(chunk, n, "@%s", path);
    rc = ms_lua_state_load_ex(ps->rt, lim, chunk, buf, len, args, out, err);
    free(chunk);
    free(buf);
    return rc;
}

/* The extension points a --policy file takes: all of them (the framework
 * keeps those its hooks implement, also after a reload), and QueueSort
 * only when it sorts the queue now. */
static uint32_t cli_points(uint32_t hooks) {
    uint32_t all = (1u << MS_EP_COUNT) - 1;
    uint32_t points = all & ~(1u << MS_EP_QUEUE_SORT);
    if (hooks & MS_LUA_HOOK_LESS) points |= 1u << MS_EP_QUEUE_SORT;
    return points;
}

/* "FILE" or "FILE,onLoadError=skip|reject": the file into path, the
 * option into *on_load_error (NULL: not given). */
static ms_rc split_cli_policy(const char *arg, char *path, size_t n, const char **on_load_error, ms_error *err) {
    static const char key[] = ",onLoadError=";
    const char *opt = strstr(arg, key);
    size_t len = opt ? (size_t)(opt - arg) : strlen(arg);
    *on_load_error = NULL;
    if (len >= n) return ms_error_set(err, MS_EINVAL, "--policy %.60s...: the path is too long", arg);
    memcpy(path, arg, len);
    path[len] = '\0';
    if (!opt) return MS_OK;
    *on_load_error = opt + sizeof key - 1;
    if (strcmp(*on_load_error, "skip") != 0 && strcmp(*on_load_error, "reject") != 0)
        return ms_error_set(err, MS_EINVAL, "--policy %s: onLoadError: expected skip or reject, got \"%s\"", path,
                            *on_load_error);
    return MS_OK;
}

/* A --policy file's plugin args: its file, the options after it, its
 * --policy-args (JSON text, or NULL) as `args`. */
static ms_rc cli_plugin_args(const char *path, const char *on_load_error, bool shadow, const char *args_json,
                             cJSON **out, ms_error *err) {
    *out = NULL;
    cJSON *args = NULL;
    if (args_json) {
        ms_rc rc = ms_json_parse(args_json, strlen(args_json), &args, err);
        if (rc != MS_OK) return ms_error_prefix(err, "--policy-args"), rc;
        if (!cJSON_IsObject(args)) {
            cJSON_Delete(args);
            return ms_error_set(err, MS_EINVAL, "--policy-args: the policy's args are a JSON object");
        }
    }
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddStringToObject(o, "file", path) ||
        (on_load_error && !cJSON_AddStringToObject(o, "onLoadError", on_load_error)) ||
        (shadow && !cJSON_AddStringToObject(o, "mode", "shadow")) ||
        (args && !cJSON_AddItemToObject(o, "args", args))) {
        if (!cJSON_GetObjectItemCaseSensitive(o, "args")) cJSON_Delete(args);
        cJSON_Delete(o);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    *out = o;
    return MS_OK;
}

/* A --policy file's plugin name and points, from its one load (kept for
 * the first profile's instance), or, when it does not load and that is
 * tolerated, lua:<file name without .lua> with every point but
 * QueueSort. */
static ms_rc cli_policy_name(ms_policy_set *ps, const char *path, const cJSON *args, char *name, size_t n,
                             uint32_t *points, ms_error *err) {
    ms_policy_args a;
    ms_rc rc = ms_config_policy_args(args, "args", &a, err);
    uint32_t file;
    if (rc == MS_OK) rc = add_file(ps, path, &file, err);
    if (rc == MS_OK && !ms_array_grow((void **)&ps->pre, &ps->precap, ps->npre + 1, sizeof *ps->pre))
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    if (rc != MS_OK) return rc;
    ms_lua_limits lim;
    ms_lua_limits_from_args(&a, &lim);
    preload *pl = &ps->pre[ps->npre];
    memset(pl, 0, sizeof *pl);
    ms_error lerr = {0};
    rc = load_text(ps, path, &lim, a.args, &pl->state, &pl->hash, &lerr);
    if (rc == MS_OK) {
        pl->args = args;
        ps->npre++;
        snprintf(name, n, MS_POLICY_PREFIX "%s", ms_lua_state_name(pl->state));
        *points = cli_points(ms_lua_state_hooks(pl->state));
        return MS_OK;
    }
    if (rc == MS_ENOMEM || !ps->o.tolerate_load_failures) {
        if (err) *err = lerr;
        ms_error_prefix(err, "--policy %s", path);
        return rc;
    }
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strlen(base);
    if (len > 4 && strcmp(base + len - 4, ".lua") == 0) len -= 4;
    snprintf(name, n, MS_POLICY_PREFIX "%.*s", (int)len, base);
    *points = cli_points(0);
    return MS_OK;
}

/* The plugin of a command-line file in a profile: lua:NAME, or for a
 * shadow file whose name the profile uses already, lua:NAME.shadow.
 * Takes args. */
static ms_rc add_cli_plugin(ms_profile_config *p, const char *name, uint32_t points, cJSON *args, bool shadow,
                            ms_error *err) {
    char own[80];
    snprintf(own, sizeof own, "%s", name);
    for (uint32_t k = 0; shadow && k < p->nplugins; k++)
        if (strcmp(p->plugins[k].name, name) == 0) snprintf(own, sizeof own, "%.60s.shadow", name);
    return ms_profile_config_add(p, own, points, 1, args, err);
}

static ms_rc add_cli_policies(ms_policy_set *ps, ms_config *cfg, const char *const *files,
                              const char *const *args_json, uint32_t nfiles, bool shadow, ms_error *err) {
    const char *flag = shadow ? "--shadow" : "--policy";
    const char *sorter = NULL;     /* the file whose policy sorts the queue */
    for (uint32_t f = 0; f < nfiles; f++) {
        char path[4096], name[80];
        const char *on_load_error;
        uint32_t points;
        cJSON *args = NULL;
        ms_rc rc = split_cli_policy(files[f], path, sizeof path, &on_load_error, err);
        if (rc == MS_OK &&
            (rc = cli_plugin_args(path, on_load_error, shadow, args_json ? args_json[f] : NULL, &args, err)) != MS_OK)
            ms_error_prefix(err, "%s %s", flag, path);
        if (rc == MS_OK) rc = cli_policy_name(ps, path, args, name, sizeof name, &points, err);
        if (rc != MS_OK) {
            cJSON_Delete(args);
            return rc;
        }
        /* A shadow policy only chooses a node: it never sorts the queue. */
        if (shadow) points &= ~(1u << MS_EP_QUEUE_SORT);
        if (points & (1u << MS_EP_QUEUE_SORT)) {
            if (sorter) {
                cJSON_Delete(args);
                return ms_error_set(err, MS_EINVAL,
                                    "--policy %s: defines less, as %s does: the queue has one order",
                                    path, sorter);
            }
            sorter = files[f];
        }
        if (!ms_config_policy_name_valid(name)) {
            cJSON_Delete(args);
            return ms_error_set(err, MS_EINVAL,
                                "%s %s: the policy's name \"%s\" cannot name a plugin: it must be "
                                "1 to %d letters, digits, '-', '_' or '.'",
                                flag, path, name + sizeof MS_POLICY_PREFIX - 1, MS_POLICY_NAME_MAX);
        }
        /* The first profile takes args (and the loaded state with it),
         * the others a copy. */
        for (uint32_t i = 0; i < cfg->nprofiles && rc == MS_OK; i++) {
            cJSON *own = i == 0 ? args : cJSON_Duplicate(args, true);
            if (!own) rc = ms_error_set(err, MS_ENOMEM, "out of memory");
            else rc = add_cli_plugin(&cfg->profiles[i], name, points, own, shadow, err);
        }
        if (cfg->nprofiles == 0) cJSON_Delete(args);
        if (rc != MS_OK) {
            ms_error_prefix(err, "%s %s", flag, path);
            return rc;
        }
    }
    return MS_OK;
}

/* The hooks that serve the points a configuration names explicitly (an
 * unloaded policy answers there neutrally). */
static uint32_t hooks_for_points(uint32_t points) {
    static const struct {
        ms_extension_point ep;
        uint32_t hook;
    } map[] = {
        {MS_EP_PRE_ENQUEUE, MS_LUA_HOOK_PRE_ENQUEUE}, {MS_EP_QUEUE_SORT, MS_LUA_HOOK_LESS},
        {MS_EP_PRE_FILTER, MS_LUA_HOOK_PRE_FILTER},   {MS_EP_FILTER, MS_LUA_HOOK_FILTER},
        {MS_EP_SCORE, MS_LUA_HOOK_SCORE},             {MS_EP_RESERVE, MS_LUA_HOOK_RESERVE},
        {MS_EP_PERMIT, MS_LUA_HOOK_PERMIT},
    };
    uint32_t h = 0;
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (points & (1u << map[i].ep)) h |= map[i].hook;
    return h;
}

static ms_rc add_instance(ms_policy_set *ps, uint32_t profile, const ms_plugin_config *pc,
                          ms_error *err) {
    const char *profile_name = ps->profile_names[profile];
    char path[96];
    snprintf(path, sizeof path, "profile \"%.40s\": plugin \"%s\": args", profile_name, pc->name);
    ms_policy_args a;
    ms_rc rc = ms_config_policy_args(pc->args, path, &a, err);
    if (rc != MS_OK) return rc;
    if (!ms_array_grow((void **)&ps->inst, &ps->instcap, ps->ninst + 1, sizeof *ps->inst))
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    instance *in = &ps->inst[ps->ninst];
    memset(in, 0, sizeof *in);
    in->profile = profile;
    ms_lua_limits_from_args(&a, &in->lim);
    in->shadow = a.shadow;
    if (a.args && !(in->args = cJSON_Duplicate(a.args, true)))
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    rc = add_file(ps, a.file, &in->file, err);
    if (rc == MS_OK) {
        ms_lua_state *s = NULL;
        ms_error lerr = {0};
        preload *pl = NULL;
        for (uint32_t i = 0; i < ps->npre && !pl; i++)
            if (ps->pre[i].args == pc->args && ps->pre[i].state) pl = &ps->pre[i];
        if (pl) {
            s = pl->state;
            pl->state = NULL;
            ps->files[in->file].seen_hash = pl->hash;
        } else {
            rc = load_text(ps, a.file, &in->lim, in->args, &s, &ps->files[in->file].seen_hash, &lerr);
        }
        if (rc == MS_OK) {
            rc = ms_policy_new_ex(ps->rt, s, pc->name, &in->lim, &in->p, err);
        } else if (rc != MS_ENOMEM && ps->o.tolerate_load_failures) {
            rc = ms_policy_new_unloaded(ps->rt, pc->name, &in->lim, a.on_load_error == 1,
                                        hooks_for_points(pc->explicit_points), lerr.msg, &in->p, err);
        } else if (err) {
            *err = lerr;
        }
    }
    if (rc != MS_OK) {
        cJSON_Delete(in->args);
        ms_error_prefix(err, "profile \"%s\": plugin \"%s\"", profile_name, pc->name);
        return rc;
    }
    ps->ninst++;
    return MS_OK;
}

/* ---- preemption hooks ------------------------------------------------- */

static ms_code chain_select(void *ctx, ms_cycle *c, const ms_node_info *ni, ms_pod *const *potential,
                            uint32_t npotential, uint32_t *victims, uint32_t *nvictims,
                            ms_status *st) {
    const prof *pr = ctx;
    for (uint32_t k = 0; k < pr->nlive; k++) {
        ms_policy *p = pr->ps->inst[pr->inst[k]].p;
        ms_code code = ms_policy_select_victims(p, c, ni, potential, npotential, victims, nvictims, st);
        if (code != MS_SKIP) return code;
    }
    return MS_SKIP;
}

static ms_code chain_pick(void *ctx, ms_cycle *c, const ms_preemption_candidate *cands, uint32_t n,
                          uint32_t *chosen, ms_status *st) {
    const prof *pr = ctx;
    ms_preemption_option *options = NULL;
    for (uint32_t k = 0; k < pr->nlive; k++) {
        ms_policy *p = pr->ps->inst[pr->inst[k]].p;
        if (!(ms_policy_hooks(p) & MS_LUA_HOOK_PICK_PREEMPTION)) continue;
        if (!options && !(options = ms_policy_preemption_options(c, cands, n)))
            return ms_status_set(st, MS_ERROR, "out of memory");
        ms_code code = ms_policy_pick_preemption(p, c, options, n, chosen, st);
        if (code != MS_SKIP) return code;
    }
    return MS_SKIP;
}

/* ---- device choice ------------------------------------------------------ */

static bool chain_wants_devices(void *ctx) {
    const prof *pr = ctx;
    for (uint32_t k = 0; k < pr->nlive; k++)
        if (ms_policy_hooks(pr->ps->inst[pr->inst[k]].p) & MS_LUA_HOOK_PICK_DEVICES) return true;
    return false;
}

/* The first live policy of the profile (in its order) with pick_devices
 * that answers; asked at each call, so that reloads are followed. */
static ms_code chain_pick_devices(void *ctx, ms_cycle *c, const ms_node_info *ni, const ms_device_option *options,
                                  uint32_t n, uint32_t *chosen, ms_status *st) {
    const prof *pr = ctx;
    for (uint32_t k = 0; k < pr->nlive; k++) {
        ms_code code = ms_policy_pick_devices(pr->ps->inst[pr->inst[k]].p, c, ni, options, n, chosen, st);
        if (code != MS_SKIP) return code;
    }
    return MS_SKIP;
}

/* ---- the set -------------------------------------------------------- */

static ms_rc build_profiles(ms_policy_set *ps, const ms_config *cfg, ms_error *err) {
    uint32_t n = cfg->nprofiles;
    ps->profs = calloc(n ? n : 1, sizeof *ps->profs);
    ps->prof_ops = calloc(n ? n : 1, sizeof *ps->prof_ops);
    ps->prof_n = calloc(n ? n : 1, sizeof *ps->prof_n);
    if (!ps->profs || !ps->prof_ops || !ps->prof_n) return ms_error_set(err, MS_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        prof *pr = &ps->profs[i];
        pr->ps = ps;
        for (uint32_t k = 0; k < ps->ninst; k++) pr->n += ps->inst[k].profile == i;
        /* Every policy of the profile is one of its plugins; the shadow
         * ones are not consulted by its preemption. */
        pr->ops = calloc(pr->n ? pr->n : 1, sizeof *pr->ops);
        pr->inst = calloc(pr->n ? pr->n : 1, sizeof *pr->inst);
        if (!pr->ops || !pr->inst) return ms_error_set(err, MS_ENOMEM, "out of memory");
        uint32_t m = 0, live = 0;
        for (uint32_t k = 0; k < ps->ninst; k++) {
            if (ps->inst[k].profile != i) continue;
            pr->ops[m++] = ms_policy_ops(ps->inst[k].p);
            if (!ps->inst[k].shadow) pr->inst[live++] = k;
        }
        pr->nlive = live;
        pr->hooks = (ms_preemption_hooks){.ctx = pr, .select_victims = chain_select,
                                          .pick = chain_pick, .always_pick = false};
        pr->devices = (ms_dra_hooks){.ctx = pr, .wants = chain_wants_devices, .pick = chain_pick_devices};
        ps->prof_ops[i] = pr->ops;
        ps->prof_n[i] = pr->n;
    }
    return MS_OK;
}

static void on_changed(void *ctx, uint32_t index);
static void on_wake(void *ctx);

ms_rc ms_policy_set_new(ms_config *cfg, const ms_policy_set_options *o, ms_interner *in,
                        ms_policy_set **out, ms_error *err) {
    *out = NULL;
    ms_policy_set *ps = calloc(1, sizeof *ps);
    if (!ps) return ms_error_set(err, MS_ENOMEM, "out of memory");
    if (o) ps->o = *o;
    else ms_policy_set_options_default(&ps->o);
    ps->in = in;
    pthread_mutex_init(&ps->mu, NULL);
    ms_lua_options lo = ps->o.lua;
    lo.permit = on_permit;
    lo.permit_ctx = ps;
    lo.disabled = on_disabled;
    lo.disabled_ctx = ps;
    ms_rc rc = MS_OK;
    ps->profile_names = calloc(cfg->nprofiles ? cfg->nprofiles : 1, sizeof *ps->profile_names);
    if (!ps->profile_names) {
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
        goto fail;
    }
    ps->nprofiles = cfg->nprofiles;
    for (uint32_t i = 0; i < cfg->nprofiles; i++)
        if (!(ps->profile_names[i] = strdup(cfg->profiles[i].scheduler_name))) {
            rc = ms_error_set(err, MS_ENOMEM, "out of memory");
            goto fail;
        }
    if ((rc = ms_lua_runtime_new(&lo, in, &ps->rt, err)) != MS_OK) goto fail;
    if (ps->o.watch) {
        ms_watch_options wo = {.changed = on_changed, .wake = on_wake, .ctx = ps,
                               .settle = ps->o.watch_settle};
        if ((rc = ms_watch_new(&wo, &ps->watch, err)) != MS_OK) goto fail;
    }
    if ((rc = add_cli_policies(ps, cfg, ps->o.files, ps->o.file_args, ps->o.nfiles, false, err)) != MS_OK ||
        (rc = add_cli_policies(ps, cfg, ps->o.shadow_files, ps->o.shadow_file_args, ps->o.nshadow_files, true,
                               err)) != MS_OK)
        goto fail;
    for (uint32_t i = 0; i < cfg->nprofiles; i++) {
        const ms_profile_config *pc = &cfg->profiles[i];
        for (uint32_t k = 0; k < pc->nplugins; k++) {
            if (!ms_config_is_policy(pc->plugins[k].name)) continue;
            if ((rc = add_instance(ps, i, &pc->plugins[k], err)) != MS_OK) goto fail;
        }
    }
    if ((rc = build_profiles(ps, cfg, err)) != MS_OK) goto fail;
    *out = ps;
    return MS_OK;
fail:
    ms_policy_set_free(ps);
    return rc;
}

ms_rc ms_policy_set_attach(ms_policy_set *ps, ms_scheduler *s, ms_error *err) {
    ps->sched = s;
    ps->sched_thread = pthread_self();
    for (uint32_t i = 0; i < ps->nprofiles && i < ms_scheduler_nprofiles(s); i++)
        if (ps->profs[i].n > 0) {
            ms_default_preemption_set_hooks(ms_scheduler_profile(s, i), &ps->profs[i].hooks);
            ms_dynamic_resources_set_hooks(ms_scheduler_profile(s, i), &ps->profs[i].devices);
        }
    /* Policies that did not load: reported now that reports can go out. */
    for (uint32_t i = 0; i < ps->ninst; i++) {
        const instance *in = &ps->inst[i];
        const char *why = ms_policy_load_error(in->p);
        if (!why) continue;
        char msg[1024];
        snprintf(msg, sizeof msg, "%s (from %s); %s until the file loads", why, ps->files[in->file].path,
                 ms_policy_fail_open(in->p) ? "the profile schedules without it (onLoadError: skip)"
                                            : "the profile places no pod");
        report(ps, MS_POLICY_LOAD_FAILED, in, msg, 0);
    }
    if (ps->watch && ps->nfiles > 0) return ms_watch_start(ps->watch, err);
    return MS_OK;
}

static void free_pending(pending *p) {
    while (p) {
        pending *next = p->next;
        ms_lua_state_free(p->state);
        free(p);
        p = next;
    }
}

void ms_policy_set_free(ms_policy_set *ps) {
    if (!ps) return;
    /* The watcher first: it loads into the runtime and frees the graves. */
    ms_watch_free(ps->watch);
    free_pending(ps->head);
    for (uint32_t i = 0; i < ps->ngraves; i++) ms_lua_state_free(ps->graves[i]);
    free(ps->graves);
    for (uint32_t i = 0; i < ps->ninst; i++) {
        ms_policy_free(ps->inst[i].p);
        cJSON_Delete(ps->inst[i].args);
    }
    free(ps->inst);
    for (uint32_t i = 0; i < ps->npre; i++) ms_lua_state_free(ps->pre[i].state);
    free(ps->pre);
    ms_lua_runtime_free(ps->rt);
    for (uint32_t i = 0; i < ps->nfiles; i++) free(ps->files[i].path);
    free(ps->files);
    for (uint32_t i = 0; ps->profs && i < ps->nprofiles; i++) {
        free(ps->profs[i].ops);
        free(ps->profs[i].inst);
    }
    free(ps->profs);
    free(ps->prof_ops);
    free(ps->prof_n);
    for (uint32_t i = 0; ps->profile_names && i < ps->nprofiles; i++) free(ps->profile_names[i]);
    free(ps->profile_names);
    pthread_mutex_destroy(&ps->mu);
    free(ps);
}

const ms_plugin_ops *const *const *ms_policy_set_profile_plugins(const ms_policy_set *ps) {
    return ps->prof_ops;
}
const uint32_t *ms_policy_set_profile_counts(const ms_policy_set *ps) { return ps->prof_n; }
uint32_t ms_policy_set_count(const ms_policy_set *ps) { return ps->ninst; }

void ms_policy_set_info(const ms_policy_set *ps, uint32_t i, ms_policy_info *out) {
    const instance *in = &ps->inst[i];
    out->profile = ps->profile_names[in->profile];
    out->plugin = ms_policy_name(in->p);
    out->file = ps->files[in->file].path;
    out->policy = in->p;
    ms_policy_get_stats(in->p, &out->stats);
    out->disabled = ms_policy_disabled(in->p);
    out->load_error = ms_policy_load_error(in->p);
    out->fail_open = ms_policy_fail_open(in->p);
}

void ms_policy_set_get_totals(const ms_policy_set *ps, ms_policy_set_totals *out) {
    memset(out, 0, sizeof *out);
    out->policies = ps->ninst;
    for (uint32_t i = 0; i < ps->ninst; i++) {
        ms_policy_stats st;
        ms_policy_get_stats(ps->inst[i].p, &st);
        out->calls += st.calls;
        out->failures += st.failures;
        out->reloads_ok += st.reloads_ok;
        out->reloads_failed += st.reloads_failed;
        out->disabled += st.disabled;
    }
    out->reload_latency_max = ps->latency_max;
    out->reload_latency_last = ps->latency_last;
}

/* ---- the watcher thread's side ------------------------------------------ */

static void push(ms_policy_set *ps, pending *p) {
    pthread_mutex_lock(&ps->mu);
    if (ps->tail) ps->tail->next = p;
    else ps->head = p;
    ps->tail = p;
    atomic_fetch_add_explicit(&ps->npending, 1, memory_order_release);
    pthread_mutex_unlock(&ps->mu);
}

static void on_changed(void *ctx, uint32_t index) {
    ms_policy_set *ps = ctx;
    pfile *f = NULL;
    uint32_t fi = 0;
    for (; fi < ps->nfiles; fi++)
        if (ps->files[fi].watch_index == index) {
            f = &ps->files[fi];
            break;
        }
    if (!f) return;
    ms_error err = {0};
    char *buf = NULL;
    size_t len = 0;
    double written = written_at(f->path);
    ms_rc rc = ms_lua_read_file(f->path, &buf, &len, &err);
    if (rc == MS_OK) {
        uint64_t h = ms_hash_bytes(buf, len);
        if (h == f->seen_hash) {
            free(buf);   /* touched, or replaced by the same text */
            return;
        }
        f->seen_hash = h;
    }
    char chunk[4200];
    snprintf(chunk, sizeof chunk, "@%s", f->path);
    bool any = false;
    for (uint32_t i = 0; i < ps->ninst; i++) {
        const instance *in = &ps->inst[i];
        if (in->file != fi) continue;
        pending *p = calloc(1, sizeof *p);
        if (!p) continue;
        p->instance = i;
        p->written = written;
        if (rc != MS_OK) {
            snprintf(p->message, sizeof p->message, "%s", err.msg);
        } else {
            ms_error lerr = {0};
            if (ms_lua_state_load_ex(ps->rt, &in->lim, chunk, buf, len, in->args, &p->state,
                                     &lerr) != MS_OK)
                snprintf(p->message, sizeof p->message, "%s", lerr.msg);
        }
        push(ps, p);
        any = true;
    }
    free(buf);
    if (any && ps->o.ready) ps->o.ready(ps->o.ready_ctx);
}

static void on_wake(void *ctx) {
    ms_policy_set *ps = ctx;
    pthread_mutex_lock(&ps->mu);
    ms_lua_state **graves = ps->graves;
    uint32_t n = ps->ngraves;
    ps->graves = NULL;
    ps->ngraves = ps->gravecap = 0;
    pthread_mutex_unlock(&ps->mu);
    for (uint32_t i = 0; i < n; i++) ms_lua_state_free(graves[i]);
    free(graves);
}

/* A replaced state: freed on the watcher thread, not between two cycles. */
static void bury(ms_policy_set *ps, ms_lua_state *s) {
    if (!s) return;
    if (!ps->watch) {
        ms_lua_state_free(s);
        return;
    }
    pthread_mutex_lock(&ps->mu);
    if (!ms_array_grow((void **)&ps->graves, &ps->gravecap, ps->ngraves + 1, sizeof *ps->graves)) {
        pthread_mutex_unlock(&ps->mu);
        ms_lua_state_free(s);
        return;
    }
    ps->graves[ps->ngraves++] = s;
    pthread_mutex_unlock(&ps->mu);
}

/* ---- the scheduler thread's side ---------------------------------------- */

/* Returns whether the new version runs now. */
static bool apply(ms_policy_set *ps, pending *pd, double now) {
    instance *in = &ps->inst[pd->instance];
    const char *file = ps->files[in->file].path;
    char msg[1024];
    if (!pd->state) {
        ms_policy_reload_failed(in->p);
        snprintf(msg, sizeof msg, "reload of %s failed, %s: %s", file,
                 ms_policy_load_error(in->p) ? "still no version loaded" : "the running version stays",
                 pd->message);
        report(ps, MS_POLICY_RELOAD_FAILED, in, msg, 0);
        return false;
    }
    uint32_t hooks = ms_lua_state_hooks(pd->state);
    if (ps->sched && hooks != ms_policy_hooks(in->p)) {
        ms_plugin_ops candidate;
        ms_policy_ops_for(in->p, hooks, &candidate);
        ms_error err = {0};
        if (ms_scheduler_check_plugin_ops(ps->sched, ms_policy_ops(in->p), &candidate, &err) != MS_OK) {
            ms_policy_reload_failed(in->p);
            snprintf(msg, sizeof msg,
                     "reload of %s refused, the running version stays: its hooks do not fit the "
                     "configuration: %s",
                     file, err.msg);
            report(ps, MS_POLICY_RELOAD_FAILED, in, msg, 0);
            bury(ps, pd->state);
            pd->state = NULL;
            return false;
        }
    }
    bury(ps, ms_policy_swap(in->p, pd->state));
    pd->state = NULL;
    if (ps->sched) {
        ms_error err = {0};
        if (ms_scheduler_plugin_reloaded(ps->sched, ms_policy_ops(in->p), MS_EV_POLICY_RELOAD, now,
                                         &err) != MS_OK) {
            /* Checked above; say so if the profile still disagrees. */
            snprintf(msg, sizeof msg, "%s: %s", file, err.msg);
            report(ps, MS_POLICY_RELOAD_FAILED, in, msg, 0);
        }
    }
    double latency = pd->written > 0 ? ms_clock_wall() - pd->written : 0;
    if (latency < 0) latency = 0;
    ps->latency_last = latency;
    if (latency > ps->latency_max) ps->latency_max = latency;
    snprintf(msg, sizeof msg, "reloaded from %s (in effect %.3f s after the file was written)", file,
             latency);
    report(ps, MS_POLICY_RELOADED, in, msg, latency);
    return true;
}

uint32_t ms_policy_set_poll(ms_policy_set *ps, double now) {
    if (atomic_load_explicit(&ps->npending, memory_order_acquire) == 0) return 0;
    pthread_mutex_lock(&ps->mu);
    pending *list = ps->head;
    ps->head = ps->tail = NULL;
    atomic_store_explicit(&ps->npending, 0, memory_order_relaxed);
    pthread_mutex_unlock(&ps->mu);
    uint32_t swapped = 0;
    for (pending *p = list; p; p = p->next) swapped += apply(ps, p, now);
    free_pending(list);
    /* Replaced and refused states wait in the graveyard. */
    if (ps->watch) ms_watch_wake(ps->watch);
    return swapped;
}
