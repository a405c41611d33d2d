/* Growing arrays: the one capacity-doubling rule for arrays of structs
 * (ms_buf is the one for bytes). */
#ifndef MOONSCHED_BASE_ARRAY_H
#define MOONSCHED_BASE_ARRAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The capacity that holds `need` elements: `cap` itself when it does, else
 * doubling from 16 (at most UINT32_MAX). For arrays that cannot use
 * ms_array_grow: several arrays sharing one capacity, or copies into an
 * arena. */
uint32_t ms_array_capacity(uint32_t cap, uint32_t need);

/* The reallocation behind ms_array_grow, for when the array is full. */
bool ms_array_grow_slow(void **p, uint32_t *cap, uint32_t need, size_t size);

/* Makes *p, an array of `size`-byte elements with room for *cap, hold at
 * least `need` elements, by ms_array_capacity's rule. False when out of
 * memory (or the count would not fit), and then *p and *cap are unchanged.
 * Inline so that the common case, room enough, is one compare at the
 * caller: callers on hot paths need no capacity test of their own. */
static inline bool ms_array_grow(void **p, uint32_t *cap, uint32_t need, size_t size) {
    return need <= *cap || ms_array_grow_slow(p, cap, need, size);
}

#endif
