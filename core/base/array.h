/* Growing arrays: the one capacity-doubling rule for arrays of structs
 * (ms_buf is the one for bytes). */
#ifndef MOONSCHED_BASE_ARRAY_H
#define MOONSCHED_BASE_ARRAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Makes *p, an array of `size`-byte elements with room for *cap, hold at
 * least `need` elements: doubling, from 16. False when out of memory (or the
 * count would not fit), and then *p and *cap are unchanged. */
bool ms_array_grow(void **p, uint32_t *cap, uint32_t need, size_t size);

#endif
