/* Lua policies in a DeschedulerPolicy: plugins named "lua:NAME" (as in a
 * scheduler profile), their pluginConfig args (file, args, budgetMs, ...,
 * decoded by the configuration's own reader), one loaded instance per
 * profile and name, enabled at deschedule or balance (the deschedule hook)
 * and at filter or preevictionfilter (the evictable hook). */
#include "policy/desched_lua.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "descheduler/config_file.h"
#include "moonsched/config.h"
#include "moonsched/lua_policy.h"
#include "policy/lua_state.h"

static bool is_lua(const char *name) { return ms_config_is_policy(name); }

static ms_rc args_check(const cJSON *args, const char *path, const char *name, ms_error *err) {
    if (!ms_config_policy_name_valid(name))
        return ms_error_set(err, MS_EINVAL, "%s: plugin name \"%s\": lua: then 1 to %d letters, digits, "
                                            "'-', '_' or '.'", path, name, MS_POLICY_NAME_MAX);
    ms_policy_args pa;
    ms_rc rc = ms_config_policy_args(args, path, &pa, err);
    /* A shadow is compared with its profile's choice of a node; a
     * descheduling pass makes no such choice, and accepting the mode would
     * evict live what the operator meant only to watch. */
    if (rc == MS_OK && pa.shadow)
        return ms_error_set(err, MS_EINVAL, "%s.mode: Unsupported value: \"shadow\": a descheduler policy runs "
                                            "live; --dry-run shows what a pass would evict", path);
    return rc;
}

/* The policy's state from its file, read from the disk or through the
 * policy's reader (the chunk named "@FILE" either way, as messages say). */
static ms_rc load_state(ms_desched_policy *pol, const ms_lua_limits *lim, const ms_policy_args *pa,
                        ms_lua_state **st, ms_error *err) {
    if (!pol->reader) return ms_lua_state_load_file_ex(pol->lua, lim, pa->file, pa->args, st, err);
    char *text = NULL, chunk[4200];
    size_t len = 0;
    ms_rc rc = pol->reader->read(pol->reader->ctx, pa->file, &text, &len, err);
    if (rc != MS_OK) return rc;
    snprintf(chunk, sizeof chunk, "@%s", pa->file);
    rc = ms_lua_state_load_ex(pol->lua, lim, chunk, text, len, pa->args, st, err);
    free(text);
    return rc;
}

/* The profile's instance of the policy, loaded on first use. */
static ms_rc instance(ms_desched_policy *pol, ms_desched_profile *prof, const char *name, const cJSON *pc,
                      ms_interner *in, ms_policy **out, ms_error *err) {
    for (uint32_t i = 0; i < prof->npolicies; i++)
        if (strcmp(prof->policies[i].name, name) == 0) return *out = prof->policies[i].policy, MS_OK;
    if (!pc)
        return ms_error_set(err, MS_EINVAL, "unable to create \"%s\" profile: unable to build %s plugin: "
                                            "unable to find \"%s\" plugin config", prof->name, name, name);
    ms_policy_args pa;
    ms_rc rc = ms_config_policy_args(ms_json_get(pc, "args"), "args", &pa, err);
    if (rc != MS_OK) return rc;
    if (!pol->lua) {
        ms_lua_options lo;
        ms_lua_options_default(&lo);
        if ((rc = ms_lua_runtime_new(&lo, in, &pol->lua, err)) != MS_OK) return rc;
    }
    ms_lua_limits lim;
    ms_lua_limits_from_args(&pa, &lim);
    ms_lua_state *st;
    ms_policy *p;
    if (prof->npolicies == MS_DESCHED_MAX_PLUGINS ||
        !ms_array_grow((void **)&pol->loaded, &pol->loadcap, pol->nloaded + 1, sizeof *pol->loaded))
        return ms_error_set(err, MS_ENOMEM, "profile \"%s\": too many policies", prof->name);
    if ((rc = load_state(pol, &lim, &pa, &st, err)) != MS_OK ||
        (rc = ms_policy_new_ex(pol->lua, st, name, &lim, &p, err)) != MS_OK) {
        ms_error_prefix(err, "profile \"%s\": %s", prof->name, name);
        return rc;
    }
    pol->loaded[pol->nloaded++] = p;
    prof->policies[prof->npolicies].name = ms_policy_name(p);
    prof->policies[prof->npolicies++].policy = p;
    *out = p;
    return MS_OK;
}

static ms_rc enable(ms_desched_policy *pol, ms_desched_profile *prof, const char *name, const cJSON *pc,
                    const char *point, ms_interner *in, ms_error *err) {
    ms_policy *p = NULL;
    ms_rc rc = instance(pol, prof, name, pc, in, &p, err);
    if (rc != MS_OK) return rc;
    bool filter = strcmp(point, "filter") == 0 || strcmp(point, "preevictionfilter") == 0;
    uint32_t need = filter ? MS_LUA_HOOK_EVICTABLE : MS_LUA_HOOK_DESCHEDULE;
    if (!(ms_policy_hooks(p) & need))
        return ms_error_set(err, MS_EINVAL, "profile \"%s\": %s is enabled at %s but defines no %s hook", prof->name,
                            name, point, filter ? "evictable" : "deschedule");
    if (filter) {
        for (uint32_t i = 0; i < prof->nevictable; i++)
            if (prof->evictable[i] == p) return MS_OK;
        prof->evictable[prof->nevictable++] = p;
        return MS_OK;
    }
    bool desched = strcmp(point, "deschedule") == 0;
    uint32_t *n = desched ? &prof->ndeschedule : &prof->nbalance;
    ms_desched_plugin *slot = desched ? prof->deschedule : prof->balance;
    if (*n == MS_DESCHED_MAX_PLUGINS)
        return ms_error_set(err, MS_EINVAL, "profile \"%s\": more than %d %s plugins", prof->name,
                            MS_DESCHED_MAX_PLUGINS, point);
    slot[(*n)++] = (ms_desched_plugin){&ms_desched_lua_strategy, p, ms_policy_name(p)};
    return MS_OK;
}

static const char *evictable(const ms_desched_profile *prof, const ms_pod *pod) {
    for (uint32_t i = 0; i < prof->nevictable; i++) {
        ms_status st;
        ms_code code = ms_policy_evictable(prof->evictable[i], pod, &st);
        if (code == MS_UNSCHEDULABLE) return st.nreasons ? st.reasons[0] : "protected by a policy";
        if (code == MS_ERROR) return st.nreasons ? st.reasons[0] : "a policy failed";
    }
    return NULL;
}

static void free_all(ms_desched_policy *pol) {
    for (uint32_t i = 0; i < pol->nloaded; i++) ms_policy_free(pol->loaded[i]);
    free(pol->loaded);
    pol->loaded = NULL;
    pol->nloaded = pol->loadcap = 0;
    if (pol->lua) ms_lua_runtime_free(pol->lua);
    pol->lua = NULL;
}

const ms_desched_extension ms_desched_lua_extension = {
    .owns = is_lua,
    .args_check = args_check,
    .enable = enable,
    .evictable = evictable,
    .free = free_all,
};
