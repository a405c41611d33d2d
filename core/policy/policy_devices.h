/* Lua policies' pick_devices (lua_policy.h: ms_policy_pick_devices) as
 * DynamicResources' ms_dra_hooks, for a scheduler built with a fixed list
 * of policies (policy_list.h). ms_policy_set keeps its own, which follow
 * reloads. */
#ifndef MOONSCHED_POLICY_POLICY_DEVICES_H
#define MOONSCHED_POLICY_POLICY_DEVICES_H

#include <stdint.h>

#include "framework/plugins/dynamic_resources.h"
#include "moonsched/config.h"
#include "moonsched/lua_policy.h"

/* The first of the profile's policies that defines pick_devices (in the
 * profile's order) chooses the pod's devices. */
typedef struct ms_policy_devices {
    ms_dra_hooks hooks;            /* hooks.ctx is this struct */
    ms_policy *pick;
} ms_policy_devices;

/* ms_scheduler_policy_hooks.devices, ctx an ms_policy_list; NULL when no
 * policy the profile names defines pick_devices. */
const ms_dra_hooks *ms_policy_devices_for(void *ctx, uint32_t profile, const ms_profile_config *pc);

#endif
