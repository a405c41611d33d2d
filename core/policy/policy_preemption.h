/* Lua policies' preemption hooks (lua_policy.h: ms_policy_select_victims,
 * ms_policy_pick_preemption) as DefaultPreemption's ms_preemption_hooks,
 * for a scheduler built with a fixed list of policies (policy_list.h).
 * ms_policy_set keeps its own, which follow reloads. */
#ifndef MOONSCHED_POLICY_POLICY_PREEMPTION_H
#define MOONSCHED_POLICY_POLICY_PREEMPTION_H

#include <stdbool.h>
#include <stdint.h>

#include "framework/plugins/preemption.h"
#include "moonsched/config.h"
#include "moonsched/lua_policy.h"

/* The first policy of the list that defines select_victims replaces
 * SelectVictimsOnNode, the first that defines pick_preemption replaces the
 * choice (consulted only among several candidates, as upstream takes a
 * single one as it is); a policy answering nil falls back to the default. */
typedef struct ms_policy_preemption {
    ms_preemption_hooks hooks;     /* hooks.ctx is this struct */
    ms_policy *select;             /* NULL: default victims */
    ms_policy *pick;               /* NULL: default choice */
} ms_policy_preemption;

/* DefaultPreemption's candidates as pick_preemption sees them, in the
 * cycle's arena; NULL when out of memory. */
ms_preemption_option *ms_policy_preemption_options(ms_cycle *c, const ms_preemption_candidate *cands,
                                                   uint32_t n);

/* ms_scheduler_policy_hooks.preemption, ctx an ms_policy_list
 * (policy_list.h): a profile consults the policies it names, in the
 * profile's order. */
const ms_preemption_hooks *ms_policy_preemptions_for(void *ctx, uint32_t profile,
                                                     const ms_profile_config *pc);

#endif
