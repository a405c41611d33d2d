/* The readers of extender answers on their own, without the HTTP call that
 * brings them: what the fuzz target of extender responses drives. Each
 * reads an already parsed answer exactly as the scheduling cycle does for
 * the i-th extender (call order), with Go's encoding/json rules. */
#ifndef MOONSCHED_EXTENDER_ANSWERS_H
#define MOONSCHED_EXTENDER_ANSWERS_H

#include "scheduler/extender.h"

/* ExtenderFilterResult over the input nodes: res is allocated in a. */
ms_rc ms_extenders_read_filter(ms_extenders *e, uint32_t i, const cJSON *answer, ms_node_info *const *nodes,
                               uint32_t n, ms_arena *a, ms_extender_filter_result *res, ms_error *err);
/* HostPriorityList: row (n entries) gets score x weight x scale per input
 * node; all zero when the answer is rejected. */
ms_rc ms_extenders_read_priorities(ms_extenders *e, uint32_t i, const cJSON *answer, ms_node_info *const *nodes,
                                   uint32_t n, int64_t *row, ms_error *err);
/* ExtenderBindingResult: an error when it carries one. */
ms_rc ms_extenders_read_binding(const cJSON *answer, ms_error *err);
/* ExtenderPreemptionResult: NodeNameToMetaVictims back to nodes and pods of
 * snap; the candidates are allocated in a. */
ms_rc ms_extenders_read_victims(ms_extenders *e, uint32_t i, const cJSON *answer, const ms_snapshot *snap,
                                ms_arena *a, ms_preemption_candidate **out, uint32_t *nout, ms_error *err);

#endif
