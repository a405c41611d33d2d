/* A scheduler built with a fixed list of Lua policies: the policies, room
 * for each profile's hooks, and the ms_scheduler_policy_hooks that give
 * them to the scheduler (ms_scheduler_options.policy_hooks). ms_policy_set
 * keeps hooks of its own, which follow reloads. */
#ifndef MOONSCHED_POLICY_POLICY_LIST_H
#define MOONSCHED_POLICY_POLICY_LIST_H

#include <stdint.h>

#include "moonsched/config.h"
#include "moonsched/lua_policy.h"
#include "moonsched/scheduler.h"

struct ms_policy_preemption;
struct ms_policy_devices;

/* Everything must outlive the scheduler. */
typedef struct ms_policy_list {
    ms_policy *const *policies;
    uint32_t npolicies;
    struct ms_policy_preemption *preemption;   /* nprofiles of them */
    struct ms_policy_devices *devices;         /* nprofiles of them */
    uint32_t nprofiles;
} ms_policy_list;

/* The hooks for l (ctx l): a profile consults the policies it names. */
ms_scheduler_policy_hooks ms_policy_list_hooks(ms_policy_list *l);

/* Calls visit with each policy of l that profile pc names, in the
 * profile's order. */
void ms_policy_list_each(const ms_policy_list *l, const ms_profile_config *pc,
                         void (*visit)(void *arg, ms_policy *p), void *arg);

#endif
