/* test_load.h: telling the machine's load from a fault of the sandbox, for
 * tests of its time budget (docs/contributing.md, "The suite passes
 * anywhere"). */
#ifndef AW_TEST_LOAD_H
#define AW_TEST_LOAD_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "sandbox.h"

/* A call that the machine's load kept from its CPU: stopped by the
 * wall-clock bound (10x the budget, at least 1 s) before it had its budget
 * of CPU time, or, kept from it even longer, abandoned by the last resort at
 * twice that bound before the CPU time that the last resort waits for
 * otherwise (a budget, at least 100 ms, past the deadline) could pass (then
 * its sandbox is dead). Told by the fault's message and its times, never by
 * a deadline of the test's. */
static inline bool test_cut_by_load(const aw_fault *f, int budget_ms)
{
    uint64_t budget = (uint64_t)budget_ms * 1000000u;
    uint64_t bound = budget * 10 > 1000000000u ? budget * 10 : 1000000000u;
    uint64_t grace = budget > 100000000u ? budget : 100000000u;
    if (f->kind != AW_FAULT_TIMEOUT)
        return false;
    if (strstr(f->msg, "the agent was killed"))
        return f->wall_ns >= 2 * bound && f->elapsed_ns < budget + grace;
    return strstr(f->msg, "the wall-clock bound of") && f->wall_ns >= bound && f->elapsed_ns < budget;
}

/* Whether a call that ran past its budget of budget_ms stopped within 2x
 * the budget + 200 ms of CPU time, where the code guarantees that whatever
 * the machine's load: where the calling thread notices its deadline itself
 * (the per-thread timers on its CPU-time clock, the count-hook fallback
 * without a watchdog), since a thread's CPU time advances only while it
 * runs. With the watchdog thread, how much CPU the call gets past its
 * deadline depends on how soon the machine runs that thread: true there
 * (bench/sandbox_bench measures it; the last resort still ends the call). */
static inline bool test_watchdog_thread(void)
{
    return strcmp(aw_sandbox_watchdog_mode(), "thread") == 0;
}

static inline bool test_stopped_in_time(const aw_fault *f, int budget_ms)
{
    return test_watchdog_thread() || f->elapsed_ns < ((uint64_t)budget_ms * 2 + 200) * 1000000u;
}

#endif
