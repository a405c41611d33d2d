/* Amortised growth for arrays of structs, written once. */
#include "base/array.h"

#include <stdlib.h>

bool ms_array_grow(void **p, uint32_t *cap, uint32_t need, size_t size) {
    if (need <= *cap) return true;
    uint64_t c = *cap ? (uint64_t)*cap * 2 : 16;
    while (c < need) c *= 2;
    if (c > UINT32_MAX) c = UINT32_MAX;
    if (size && c > SIZE_MAX / size) return false;
    void *np = realloc(*p, (size_t)c * size);
    if (!np) return false;
    *p = np;
    *cap = (uint32_t)c;
    return true;
}
