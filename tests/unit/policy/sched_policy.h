/* A scheduler's profile and its one Lua policy for the tests that run
 * policies through a whole scheduler (preemption, devices): the profile's
 * plugins at every point, and the policy loaded from source text and
 * given to the scheduler's options as a plugin and through the policy
 * layer's hooks (policy/policy_list.h). */
#ifndef MOONSCHED_TESTS_POLICY_SCHED_POLICY_H
#define MOONSCHED_TESTS_POLICY_SCHED_POLICY_H

#include <cjson/cJSON.h>

#include "fixtures.h"
#include "moonsched/config.h"
#include "moonsched/lua_policy.h"
#include "moonsched/scheduler.h"
#include "policy/policy_devices.h"
#include "policy/policy_list.h"
#include "policy/policy_preemption.h"

typedef struct sched_policy {
    ms_lua_runtime *rt;
    ms_policy *policy;
    const ms_plugin_ops *ops[1];
    ms_policy_list list;           /* the one policy, for the one profile */
    ms_policy_preemption preemption;
    ms_policy_devices devices;
} sched_policy;

static inline void sched_policy_quiet(void *ctx, ms_lua_log_level level, const char *policy, const char *msg) {
    (void)ctx, (void)level, (void)policy, (void)msg;
}

static inline void sched_plugin(ms_profile_config *pc, const char *name) {
    ms_plugin_config *p = &pc->plugins[pc->nplugins++];
    snprintf(p->name, sizeof p->name, "%s", name);
    p->points = (1u << MS_EP_COUNT) - 1;
    p->weight = 1;
}

/* The default configuration with one profile, default-scheduler, running
 * `names` only. */
static inline void sched_profile(ms_config *cfg, const char *const *names, uint32_t n) {
    assert_int_equal(ms_config_default(cfg), MS_OK);
    ms_profile_config *pc = &cfg->profiles[0];
    for (uint32_t k = 0; k < pc->nplugins; k++) cJSON_Delete(pc->plugins[k].args);
    memset(pc, 0, sizeof *pc);
    snprintf(pc->scheduler_name, sizeof pc->scheduler_name, "default-scheduler");
    for (uint32_t i = 0; i < n; i++) sched_plugin(pc, names[i]);
}

/* Loads src and adds it to the profile and to o. */
static inline void sched_policy_add(sched_policy *sp, ms_interner *in, const char *src, ms_profile_config *pc,
                                    ms_scheduler_options *o) {
    ms_error err = {0};
    ms_lua_options lo;
    ms_lua_options_default(&lo);
    lo.log = sched_policy_quiet;
    assert_int_equal(ms_lua_runtime_new(&lo, in, &sp->rt, &err), MS_OK);
    ms_lua_state *st = NULL;
    if (ms_lua_state_load(sp->rt, "=policy.lua", src, strlen(src), NULL, &st, &err) != MS_OK)
        fail_msg("load: %s", err.msg);
    assert_int_equal(ms_policy_new(sp->rt, st, &sp->policy, &err), MS_OK);
    sp->ops[0] = ms_policy_ops(sp->policy);
    sched_plugin(pc, ms_lua_state_name(st));
    o->out_of_tree = sp->ops;
    o->n_out_of_tree = 1;
    sp->list = (ms_policy_list){.policies = &sp->policy, .npolicies = 1, .preemption = &sp->preemption,
                                .devices = &sp->devices, .nprofiles = 1};
    o->policy_hooks = ms_policy_list_hooks(&sp->list);
}

/* After the scheduler is freed. */
static inline void sched_policy_free(sched_policy *sp) {
    ms_policy_free(sp->policy);
    if (sp->rt) ms_lua_runtime_free(sp->rt);
}

#endif
