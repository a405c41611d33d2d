/* Lua policies as descheduler plugins ("lua:NAME"): their args, their
 * instances per profile, the deschedule and evictable hooks
 * (docs/descheduler.md, docs/policies.md). */
#ifndef MOONSCHED_DESCHEDULER_LUA_POLICIES_H
#define MOONSCHED_DESCHEDULER_LUA_POLICIES_H

#include <stdbool.h>

#include "codec/json_reader.h"
#include "descheduler/policy.h"

bool ms_desched_is_lua(const char *name);
/* A pluginConfig entry of a "lua:NAME" plugin: the name's form and the
 * args (`path` names them in messages). */
ms_rc ms_desched_lua_args_check(const cJSON *args, const char *path, const char *name, ms_error *err);
/* Enables the policy at a point ("deschedule", "balance", "filter",
 * "preevictionfilter"), loading the profile's instance from its
 * pluginConfig entry `pc` on first use. The point must have its hook. */
ms_rc ms_desched_lua_enable(ms_desched_policy *pol, ms_desched_profile *prof, const char *name,
                            const cJSON *pc, const char *point, ms_interner *in, ms_error *err);
/* Why a profile's evictable hooks protect the pod, or NULL. */
const char *ms_desched_lua_evictable(const ms_desched_profile *prof, const ms_pod *pod);
/* Frees every policy and the runtime. */
void ms_desched_lua_free(ms_desched_policy *pol);

#endif
