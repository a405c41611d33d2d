/* Toleration matching against taints. */
#include "api/toleration.h"

/* Decoders may leave an empty string as either id; both mean "". */
static inline ms_str empty_as_none(ms_str s) { return s == MS_STR_EMPTY ? MS_STR_NONE : s; }

bool ms_toleration_tolerates_taint(const ms_toleration *t, const ms_taint *taint) {
    if (t->effect != MS_EFFECT_NONE && t->effect != taint->effect) return false;
    ms_str key = empty_as_none(t->key);
    if (key != MS_STR_NONE && key != empty_as_none(taint->key)) return false;
    switch (t->op) {
    case MS_TOL_EXISTS: return true;
    case MS_TOL_EQUAL: return empty_as_none(t->value) == empty_as_none(taint->value);
    default: return false;
    }
}

bool ms_tolerations_tolerate_taint(const ms_toleration *t, uint32_t n, const ms_taint *taint) {
    for (uint32_t i = 0; i < n; i++)
        if (ms_toleration_tolerates_taint(&t[i], taint)) return true;
    return false;
}

const ms_taint *ms_find_untolerated_taint(const ms_taint *taints, uint32_t ntaints,
                                          const ms_toleration *t, uint32_t n, uint32_t effects) {
    for (uint32_t i = 0; i < ntaints; i++) {
        if (!(effects & MS_EFFECT_BIT(taints[i].effect))) continue;
        if (!ms_tolerations_tolerate_taint(t, n, &taints[i])) return &taints[i];
    }
    return NULL;
}
