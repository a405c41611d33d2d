/* Labels as sorted (key id, value id) pairs; lookups are a binary search on
 * integers. Also used for nodeSelector maps. */
#ifndef MOONSCHED_LABELS_H
#define MOONSCHED_LABELS_H

#include <stdbool.h>
#include <stdint.h>

#include "moonsched/intern.h"

#pragma GCC visibility push(default)

typedef struct ms_label {
    ms_str key;
    ms_str value;
} ms_label;

typedef struct ms_labels {
    uint32_t n;
    ms_label *items;   /* sorted by key id, keys unique */
} ms_labels;

/* Value id, or MS_STR_NONE when the key is absent. */
ms_str ms_labels_get(const ms_labels *l, ms_str key);
static inline bool ms_labels_has(const ms_labels *l, ms_str key) {
    return ms_labels_get(l, key) != MS_STR_NONE;
}
/* Sorts items in place by key and drops duplicate keys (last one wins). */
void ms_labels_sort(ms_labels *l);
/* true when every pair of sub is in l (a nodeSelector match). */
bool ms_labels_subset(const ms_labels *sub, const ms_labels *l);

/* Annotations keep their values as plain strings: they can be large and are
 * rarely shared. */
typedef struct ms_annotation {
    ms_str key;
    const char *value;
} ms_annotation;

typedef struct ms_annotations {
    uint32_t n;
    ms_annotation *items;   /* sorted by key id */
} ms_annotations;

const char *ms_annotations_get(const ms_annotations *a, ms_str key);

#pragma GCC visibility pop

#endif
