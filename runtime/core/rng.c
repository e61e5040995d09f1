/* rng: ChaCha20 (D. J. Bernstein's stream cipher, block function as in
 * RFC 8439) used as a keyed generator and as a one-way seed derivation, with
 * unbiased bounded draws by rejection. */
#define _GNU_SOURCE /* getrandom */
#include "rng.h"

#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* The nonce's first word says what a keystream is for, so the generator and
 * the derived seeds of one game seed never share a block. */
enum { DOMAIN_ENGINE = 0x656e6731u, DOMAIN_DERIVE = 0x64727631u };

static uint32_t rotl32(uint32_t x, int k)
{
    return (x << k) | (x >> (32 - k));
}

#define QR(a, b, c, d)                                                                                                 \
    do {                                                                                                               \
        a += b;                                                                                                        \
        d = rotl32(d ^ a, 16);                                                                                         \
        c += d;                                                                                                        \
        b = rotl32(b ^ c, 12);                                                                                         \
        a += b;                                                                                                        \
        d = rotl32(d ^ a, 8);                                                                                          \
        c += d;                                                                                                        \
        b = rotl32(b ^ c, 7);                                                                                          \
    } while (0)

/* One 64-byte block of keystream: "expand 32-byte k", key, counter, nonce. */
void aw_rng_chacha20_block(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3], uint32_t out[16])
{
    uint32_t in[16] = {0x61707865u, 0x3320646eu, 0x79622d32u, 0x6b206574u, key[0], key[1], key[2], key[3],
                       key[4],      key[5],      key[6],      key[7],      counter, nonce[0], nonce[1], nonce[2]};
    uint32_t x[16];
    memcpy(x, in, sizeof x);
    for (int i = 0; i < 10; i++) {
        QR(x[0], x[4], x[8], x[12]);
        QR(x[1], x[5], x[9], x[13]);
        QR(x[2], x[6], x[10], x[14]);
        QR(x[3], x[7], x[11], x[15]);
        QR(x[0], x[5], x[10], x[15]);
        QR(x[1], x[6], x[11], x[12]);
        QR(x[2], x[7], x[8], x[13]);
        QR(x[3], x[4], x[9], x[14]);
    }
    for (int i = 0; i < 16; i++)
        out[i] = x[i] + in[i];
}

/* The key is the seed; the other 192 bits are fixed. The seed is the only
 * secret, so a guessed seed is a known key. */
static void key_of(uint64_t seed, uint32_t key[8])
{
    static const uint32_t rest[6] = {0x6c6f7761u, 0x692d6975u, 0x6c2d7561u, 0x7267736eu, 0x65656473u, 0x31763120u};
    key[0] = (uint32_t)seed;
    key[1] = (uint32_t)(seed >> 32);
    memcpy(key + 2, rest, sizeof rest);
}

void aw_rng_seed(aw_rng *r, uint64_t seed)
{
    memset(r, 0, sizeof *r);
    key_of(seed, r->key);
    r->nonce[0] = DOMAIN_ENGINE;
    r->pos = 16;
}

uint64_t aw_rng_next(aw_rng *r)
{
    if (r->pos >= 16) {
        aw_rng_chacha20_block(r->key, r->counter++, r->nonce, r->buf);
        if (r->counter == 0) /* 2^38 bytes later: move to the next nonce rather than repeat */
            r->nonce[1]++;
        r->pos = 0;
    }
    uint64_t v = (uint64_t)r->buf[r->pos] | (uint64_t)r->buf[r->pos + 1] << 32;
    r->pos += 2;
    return v;
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
    uint32_t key[8], out[16];
    uint32_t nonce[3] = {DOMAIN_DERIVE, (uint32_t)stream, (uint32_t)(stream >> 32)};
    key_of(seed, key);
    aw_rng_chacha20_block(key, 0, nonce, out);
    return (uint64_t)out[0] | (uint64_t)out[1] << 32;
}

uint64_t aw_rng_os_seed(void)
{
    uint64_t s;
    if (getrandom(&s, sizeof s, GRND_NONBLOCK) == (ssize_t)sizeof s)
        return s;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    return aw_rng_derive(x, (uint64_t)getpid());
}
