/* Lua policies' pick_devices plugged into DynamicResources for a scheduler
 * given its policies in its options (ms_policy_set installs hooks of its
 * own, which follow reloads): the first of the profile's policies that
 * defines the hook when attached chooses the pod's devices. */
#include <string.h>

#include "framework/plugins/dynamic_resources.h"
#include "moonsched/lua_policy.h"

static bool pd_wants(void *ctx) {
    const ms_policy_devices *pd = ctx;
    return ms_policy_hooks(pd->pick) & MS_LUA_HOOK_PICK_DEVICES;
}

static ms_code pd_pick(void *ctx, ms_cycle *c, const ms_node_info *ni, const ms_device_option *options, uint32_t n,
                       uint32_t *chosen, ms_status *st) {
    const ms_policy_devices *pd = ctx;
    return ms_policy_pick_devices(pd->pick, c, ni, options, n, chosen, st);
}

bool ms_policy_devices_attach(ms_policy_devices *pd, const ms_framework *fw, ms_policy *const *policies,
                              uint32_t npolicies) {
    memset(pd, 0, sizeof *pd);
    for (uint32_t i = 0; i < npolicies && !pd->pick; i++)
        if (ms_policy_hooks(policies[i]) & MS_LUA_HOOK_PICK_DEVICES) pd->pick = policies[i];
    if (!pd->pick) {
        ms_dynamic_resources_set_hooks(fw, NULL);
        return false;
    }
    pd->hooks = (ms_dra_hooks){.ctx = pd, .wants = pd_wants, .pick = pd_pick};
    return ms_dynamic_resources_set_hooks(fw, &pd->hooks);
}
