/* What the taint eviction controller does with one bound pod on one node
 * at one time, as pure functions (no state, no clock, no I/O), after
 * upstream's NoExecuteTaintManager (pkg/controller/tainteviction):
 *
 *   - no NoExecute taint on the node: nothing (a scheduled deletion is
 *     cancelled);
 *   - a NoExecute taint the pod does not tolerate: delete now;
 *   - every one tolerated: for each taint the first toleration that
 *     tolerates it (upstream's GetMatchingTolerations); the smallest
 *     tolerationSeconds among them (<= 0: now) says when; none has
 *     tolerationSeconds: never.
 *
 * Where upstream counts every countdown from the moment its controller
 * processed the pod, this one counts each taint's from a time the cluster
 * agrees on: the taint's timeAdded, else when this process first saw the
 * taint; and never from before the pod itself existed (its
 * creationTimestamp), so a pod that comes to a node tainted long ago gets
 * its whole tolerationSeconds, as upstream gives it. */
#ifndef MOONSCHED_CONTROLLERS_TAINT_EVICTION_DECIDE_H
#define MOONSCHED_CONTROLLERS_TAINT_EVICTION_DECIDE_H

#include <stdbool.h>
#include <stdint.h>

#include "moonsched/node.h"
#include "moonsched/pod.h"

typedef enum ms_te_verdict {
    MS_TE_NEVER = 0,               /* nothing to do: untainted, or tolerated for ever */
    MS_TE_DELETE_NOW,              /* an untolerated NoExecute taint */
    MS_TE_DELETE_AT,               /* tolerated for a while: delete at the deadline */
} ms_te_verdict;

/* Upstream's GetMatchingTolerations over the NoExecute taints among
 * taints[0..n): true when each is tolerated; used[i] gets the first
 * toleration that tolerates taints[i] (NULL for taints of other effects).
 * used has room for n. */
bool ms_te_matching_tolerations(const ms_taint *taints, uint32_t n, const ms_toleration *tol, uint32_t ntol,
                                const ms_toleration **used);

/* Upstream's getMinTolerationTime, in seconds: 0 when any used toleration
 * has tolerationSeconds <= 0 (or none is given), -1 when none has
 * tolerationSeconds (for ever), else the smallest. NULL entries are
 * skipped. */
int64_t ms_te_min_toleration_seconds(const ms_toleration *const *used, uint32_t n);

/* The verdict for pod on a node with taints[0..n) (any effects: only
 * NoExecute ones count); since[i] is when taints[i]'s countdown starts
 * (timeAdded or first seen; unix seconds). For MS_TE_DELETE_AT, *deadline
 * is the earliest of max(since[i], pod's creation) + tolerationSeconds of
 * taints[i]'s toleration, over taints whose toleration has seconds; a
 * deadline not after `now` is still MS_TE_DELETE_AT (the caller deletes at
 * once). */
ms_te_verdict ms_te_decide(const ms_pod *pod, const ms_taint *taints, const double *since, uint32_t n,
                           double *deadline);

/* True when the node has at least one NoExecute taint. */
bool ms_te_has_no_execute(const ms_taint *taints, uint32_t n);

#endif
