/* Shadow policies: Lua policies a profile lists with "mode": "shadow".
 * Each is evaluated beside its profile in the same cycle, over the nodes
 * the profile found feasible (the same snapshot): its PreFilter, Filter
 * and Score, combined with the profile's own totals, give the node it
 * would choose; the choice is compared with the profile's and never
 * applied (no assume, no bind, no preemption, no random draw). Agreements
 * and disagreements are counted; the latest disagreements are kept in a
 * bounded ring with the scores that decided them.
 *
 * Everything here runs on the scheduler thread. */
#ifndef MOONSCHED_SCHEDULER_SHADOW_H
#define MOONSCHED_SCHEDULER_SHADOW_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>

#include "moonsched/config.h"
#include "moonsched/error.h"
#include "moonsched/framework.h"
#include "moonsched/intern.h"

typedef struct ms_scheduler ms_scheduler;
struct ms_inflight;

/* Disagreements kept per shadow policy. */
#define MS_SHADOW_LOG 256u

typedef struct ms_shadow_disagreement {
    uint64_t cycle;
    double time;
    ms_str ns, name;
    ms_str live_node;              /* the profile's choice */
    ms_str shadow_node;            /* the shadow's, or MS_STR_NONE: no node */
    /* At each of the two nodes: the profile's total and the shadow
     * policy's weighted score (0 when it does not score or did not see
     * the node). */
    int64_t live_at_live, shadow_at_live, live_at_shadow, shadow_at_shadow;
    uint32_t feasible;             /* nodes the profile found feasible */
    uint32_t shadow_feasible;      /* of those, the nodes the shadow kept */
    char reason[192];              /* why the shadow refused the live node ("" when it did not) */
} ms_shadow_disagreement;

typedef struct ms_shadow {
    uint32_t profile;
    char plugin[64];
    ms_profile_config pc;          /* PrioritySort, DefaultBinder and the policy */
    ms_framework fw;
    bool built;
    uint64_t agree, disagree, errors;
    /* Cycles it sat out while disabled or with no version loaded: not
     * decisions (a neutral answer would agree with everything). */
    uint64_t skipped;
    double cpu, cpu_max;           /* thread CPU seconds of the shadow passes */
    ms_shadow_disagreement *log;   /* ring of MS_SHADOW_LOG */
    uint32_t next, nlog;
} ms_shadow;

/* The shadow plugins of profile `i` (pc) become s->shadows entries;
 * *live receives pc without them (what the profile runs). */
ms_rc ms_shadow_build(ms_scheduler *s, uint32_t i, const ms_profile_config *pc, int32_t global_pct,
                      const ms_plugin_ops *const *oot, uint32_t noot, ms_profile_config *live,
                      ms_error *err);
void ms_shadow_free_all(ms_scheduler *s);


/* A reload changed a plugin's hooks: the shadows running it follow. */
ms_rc ms_shadow_check_ops(const ms_scheduler *s, const ms_plugin_ops *live, const ms_plugin_ops *candidate,
                          ms_error *err);
void ms_shadow_refresh(ms_scheduler *s, const ms_plugin_ops *ops);

/* Counts and the disagreements, newest first (docs/policies.md):
 * {"policies": [{"profile", "policy", "decisions", "agree", "disagree",
 * "errors", "skipped", "cpuSeconds", "cpuMaxSeconds", "disagreements": [...]}]}. */
cJSON *ms_scheduler_shadow_json(const ms_scheduler *s);
uint32_t ms_scheduler_shadow_count(const ms_scheduler *s);
const ms_shadow *ms_scheduler_shadow_at(const ms_scheduler *s, uint32_t i);
const char *ms_scheduler_profile_name(const ms_scheduler *s, uint32_t i);

#endif
