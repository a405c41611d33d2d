/* The Lua policies' figures as `run` serves them: moonsched_policy_*
 * (calls, failures, budget kills, reloads, disabled), one series per
 * (profile, plugin), and the shadow policies'
 * moonsched_shadow_decisions_total and moonsched_shadow_skipped_total.
 * The scheduler thread copies the policy set's and the scheduler's counts
 * in whole at cycle boundaries (never per node); the HTTP thread renders
 * them: one mutex. */
#ifndef MOONSCHED_POLICY_POLICY_METRICS_H
#define MOONSCHED_POLICY_POLICY_METRICS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"

typedef struct ms_policy_metrics ms_policy_metrics;

/* One policy plugin of a profile (ms_policy_info's counts). */
typedef struct ms_policy_figures {
    const char *profile;
    const char *plugin;
    uint64_t calls, failures, budget_kills, reloads_ok, reloads_failed;
    bool disabled;
} ms_policy_figures;

/* One shadow policy (ms_shadow's counts). */
typedef struct ms_shadow_figures {
    const char *profile;
    const char *policy;
    uint64_t agree, disagree;
    uint64_t skipped;              /* cycles sat out while disabled (not decisions) */
} ms_shadow_figures;

/* NULL when out of memory. */
ms_policy_metrics *ms_policy_metrics_new(void);
void ms_policy_metrics_free(ms_policy_metrics *m);
/* The figures replaced whole (copied): a policy gone loses its series.
 * Out of memory: the previous figures stay. */
void ms_policy_metrics_set_policies(ms_policy_metrics *m, const ms_policy_figures *p, uint32_t n);
void ms_policy_metrics_set_shadows(ms_policy_metrics *m, const ms_shadow_figures *p, uint32_t n);
/* ms_metrics_collector (ctx: the metrics): the policies' families, always
 * announced; the shadows' only when there are shadows. */
void ms_policy_metrics_collect(void *ctx, ms_buf *b);

#endif
