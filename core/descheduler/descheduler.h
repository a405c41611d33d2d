/* A descheduling pass: every profile of a policy, its Deschedule plugins
 * then its Balance plugins (upstream's order), on one set of nodes, with
 * the policy's limits shared by all. Produces the planned evictions with
 * their strategy and reason, and the pods skipped with theirs; carrying
 * them out (the Eviction API, or a simulation) is the caller's. */
#ifndef MOONSCHED_DESCHEDULER_DESCHEDULER_H
#define MOONSCHED_DESCHEDULER_DESCHEDULER_H

#include "descheduler/pass.h"
#include "descheduler/config_file.h"

/* Runs the pass whose nodes, clock and hooks ms_desched_pass_init and the
 * caller set up. */
void ms_desched_run(ms_desched_pass *ps);

#endif
