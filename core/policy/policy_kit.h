/* The policy kit outside the repository: `moonsched policy test` runs a
 * user's busted specs against this binary's own library, and `moonsched
 * policy init` writes a skeleton policy, its spec and the luacheck and
 * LuaLS settings. Both find the kit from the binary's own path, so that
 * an installed moonsched (`make install`: PREFIX/bin, PREFIX/lib/moonsched,
 * PREFIX/share/moonsched) and one in its build directory both work, from
 * any directory and without environment variables. docs/policies.md
 * ("Testing a policy") is the guide. */
#ifndef MOONSCHED_POLICY_POLICY_KIT_H
#define MOONSCHED_POLICY_POLICY_KIT_H

#include <limits.h>
#include <stdio.h>

#include "moonsched/error.h"

typedef struct ms_policy_kit {
    char exe[PATH_MAX];      /* this binary */
    char lua[PATH_MAX];      /* the directory of moonsched/kit.lua and luacheck-std.lua */
    char types[PATH_MAX];    /* the LuaLS annotations (policy.lua) */
    char lib[PATH_MAX];      /* libmoonsched.so */
} ms_policy_kit;

/* Installed: BIN/../share/moonsched/{kit,types} and
 * BIN/../lib/moonsched/libmoonsched.so. Built: the library beside the
 * binary and the repository's lua/kit and lua/types one level up. MS_ENOENT
 * with err saying where it looked otherwise. */
ms_rc ms_policy_kit_find(ms_policy_kit *k, ms_error *err);

/* Runs `busted --lua=luajit [busted_args] SPEC...` (SPEC "." when none)
 * with the kit on LUA_PATH and MOONSCHED_LIB, MOONSCHED_BIN naming the
 * library and the binary. Returns only when busted cannot be run. */
ms_rc ms_policy_test(const ms_policy_kit *k, char *const *specs, int nspecs, char *const *busted_args,
                     int nbusted, ms_error *err);

/* Writes policy.lua, policy_spec.lua, .luacheckrc and .luarc.json into
 * dir, keeping the files already there; each file's fate on out. */
ms_rc ms_policy_init(const ms_policy_kit *k, const char *dir, FILE *out, ms_error *err);

#endif
