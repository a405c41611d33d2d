/* Explain's answer for people: the JSON that ms_scheduler_explain builds
 * (with the policies added by ms_explain_add_policies) printed as text, by
 * `moonsched explain` and `simulate --explain`. docs/explain.md describes
 * both forms. */
#ifndef MOONSCHED_SIMULATE_EXPLAIN_TEXT_H
#define MOONSCHED_SIMULATE_EXPLAIN_TEXT_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "moonsched/policy_set.h"

/* Adds "policies": every Lua policy with its profile, file and version
 * (1 + the reloads swapped in; 0 while none loaded). ps may be NULL. */
void ms_explain_add_policies(cJSON *explain, const ms_policy_set *ps);

/* The explanation as text into out. */
void ms_explain_print(FILE *out, const cJSON *explain);

#endif
