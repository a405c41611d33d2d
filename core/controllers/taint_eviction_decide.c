/* The taint eviction verdict for one pod. See taint_eviction_decide.h. */
#include "controllers/taint_eviction_decide.h"

#include "api/toleration.h"

bool ms_te_has_no_execute(const ms_taint *taints, uint32_t n) {
    for (uint32_t i = 0; i < n; i++)
        if (taints[i].effect == MS_EFFECT_NO_EXECUTE) return true;
    return false;
}

bool ms_te_matching_tolerations(const ms_taint *taints, uint32_t n, const ms_toleration *tol, uint32_t ntol,
                                const ms_toleration **used) {
    bool all = true;
    for (uint32_t i = 0; i < n; i++) {
        used[i] = NULL;
        if (taints[i].effect != MS_EFFECT_NO_EXECUTE) continue;
        for (uint32_t j = 0; j < ntol && !used[i]; j++)
            if (ms_toleration_tolerates_taint(&tol[j], &taints[i])) used[i] = &tol[j];
        if (!used[i]) all = false;
    }
    return all;
}

int64_t ms_te_min_toleration_seconds(const ms_toleration *const *used, uint32_t n) {
    int64_t min = -1;
    bool any = false;
    for (uint32_t i = 0; i < n; i++) {
        if (!used[i]) continue;
        any = true;
        if (!used[i]->has_seconds) continue;
        int64_t s = used[i]->toleration_seconds;
        if (s <= 0) return 0;
        if (min < 0 || s < min) min = s;
    }
    /* upstream: no tolerations at all means "now" (its caller only gets
     * there with taints, which then were not tolerated) */
    return any ? min : 0;
}

ms_te_verdict ms_te_decide(const ms_pod *pod, const ms_taint *taints, const double *since, uint32_t n,
                           double *deadline) {
    *deadline = 0;
    if (!ms_te_has_no_execute(taints, n)) return MS_TE_NEVER;
    enum { STACK = 16 };
    const ms_toleration *stack[STACK];
    /* Nodes carry a handful of taints; beyond the stack, one at a time. */
    bool found = false;
    for (uint32_t base = 0; base < n; base += STACK) {
        uint32_t k = n - base < STACK ? n - base : STACK;
        if (!ms_te_matching_tolerations(taints + base, k, pod->tolerations, pod->ntolerations, stack))
            return MS_TE_DELETE_NOW;
        for (uint32_t i = 0; i < k; i++) {
            const ms_toleration *t = stack[i];
            if (!t || !t->has_seconds) continue;
            double start = since[base + i] > pod->meta.creation ? since[base + i] : pod->meta.creation;
            double at = start + (t->toleration_seconds > 0 ? (double)t->toleration_seconds : 0);
            if (!found || at < *deadline) *deadline = at;
            found = true;
        }
    }
    return found ? MS_TE_DELETE_AT : MS_TE_NEVER;
}
