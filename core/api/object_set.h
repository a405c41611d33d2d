/* The set the scheduler keeps of a namespaced API object that selects
 * pods (PodDisruptionBudgets, the default spreading's workloads): by
 * kind/namespace/name, and listed per namespace the way upstream's listers
 * are read (every object of the pod's namespace, once per pod). Items are
 * the caller's: the set stores pointers and hands them back on removal.
 * Owned by one thread, like the cache. */
#ifndef MOONSCHED_API_OBJECT_SET_H
#define MOONSCHED_API_OBJECT_SET_H

#include <stdbool.h>
#include <stdint.h>

#include "base/map.h"
#include "moonsched/error.h"
#include "moonsched/intern.h"
#include "moonsched/labels.h"
#include "moonsched/pod.h"
#include "moonsched/selector.h"

/* Kinds one set can hold: the workloads' four. */
#define MS_OBJECT_SET_KINDS 4

typedef struct ms_object_set {
    ms_map by_key[MS_OBJECT_SET_KINDS];  /* namespace << 32 | name -> item */
    ms_map by_ns;                        /* namespace -> list of items of every kind */
    uint32_t len;
} ms_object_set;

void ms_object_set_init(ms_object_set *s);
/* Calls release (when not NULL) for every item, then frees the set's own
 * memory. */
void ms_object_set_free(ms_object_set *s, void (*release)(void *item));
/* NULL when absent. */
void *ms_object_set_get(const ms_object_set *s, unsigned kind, ms_str namespace_, ms_str name);
/* Adds an item under a key that is absent. MS_ENOMEM leaves the set as it
 * was. */
ms_rc ms_object_set_add(ms_object_set *s, unsigned kind, ms_str namespace_, ms_str name, void *item);
/* Puts `with` in the place (the same place in its namespace's list) of the
 * present item of that key, and returns that item. */
void *ms_object_set_replace(ms_object_set *s, unsigned kind, ms_str namespace_, ms_str name, void *with);
/* Removes and returns the item of that key; NULL when absent. */
void *ms_object_set_remove(ms_object_set *s, unsigned kind, ms_str namespace_, ms_str name);
/* The items of a namespace (in no particular order): *n of them, borrowed
 * until the next change to the set. */
void *const *ms_object_set_in(const ms_object_set *s, ms_str namespace_, uint32_t *n);
/* Calls fn for every item, kind by kind, in no particular order. */
void ms_object_set_each(const ms_object_set *s, void (*fn)(void *ctx, void *item), void *ctx);

/* The rule upstream's listers and its PDB check share for an object of the
 * set: the pod has labels, is in the object's namespace, and the selector
 * is neither nil nor empty and matches. */
bool ms_object_set_selects(ms_str namespace_, const ms_label_selector *selector, const ms_pod *pod,
                           const ms_interner *in);

#endif
