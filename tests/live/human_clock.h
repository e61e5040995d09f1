/* human_clock.h: a human seat's clock (aw_human_set_clock) for the tests of
 * the server's loop with a person (test_serve_wake.c, test_serve_human.c),
 * so that which requests run out is the test's choice, whatever the
 * machine's load. The seat's clock is the monotonic clock (aw_now_ns) plus
 * a skew that only grows; the seat's timeout is long (a hang guard: a
 * request the person answers is never late on a loaded machine). To let a
 * request run out, the test calls human_clock_expire from its publish
 * callback when the request's view comes (in the game's thread, before the
 * server first takes the request): the seat's clock moves on to `left_ns`
 * of real time before the deadline, and the server, told that deadline on
 * its own clock (human_clock_real), wakes itself then and takes the
 * time-out. */
#ifndef TESTS_HUMAN_CLOCK_H
#define TESTS_HUMAN_CLOCK_H

#include <stdatomic.h>
#include <stdint.h>

#include "humanseat.h"
#include "util.h"

typedef struct human_clock {
    _Atomic uint64_t skew; /* ns the seat's clock is ahead of aw_now_ns */
    uint64_t timeout_ns;   /* the seat's timeout */
} human_clock;

static inline uint64_t human_clock_now(void *ud)
{
    human_clock *k = ud;
    return aw_now_ns() + atomic_load(&k->skew);
}

/* Sets seat s (its timeout timeout_ms) on clock k. */
static inline void human_clock_use(human_clock *k, aw_seat *s, uint64_t timeout_ms)
{
    atomic_store(&k->skew, 0);
    k->timeout_ns = timeout_ms * 1000000u;
    aw_human_set_clock(s, human_clock_now, k);
}

/* The request just asked (its deadline a whole timeout from now) runs out
 * in at most left_ns of real time. */
static inline void human_clock_expire(human_clock *k, uint64_t left_ns)
{
    atomic_fetch_add(&k->skew, k->timeout_ns - left_ns);
}

/* A deadline on the seat's clock, on aw_now_ns's (what the server's loop
 * counts with). */
static inline uint64_t human_clock_real(human_clock *k, uint64_t deadline)
{
    uint64_t skew = atomic_load(&k->skew);
    return deadline > skew ? deadline - skew : 1;
}

#endif
