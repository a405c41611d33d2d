/* A small seedable PRNG (splitmix64-seeded xoshiro256**). Each owner keeps its
 * own state: no global randomness, and `--seed` makes runs repeatable. */
#ifndef MOONSCHED_RNG_H
#define MOONSCHED_RNG_H

#include <stdint.h>

typedef struct ms_rng {
    uint64_t s[4];
} ms_rng;

static inline uint64_t ms_rng_splitmix(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline void ms_rng_seed(ms_rng *r, uint64_t seed) {
    for (int i = 0; i < 4; i++) r->s[i] = ms_rng_splitmix(&seed);
}

static inline uint64_t ms_rng_next(ms_rng *r) {
    uint64_t *s = r->s;
    uint64_t x = s[1] * 5;
    uint64_t result = ((x << 7) | (x >> 57)) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = (s[3] << 45) | (s[3] >> 19);
    return result;
}

/* Uniform in [0, n), n > 0. */
static inline uint64_t ms_rng_below(ms_rng *r, uint64_t n) {
    return (uint64_t)(((unsigned __int128)ms_rng_next(r) * n) >> 64);
}

#endif
