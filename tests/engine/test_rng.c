/* The game's generator and the agents' seeds (rng.h): ChaCha20's block
 * function against RFC 8439's test vector, determinism, domain separation
 * between the engine's stream and the seeds handed to seats, and unbiased
 * bounded draws. */
#include <stdint.h>

#include "rng.h"
#include "test.h"

static void test_rfc8439_vector(void)
{
    /* RFC 8439 §2.3.2: key 00 01 .. 1f, nonce 00:00:00:09:00:00:00:4a:00:00:00:00, counter 1. */
    uint32_t key[8], out[16];
    for (int i = 0; i < 8; i++)
        key[i] = (uint32_t)(4 * i) | (uint32_t)(4 * i + 1) << 8 | (uint32_t)(4 * i + 2) << 16 |
                 (uint32_t)(4 * i + 3) << 24;
    const uint32_t nonce[3] = {0x09000000u, 0x4a000000u, 0};
    static const uint32_t want[16] = {0xe4e7f110u, 0x15593bd1u, 0x1fdd0f50u, 0xc47120a3u, 0xc7f4d1c7u, 0x0368c033u,
                                      0x9aaa2204u, 0x4e6cd4c3u, 0x466482d2u, 0x09aa9f07u, 0x05d7c214u, 0xa2028bd9u,
                                      0xd19c12b5u, 0xb94e16deu, 0xe883d0cbu, 0x4e3c50a2u};
    aw_rng_chacha20_block(key, 1, nonce, out);
    for (int i = 0; i < 16; i++)
        CHECK_MSG(out[i] == want[i], "word %d: %08x, want %08x", i, out[i], want[i]);
}

static void test_determinism_and_separation(void)
{
    aw_rng a, b, c;
    aw_rng_seed(&a, 42);
    aw_rng_seed(&b, 42);
    aw_rng_seed(&c, 43);
    int same = 1, differs = 0;
    uint64_t first = 0;
    for (int i = 0; i < 100; i++) { /* crosses several blocks */
        uint64_t x = aw_rng_next(&a), y = aw_rng_next(&b), z = aw_rng_next(&c);
        if (i == 0)
            first = x;
        same &= x == y;
        differs += x != z;
    }
    CHECK(same);
    CHECK_INT(differs, 100);
    /* A seat's seed is not a value of the engine's stream, and seats differ. */
    uint64_t seeds[19];
    for (int s = 0; s <= 18; s++) {
        seeds[s] = aw_rng_derive(42, (uint64_t)s);
        CHECK(seeds[s] != first);
        CHECK(seeds[s] != 42);
        for (int t = 0; t < s; t++)
            CHECK(seeds[s] != seeds[t]);
    }
    CHECK(aw_rng_derive(42, 1) == aw_rng_derive(42, 1));
    CHECK(aw_rng_derive(42, 1) != aw_rng_derive(43, 1));
    /* Consecutive game seeds (play --games) give unrelated seat seeds: about
     * half of the bits differ. */
    int bits = 0;
    for (uint64_t g = 1000; g < 1100; g++)
        bits += __builtin_popcountll(aw_rng_derive(g, 3) ^ aw_rng_derive(g + 1, 3));
    CHECK_MSG(bits > 100 * 28 && bits < 100 * 36, "%d differing bits over 100 pairs", bits);
}

static void test_below_uniform(void)
{
    aw_rng r;
    aw_rng_seed(&r, 7);
    enum { N = 15, DRAWS = 150000 };
    long count[N] = {0};
    for (int i = 0; i < DRAWS; i++) {
        uint32_t v = aw_rng_below(&r, N);
        CHECK(v < N);
        if (v < N)
            count[v]++;
    }
    double expect = (double)DRAWS / N, chi2 = 0;
    for (int i = 0; i < N; i++)
        chi2 += (count[i] - expect) * (count[i] - expect) / expect;
    /* 14 degrees of freedom: 36.1 is the 0.999 quantile. */
    CHECK_MSG(chi2 < 36.1, "chi-square %.1f", chi2);
    CHECK_INT(aw_rng_below(&r, 1), 0);
    int a[10];
    for (int i = 0; i < 10; i++)
        a[i] = i;
    aw_rng_shuffle(&r, a, 10);
    int sum = 0;
    for (int i = 0; i < 10; i++)
        sum += a[i];
    CHECK_INT(sum, 45);
    CHECK(aw_rng_os_seed() != aw_rng_os_seed());
}

int main(void)
{
    test_rfc8439_vector();
    test_determinism_and_separation();
    test_below_uniform();
    return test_done();
}
