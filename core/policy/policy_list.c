/* A fixed list of policies given to a scheduler: which of them a profile
 * names, and the hooks that reach its DefaultPreemption and
 * DynamicResources. */
#include "policy/policy_list.h"

#include <string.h>

#include "policy/policy_devices.h"
#include "policy/policy_preemption.h"

void ms_policy_list_each(const ms_policy_list *l, const ms_profile_config *pc,
                         void (*visit)(void *arg, ms_policy *p), void *arg) {
    for (uint32_t k = 0; k < pc->nplugins; k++)
        for (uint32_t j = 0; j < l->npolicies; j++)
            if (strcmp(pc->plugins[k].name, ms_policy_name(l->policies[j])) == 0) visit(arg, l->policies[j]);
}

ms_scheduler_policy_hooks ms_policy_list_hooks(ms_policy_list *l) {
    return (ms_scheduler_policy_hooks){.ctx = l,
                                       .preemption = l->preemption ? ms_policy_preemptions_for : NULL,
                                       .devices = l->devices ? ms_policy_devices_for : NULL};
}
