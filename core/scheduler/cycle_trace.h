/* Placing cycles kept whole, for `simulate --output html`: every node's
 * Filter verdict (or that the pass did not reach it) and every feasible node's
 * weighted per-plugin scores, as the cycle that chose the pod's node
 * computed them. Kept for the first ms_scheduler_options.trace_pods pods
 * a cycle chooses a node for; with 0, a cycle only tests that it is 0.
 * Scheduler thread only. */
#ifndef MOONSCHED_SCHEDULER_CYCLE_TRACE_H
#define MOONSCHED_SCHEDULER_CYCLE_TRACE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct ms_scheduler ms_scheduler;
typedef struct ms_inflight ms_inflight;

/* A cycle is kept by ms_cycle_trace_observer (cycle_observer.h). */
void ms_sched_traces_free(ms_scheduler *s);

/* The last kept cycle of pod uid_hash (see docs/simulate.md, "HTML
 * report"): {"nodes", "evaluatedNodes", "feasibleNodes", "selectedNode",
 * "nodeResults": [{"node", "filter" | "notEvaluated" | "scores" and
 * "total", "selected"}]} in snapshot order, or NULL. "notEvaluated" says
 * why the pass did not reach the node: "percentageOfNodesToScore" (enough
 * feasible nodes were found) or "nominatedNode" (the pod's nominated node
 * fit, and was taken alone). Owned by the scheduler. */
const cJSON *ms_scheduler_cycle_trace(const ms_scheduler *s, uint64_t uid_hash);

#endif
