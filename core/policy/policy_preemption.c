/* Lua policies' select_victims and pick_preemption plugged into
 * DefaultPreemption: the two interfaces describe the same things (pods
 * below the preemptor's priority, least important first; candidates with
 * their victims), so the adapter only converts the candidate list. */
#include "policy/policy_preemption.h"

#include <string.h>

#include "policy/policy_list.h"

static ms_code pp_select(void *ctx, ms_cycle *c, const ms_node_info *ni, ms_pod *const *potential,
                         uint32_t npotential, uint32_t *victims, uint32_t *nvictims,
                         ms_status *st) {
    ms_policy_preemption *pp = ctx;
    return ms_policy_select_victims(pp->select, c, ni, potential, npotential, victims, nvictims,
                                    st);
}

ms_preemption_option *ms_policy_preemption_options(ms_cycle *c, const ms_preemption_candidate *cands,
                                                   uint32_t n) {
    ms_preemption_option *opts = MS_ARENA_NEW(c->arena, ms_preemption_option, n);
    if (!opts) return NULL;
    for (uint32_t i = 0; i < n; i++)
        opts[i] = (ms_preemption_option){.node = cands[i].ni,
                                         .victims = cands[i].victims,
                                         .nvictims = cands[i].nvictims,
                                         .pdb_violations = cands[i].num_pdb_violations};
    return opts;
}

static ms_code pp_pick(void *ctx, ms_cycle *c, const ms_preemption_candidate *cands, uint32_t n,
                       uint32_t *chosen, ms_status *st) {
    ms_policy_preemption *pp = ctx;
    ms_preemption_option *opts = ms_policy_preemption_options(c, cands, n);
    if (!opts) return ms_status_set(st, MS_ERROR, "out of memory");
    return ms_policy_pick_preemption(pp->pick, c, opts, n, chosen, st);
}

/* The first policy that defines a hook keeps it. */
static void consider(void *arg, ms_policy *p) {
    ms_policy_preemption *pp = arg;
    uint32_t hooks = ms_policy_hooks(p);
    if (!pp->select && (hooks & MS_LUA_HOOK_SELECT_VICTIMS)) pp->select = p;
    if (!pp->pick && (hooks & MS_LUA_HOOK_PICK_PREEMPTION)) pp->pick = p;
}

static bool finish(ms_policy_preemption *pp) {
    if (!pp->select && !pp->pick) return false;
    pp->hooks.ctx = pp;
    pp->hooks.select_victims = pp->select ? pp_select : NULL;
    pp->hooks.pick = pp->pick ? pp_pick : NULL;
    pp->hooks.always_pick = false;
    return true;
}

const ms_preemption_hooks *ms_policy_preemptions_for(void *ctx, uint32_t profile,
                                                     const ms_profile_config *pc) {
    ms_policy_list *l = ctx;
    if (profile >= l->nprofiles) return NULL;
    ms_policy_preemption *pp = &l->preemption[profile];
    memset(pp, 0, sizeof *pp);
    ms_policy_list_each(l, pc, consider, pp);
    return finish(pp) ? &pp->hooks : NULL;
}
