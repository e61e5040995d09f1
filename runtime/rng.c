/* rng: xoshiro256** (Blackman and Vigna's public-domain design), seeded by
 * splitmix64, with unbiased bounded draws by rejection. */
#include "rng.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void aw_rng_seed(aw_rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t aw_rng_next(aw_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint32_t aw_rng_below(aw_rng *r, uint32_t n)
{
    if (n <= 1)
        return 0;
    /* Reject the top partial block so every value is equally likely. */
    uint64_t limit = UINT64_MAX - (UINT64_MAX % n);
    uint64_t v;
    do
        v = aw_rng_next(r);
    while (v >= limit);
    return (uint32_t)(v % n);
}

void aw_rng_shuffle(aw_rng *r, int *a, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)aw_rng_below(r, (uint32_t)i + 1);
        int t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

uint64_t aw_rng_derive(uint64_t seed, uint64_t stream)
{
    uint64_t x = seed ^ (stream * 0xd1b54a32d192ed03ull);
    splitmix64(&x);
    return splitmix64(&x);
}
