/* Compiling one selector requirement as labels.NewRequirement does: shared
 * by the text syntax (selector.c) and the JSON forms (codec's
 * decode_selector.c). */
#ifndef MOONSCHED_API_SELECTOR_BUILD_H
#define MOONSCHED_API_SELECTOR_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "moonsched/selector.h"

/* Text that is not NUL-terminated: a token, a JSON string. */
typedef struct ms_slice {
    const char *s;
    size_t n;
} ms_slice;

static inline bool ms_slice_eq(ms_slice s, const char *lit) {
    return s.n == strlen(lit) && memcmp(s.s, lit, s.n) == 0;
}

typedef enum ms_build_result { MS_BUILD_OK, MS_BUILD_INVALID, MS_BUILD_NOMEM } ms_build_result;

/* Validates, then compiles into r. On MS_BUILD_INVALID `why` says what
 * upstream would have said. */
ms_build_result ms_requirement_build(ms_interner *in, ms_arena *a, ms_slice key, ms_selector_op op,
                                     const ms_slice *vals, uint32_t n, ms_requirement *r, char *why,
                                     size_t nwhy);
/* Interns the values into `a`, sorted by id and without duplicates (upstream
 * keeps a set). false only when out of memory. */
bool ms_requirement_intern_values(ms_interner *in, ms_arena *a, const ms_slice *vals, uint32_t n,
                                  ms_requirement *r);

/* upstream's mergeLabelSetWithSelector (a topology spread constraint's
 * matchLabelKeys): the values the labels have for the keys, ANDed with s,
 * into out (requirements in a). A nil selector (matches nothing) stays nil;
 * no key with a value leaves s as it is. false only when out of memory. */
bool ms_label_selector_merge_label_keys(ms_arena *a, const ms_label_selector *s, const ms_str *keys,
                                        uint32_t nkeys, const ms_labels *labels, ms_label_selector *out);

#endif
