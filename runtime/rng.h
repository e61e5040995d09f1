/* rng: the game's one random generator (xoshiro256** seeded through
 * splitmix64 from a 64-bit seed). Every random choice of a game — the deal,
 * talk orders, tie breaks, substitutes — is drawn from it, so the same seed
 * and the same agents give the same game. Uses nothing else. */
#ifndef AW_RNG_H
#define AW_RNG_H

#include <stdint.h>

typedef struct aw_rng {
    uint64_t s[4];
} aw_rng;

void aw_rng_seed(aw_rng *r, uint64_t seed);
uint64_t aw_rng_next(aw_rng *r);
/* Uniform integer in [0, n), n >= 1, without modulo bias. */
uint32_t aw_rng_below(aw_rng *r, uint32_t n);
/* Fisher-Yates shuffle of n ints. */
void aw_rng_shuffle(aw_rng *r, int *a, int n);
/* Derives an independent seed from a seed and a stream number (for agents'
 * own math.random, so that what an agent draws never shifts the game's
 * draws). */
uint64_t aw_rng_derive(uint64_t seed, uint64_t stream);

#endif
