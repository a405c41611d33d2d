/* Lua policies' pick_devices plugged into DynamicResources for a scheduler
 * given a fixed list of policies: the first of the profile's policies that
 * defines the hook when attached chooses the pod's devices. */
#include "policy/policy_devices.h"

#include <string.h>

#include "policy/policy_list.h"

static bool pd_wants(void *ctx) {
    const ms_policy_devices *pd = ctx;
    return ms_policy_hooks(pd->pick) & MS_LUA_HOOK_PICK_DEVICES;
}

static ms_code pd_pick(void *ctx, ms_cycle *c, const ms_node_info *ni, const ms_device_option *options, uint32_t n,
                       uint32_t *chosen, ms_status *st) {
    const ms_policy_devices *pd = ctx;
    return ms_policy_pick_devices(pd->pick, c, ni, options, n, chosen, st);
}

static void consider(void *arg, ms_policy *p) {
    ms_policy_devices *pd = arg;
    if (!pd->pick && (ms_policy_hooks(p) & MS_LUA_HOOK_PICK_DEVICES)) pd->pick = p;
}

const ms_dra_hooks *ms_policy_devices_for(void *ctx, uint32_t profile, const ms_profile_config *pc) {
    ms_policy_list *l = ctx;
    if (profile >= l->nprofiles) return NULL;
    ms_policy_devices *pd = &l->devices[profile];
    memset(pd, 0, sizeof *pd);
    ms_policy_list_each(l, pc, consider, pd);
    if (!pd->pick) return NULL;
    pd->hooks = (ms_dra_hooks){.ctx = pd, .wants = pd_wants, .pick = pd_pick};
    return &pd->hooks;
}
