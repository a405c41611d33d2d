/* Lua policies as descheduler plugins ("lua:NAME"): their args, their
 * instances per profile, the deschedule and evictable hooks
 * (docs/descheduler.md, docs/policies.md), given to the descheduler as its
 * extension table. */
#ifndef MOONSCHED_POLICY_DESCHED_LUA_H
#define MOONSCHED_POLICY_DESCHED_LUA_H

#include "descheduler/extension.h"
#include "descheduler/plugin.h"

/* For ms_desched_policy_parse, ms_desched_policy_load_with and
 * ms_desched_policy_source_init. */
extern const ms_desched_extension ms_desched_lua_extension;

/* A Lua policy's deschedule(nodes) (args: the ms_policy). Not in the
 * registry: policies are named "lua:NAME" by the configuration. */
extern const ms_desched_plugin_def ms_desched_lua_strategy;

#endif
