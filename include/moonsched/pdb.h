/* PodDisruptionBudgets (policy/v1 and policy/v1beta1, which share one JSON
 * shape); the set of them the scheduler keeps is core/api/pdb_set.h.
 *
 * Selector semantics. The policy/v1 API says an empty selector ({}) selects
 * every pod of the namespace, policy/v1beta1 that it selects none; the
 * eviction API and the disruption controller follow the version. The
 * scheduler's preemption does not: upstream's filterPodsWithPDBViolation
 * (1.20 with v1beta1, and today with v1) skips a PDB whose selector is nil
 * or empty, and skips pods without labels. ms_pdb_selects implements the
 * scheduler's rule for both versions; `api_version` and `selector_empty` are
 * kept so that other users (a descheduler) can apply the API's rule. */
#ifndef MOONSCHED_PDB_H
#define MOONSCHED_PDB_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "moonsched/arena.h"
#include "moonsched/error.h"
#include "moonsched/intern.h"
#include "moonsched/meta.h"
#include "moonsched/pod.h"
#include "moonsched/selector.h"

#pragma GCC visibility push(default)

typedef struct cJSON cJSON;

typedef enum ms_pdb_api_version {
    MS_PDB_POLICY_V1 = 0,          /* also when apiVersion is absent */
    MS_PDB_POLICY_V1BETA1,
} ms_pdb_api_version;

/* intstr.IntOrString as a PDB uses it: an integer or "N%". */
typedef struct ms_int_or_percent {
    bool set;
    bool percent;
    int32_t value;
} ms_int_or_percent;

typedef struct ms_pdb {
    _Atomic int32_t refs;
    ms_arena arena;
    ms_object_meta meta;
    uint8_t api_version;           /* ms_pdb_api_version */

    /* spec */
    ms_label_selector selector;    /* nil (absent) selects nothing */
    bool selector_empty;           /* present but without requirements ({}) */
    ms_int_or_percent min_available;
    ms_int_or_percent max_unavailable;

    /* status */
    int32_t disruptions_allowed;
    int32_t current_healthy;
    int32_t desired_healthy;
    int32_t expected_pods;
    uint32_t ndisrupted;
    ms_str *disrupted_pods;        /* status.disruptedPods keys (pod names), sorted by id */
    /* The object's JSON as decoded, in the arena; NULL unless the decoder
     * had keep_raw. */
    const char *raw;
    size_t raw_len;
} ms_pdb;

/* Reference counting as ms_pod: a new PDB has refs == 1. */
ms_pdb *ms_pdb_alloc(void);
static inline ms_pdb *ms_pdb_ref(ms_pdb *p) {
    atomic_fetch_add_explicit(&p->refs, 1, memory_order_relaxed);
    return p;
}
void ms_pdb_unref(ms_pdb *p);

/* The scheduler's matching rule (see the top of this file): same namespace,
 * a non-empty selector that matches the pod's labels, and a pod with labels. */
bool ms_pdb_selects(const ms_pdb *pdb, const ms_pod *pod, const ms_interner *in);
/* The pod's name is in status.disruptedPods: the API server has already
 * counted its eviction. */
bool ms_pdb_disrupted(const ms_pdb *pdb, ms_str pod_name);

#pragma GCC visibility pop

#endif
