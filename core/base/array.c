/* Amortised growth for arrays of structs, written once. */
#include "base/array.h"

#include <stdlib.h>

uint32_t ms_array_capacity(uint32_t cap, uint32_t need) {
    if (need <= cap) return cap;
    uint64_t c = cap ? (uint64_t)cap * 2 : 16;
    while (c < need) c *= 2;
    return c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
}

bool ms_array_grow_slow(void **p, uint32_t *cap, uint32_t need, size_t size) {
    if (need <= *cap) return true;
    uint32_t c = ms_array_capacity(*cap, need);
    if (size && c > SIZE_MAX / size) return false;
    void *np = realloc(*p, (size_t)c * size);
    if (!np) return false;
    *p = np;
    *cap = c;
    return true;
}
