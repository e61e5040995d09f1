/* sandbox_alloc: the agent's allocator (runtime/luahost/sb_alloc.c; docs/
 * sandbox.md, "Budgets"), called directly through the state's lua_Alloc:
 *  1. the cap is exact with the arena: small blocks fill it to the byte
 *     (no block past it), each block its own memory; freeing them all
 *     gives back every byte, and the same fill succeeds again;
 *  2. blocks keep their contents when Lua resizes them, within a size
 *     class, across classes, between the arena and malloc both ways;
 *  3. what the free lists keep is bounded: after filling the cap with one
 *     size and half of it with another (all freed), a third size gets only
 *     what is left of twice the cap (chunks plus large blocks), and a
 *     large block is refused too; a large block shrunk to a small size when the
 *     arena cannot grow stays where it is (Lua assumes shrinking never
 *     fails) and is reused as a small block once freed;
 *  4. under AddressSanitizer, writing one byte past an arena block, or
 *     reading one after it was freed, is reported (in a child process).
 * The same calls run inside Lua in sandbox_basic (test_memory). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <lauxlib.h>

#include "sandbox.h"
#include "test.h"

#define CAP ((size_t)4 << 20)

#if defined(__SANITIZE_ADDRESS__)
#define ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN 1
#endif
#endif

/* The arena's room for a block of n bytes: its size class (16-byte steps),
 * with a 16-byte redzone under AddressSanitizer. */
#ifdef ASAN
#define ROOM(n) (((n) + 16 + 15) / 16 * 16)
#else
#define ROOM(n) (((n) + 15) / 16 * 16)
#endif

typedef struct heap {
    aw_sandbox *sb;
    lua_Alloc f;
    void *ud;
} heap;

static heap open_heap(void)
{
    aw_sandbox_limits lim;
    aw_error err;
    aw_sandbox_limits_default(&lim);
    lim.memory_bytes = CAP;
    heap h;
    h.sb = aw_sandbox_new(&lim, &err);
    if (!h.sb) {
        fprintf(stderr, "aw_sandbox_new: %s\n", err.msg);
        exit(1);
    }
    h.f = lua_getallocf(aw_sandbox_state(h.sb), &h.ud);
    return h;
}

static void *get(heap *h, size_t n)
{
    return h->f(h->ud, NULL, LUA_TTABLE, n);
}

static void *resize(heap *h, void *p, size_t o, size_t n)
{
    return h->f(h->ud, p, o, n);
}

static void put(heap *h, void *p, size_t n)
{
    h->f(h->ud, p, n, 0);
}

/* Not inlined: GCC's -O3 warns of a write "into a region of size 0" once
 * this loop is inlined after a call through the allocator's pointer it
 * cannot see into. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void fill_bytes(void *p, size_t n, unsigned seed)
{
    unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(seed * 31u + i);
}

static int same_bytes(const void *p, size_t n, unsigned seed)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i] != (unsigned char)(seed * 31u + i))
            return 0;
    return 1;
}

/* Allocates blocks of n bytes until one fails (at most max); returns how
 * many; each is filled with its own pattern. */
static size_t fill(heap *h, void **blocks, size_t max, size_t n)
{
    size_t k = 0;
    while (k < max && (blocks[k] = get(h, n)) != NULL) {
        fill_bytes(blocks[k], n, (unsigned)k);
        k++;
    }
    return k;
}

static void release(heap *h, void **blocks, size_t k, size_t n)
{
    for (size_t i = 0; i < k; i++)
        put(h, blocks[i], n);
}

static void test_cap_exact(void)
{
    heap h = open_heap();
    size_t base = aw_sandbox_memory(h.sb), max = CAP / 16;
    void **blocks = malloc(max * sizeof *blocks);
    CHECK(blocks != NULL);
    if (!blocks)
        return;
    for (int round = 0; round < 2; round++) {
        size_t k = fill(&h, blocks, max, 48);
        size_t used = aw_sandbox_memory(h.sb);
        CHECK_INT(used, base + k * 48);
        CHECK_MSG(used <= CAP && used + 48 > CAP, "round %d: %zu blocks, %zu bytes of a cap of %zu", round, k, used,
                  CAP);
        CHECK(aw_sandbox_memory_peak(h.sb) <= CAP);
        int intact = 1;
        for (size_t i = 0; i < k; i++)
            intact &= same_bytes(blocks[i], 48, (unsigned)i);
        CHECK_MSG(intact, "round %d: blocks overlap", round);
        /* One byte more than is left fails; exactly what is left fits. */
        size_t left = CAP - used;
        CHECK(get(&h, left + 1) == NULL);
        if (left) {
            void *last = get(&h, left);
            CHECK(last != NULL);
            CHECK_INT(aw_sandbox_memory(h.sb), CAP);
            put(&h, last, left);
        }
        release(&h, blocks, k, 48);
        CHECK_INT(aw_sandbox_memory(h.sb), base);
    }
    free(blocks);
    aw_sandbox_free(h.sb);
}

static void test_resize(void)
{
    heap h = open_heap();
    size_t base = aw_sandbox_memory(h.sb);
    /* size steps: within a class, to larger and smaller classes, to and
     * from malloc'd sizes */
    static const size_t steps[] = {20, 24, 32, 33, 100, 500, 512, 513, 4000, 600, 513, 512, 64, 17, 1, 100000, 40};
    void *p = get(&h, steps[0]);
    CHECK(p != NULL);
    fill_bytes(p, steps[0], 7);
    size_t have = steps[0];
    for (size_t i = 1; p && i < sizeof steps / sizeof steps[0]; i++) {
        size_t n = steps[i];
        void *q = resize(&h, p, have, n);
        CHECK_MSG(q != NULL, "%zu -> %zu", have, n);
        if (!q)
            break;
        size_t keep = have < n ? have : n;
        CHECK_MSG(same_bytes(q, keep, 7), "%zu -> %zu: contents lost", have, n);
        CHECK_INT(aw_sandbox_memory(h.sb), base + n);
        fill_bytes(q, n, 7);
        p = q;
        have = n;
    }
    if (p)
        put(&h, p, have);
    CHECK_INT(aw_sandbox_memory(h.sb), base);
    aw_sandbox_free(h.sb);
}

static void test_footprint(void)
{
    heap h = open_heap();
    size_t base = aw_sandbox_memory(h.sb), max = CAP / 16;
    void **a = malloc(max * sizeof *a), **b = malloc(max * sizeof *b), **c = malloc(max * sizeof *c);
    CHECK(a && b && c);
    if (!a || !b || !c)
        return;
    /* The cap in 48-byte blocks, freed: the arena holds about the cap. */
    size_t ka = fill(&h, a, max, 48);
    CHECK(base + ka * 48 + 48 > CAP);
    release(&h, a, ka, 48);
    /* Half of it in 208-byte blocks, freed: new chunks (the free 48-byte
     * blocks do not fit): the arena holds about 1.5 times the cap. */
    size_t want = CAP / 2 / 208;
    size_t kb = fill(&h, b, want, 208);
    CHECK_INT(kb, want);
    release(&h, b, kb, 208);
    /* A large block still fits, */
    void *x = get(&h, 600);
    CHECK(x != NULL);
    if (!x)
        return;
    fill_bytes(x, 600, 3);
    /* but a third size gets only what is left of twice the cap (give or
     * take the chunks' rounding and the state's own blocks), far from the
     * cap itself. */
    size_t kc = fill(&h, c, max, 112);
    size_t used = aw_sandbox_memory(h.sb);
    printf("footprint: %zu blocks of 48 and %zu of 208 freed, then %zu of 112: %zu bytes used of a %zu cap\n", ka,
           kb, kc, used, CAP);
    size_t left = 2 * CAP - ka * ROOM(48) - kb * ROOM(208), got = kc * ROOM(112);
    CHECK_MSG(got + ((size_t)256 << 10) > left && got < left + ((size_t)64 << 10) && used < CAP / 100 * 70,
              "%zu blocks of 112 bytes (%zu used, %zu of the arena, about %zu left)", kc, used, got, left);
    CHECK(get(&h, (size_t)64 << 10) == NULL); /* large blocks count too */
    /* Shrinking the large block to a small size cannot fail: it stays. */
    void *y = resize(&h, x, 600, 100);
    CHECK(y == x);
    CHECK(y && same_bytes(y, 100, 3));
    CHECK_INT(aw_sandbox_memory(h.sb), used - 600 + 100);
    /* Freed, it serves the next small block of its class. */
    put(&h, y, 100);
    void *z = get(&h, 100);
    CHECK(z == y);
    put(&h, z, 100);
    release(&h, c, kc, 112);
    CHECK_INT(aw_sandbox_memory(h.sb), base);
    /* Everything fits again in blocks of the sizes the arena has. */
    ka = fill(&h, a, max, 48);
    CHECK(base + ka * 48 + 48 > CAP);
    release(&h, a, ka, 48);
    free(a);
    free(b);
    free(c);
    aw_sandbox_free(h.sb);
}

#ifdef ASAN
/* Runs fn in a child with stderr closed; returns whether it died. */
static int dies(void (*fn)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, 2);
        fn();
        _exit(0);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid)
        return 0;
    return !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void overrun(void)
{
    heap h = open_heap();
    volatile char *p = get(&h, 40);
    p[40] = 1;
}

static void use_after_free(void)
{
    heap h = open_heap();
    volatile char *p = get(&h, 40);
    put(&h, (void *)p, 40);
    (void)p[8];
}

static void in_bounds(void)
{
    heap h = open_heap();
    volatile char *p = get(&h, 40);
    p[39] = 1;
    put(&h, (void *)p, 40);
    aw_sandbox_free(h.sb);
}
#endif

static void test_asan(void)
{
#ifdef ASAN
    CHECK_MSG(!dies(in_bounds), "an in-bounds write was reported");
    CHECK_MSG(dies(overrun), "a write past an arena block went unnoticed");
    CHECK_MSG(dies(use_after_free), "a read of a freed arena block went unnoticed");
#else
    printf("overruns: skipped, not an AddressSanitizer build\n");
#endif
}

int main(void)
{
    test_cap_exact();
    test_resize();
    test_footprint();
    test_asan();
    return test_done();
}
