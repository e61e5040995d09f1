/* rng: the game's one random generator, and the seeds handed to agents.
 *
 * Every random choice of a game — the deal, tie breaks, substitutes — is
 * drawn from one generator seeded from the game's 64-bit seed, so the same
 * seed and the same agents give the same game. The generator is the ChaCha20
 * stream cipher's keystream (RFC 8439's block function) keyed by the seed:
 * what anyone sees of its output (a deal revealed at the end, tie breaks)
 * tells nothing about the rest of it, as long as the seed itself is secret.
 *
 * Agents never see the game's seed. Each seat gets its own seed from
 * aw_rng_derive(game_seed, seat), a one-way function (a ChaCha20 block keyed
 * by the game's seed): knowing one's own derived seed, or any number of them,
 * reveals neither the game's seed nor the engine's draws. A seed that can be
 * guessed (a small number typed on a command line, the clock) can of course
 * be guessed by an agent too: contests draw theirs from the operating system
 * (aw_rng_os_seed).
 *
 * Uses nothing else. */
#ifndef AW_RNG_H
#define AW_RNG_H

#include <stdint.h>

typedef struct aw_rng {
    uint32_t key[8];
    uint32_t nonce[3];
    uint32_t counter;
    uint32_t buf[16];
    unsigned pos; /* next unused word of buf; 16 = empty */
} aw_rng;

void aw_rng_seed(aw_rng *r, uint64_t seed);
uint64_t aw_rng_next(aw_rng *r);
/* Uniform integer in [0, n), n >= 1, without modulo bias. */
uint32_t aw_rng_below(aw_rng *r, uint32_t n);
/* Fisher-Yates shuffle of n ints. */
void aw_rng_shuffle(aw_rng *r, int *a, int n);
/* A seed for stream `stream` of seed `seed`: one-way (it reveals nothing
 * about `seed` or about any other stream's seed) and independent of the
 * generator aw_rng_seed(seed) makes. The driver gives each seat
 * aw_rng_derive(game_seed, seat) as the agent's own seed (its randomSeed and
 * math.random), so what an agent draws never shifts the game's draws. */
uint64_t aw_rng_derive(uint64_t seed, uint64_t stream);
/* A fresh seed from the operating system (getrandom), for games whose seed
 * nobody chose; falls back to the clock and process id only when the system
 * has no entropy source to offer. */
uint64_t aw_rng_os_seed(void);
/* ChaCha20's block function (RFC 8439 §2.3), exposed for its test vectors. */
void aw_rng_chacha20_block(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3], uint32_t out[16]);

#endif
