/* The descheduling pass over the profiles of a policy: upstream runs every
 * profile's Deschedule plugins, then every profile's Balance plugins. */
#include "descheduler/descheduler.h"

#include "base/clock.h"
#include "descheduler/plugin.h"

static void run_point(ms_desched_pass *ps, bool balance) {
    const ms_desched_policy *pol = ps->policy;
    for (uint32_t i = 0; i < pol->nprofiles; i++) {
        const ms_desched_profile *prof = &pol->profiles[i];
        uint32_t n = balance ? prof->nbalance : prof->ndeschedule;
        const ms_desched_plugin *list = balance ? prof->balance : prof->deschedule;
        ps->profile = prof;
        for (uint32_t k = 0; k < n; k++) {
            ps->strategy = list[k].name ? list[k].name : list[k].def->name;
            ps->plugin = &list[k];
            double t0 = ms_clock_monotonic();
            list[k].def->run(list[k].args, ps);
            if (ps->strategy_done)
                ps->strategy_done(ps->done_ctx, prof->name, ps->strategy, ms_clock_monotonic() - t0);
        }
    }
}

void ms_desched_run(ms_desched_pass *ps) {
    run_point(ps, false);
    run_point(ps, true);
    ps->profile = NULL;
    ps->strategy = NULL;
    ps->plugin = NULL;
}
