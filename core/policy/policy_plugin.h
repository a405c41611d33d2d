/* A policy as a framework plugin (the public half is ms_policy_* in
 * moonsched/lua_policy.h): what the policy layer alone uses. */
#ifndef MOONSCHED_POLICY_POLICY_PLUGIN_H
#define MOONSCHED_POLICY_POLICY_PLUGIN_H

#include <stdint.h>

#include "moonsched/lua_policy.h"

/* The default NormalizeScore for policy scores: with lo = min(0, min score)
 * and hi = max score, each score becomes round(100 * (s - lo) / (hi - lo));
 * all 0 when hi == lo. Non-negative scores are thus scaled by 100 / max
 * (upstream's DefaultNormalizeScore), negative ones shifted first. */
void ms_lua_normalize(const double *raw, uint32_t n, int64_t *out);

#endif
