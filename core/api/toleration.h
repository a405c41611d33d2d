/* Toleration matching, as upstream's v1.Toleration.ToleratesTaint: one place
 * for NodeUnschedulable, TaintToleration and the policy views. */
#ifndef MOONSCHED_TOLERATION_H
#define MOONSCHED_TOLERATION_H

#include <stdbool.h>
#include <stdint.h>

#include "moonsched/node.h"
#include "moonsched/pod.h"

/* Effect bits for ms_find_untolerated_taint's filter. */
#define MS_EFFECT_BIT(e) (1u << (e))
#define MS_DO_NOT_SCHEDULE_EFFECTS \
    (MS_EFFECT_BIT(MS_EFFECT_NO_SCHEDULE) | MS_EFFECT_BIT(MS_EFFECT_NO_EXECUTE))

/* An empty toleration effect matches every effect, an empty key matches every
 * key; Exists ignores the value, Equal compares it (absent == ""). */
bool ms_toleration_tolerates_taint(const ms_toleration *t, const ms_taint *taint);
/* True when any of the n tolerations tolerates the taint. */
bool ms_tolerations_tolerate_taint(const ms_toleration *t, uint32_t n, const ms_taint *taint);
/* The first taint whose effect is in `effects` (MS_EFFECT_BIT mask) that no
 * toleration tolerates, or NULL (upstream's FindMatchingUntoleratedTaint). */
const ms_taint *ms_find_untolerated_taint(const ms_taint *taints, uint32_t ntaints,
                                          const ms_toleration *t, uint32_t n, uint32_t effects);

#endif
