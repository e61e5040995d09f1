/* sandbox_clock: what an agent reads of time in process depends on nothing
 * another sandbox, the host or an earlier game did (docs/sandbox.md, "What
 * an agent can read"):
 *  1. os.clock is the seat's own CPU time: it does not move while another
 *     sandbox on the same thread burns 0.3 s and the host 0.5 s between two
 *     of its calls; it does count the seat's own burning;
 *  2. a renewed sandbox (the next game) starts its clock again;
 *  3. os.time() and os.date() without a time give the time the process
 *     started, in every sandbox, however long the process has run.
 * Margins: the clock that must not move is allowed 0.15 s against the 0.8 s
 * of others' CPU time (an undisturbed reading moves by microseconds; only
 * the wall-clock time of the call that first reads it counts, a part of a
 * call of microseconds that would have to be preempted for 0.15 s). The
 * burning is measured on the thread's CPU clock, so load only makes it
 * longer; 1.1 s of CPU time is at least 1.1 s of wall-clock time, so the
 * real time has passed a second by part 3. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lauxlib.h>

#include "sandbox.h"
#include "test.h"

static aw_sandbox *new_sb(void)
{
    aw_sandbox_limits lim;
    aw_error err;
    aw_sandbox_limits_default(&lim);
    lim.budget_ms = 2000;
    aw_sandbox *sb = aw_sandbox_new(&lim, &err);
    CHECK_MSG(sb != NULL, "aw_sandbox_new: %s", err.msg);
    return sb;
}

/* Runs src in sb; returns its first result as a number. */
static double eval_num(aw_sandbox *sb, const char *src)
{
    aw_fault f;
    double v = -1;
    if (aw_sandbox_load(sb, src, strlen(src), "=test", &f) == 0) {
        lua_State *L = aw_sandbox_state(sb);
        CHECK_MSG(lua_type(L, -1) == LUA_TNUMBER, "%s: a %s", src, luaL_typename(L, -1));
        v = lua_tonumber(L, -1);
        lua_pop(L, 1);
    } else {
        CHECK_MSG(0, "%s: %s: %s", src, aw_fault_kind_name(f.kind), f.msg);
    }
    return v;
}

static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char burn[] = "local t = os.clock() while os.clock() - t < %g do end return os.clock()";

static double burn_in(aw_sandbox *sb, double s)
{
    char src[128];
    snprintf(src, sizeof src, burn, s);
    return eval_num(sb, src);
}

int main(void)
{
    time_t started = time(NULL);
    aw_sandbox *a = new_sb(), *b = new_sb();

    /* 1. Nobody else's time. */
    double a0 = eval_num(a, "first = os.clock() return first");
    CHECK(a0 >= 0 && a0 < 0.15);
    double b1 = burn_in(b, 0.3);
    CHECK(b1 >= 0.3);
    for (double t = thread_cpu(); thread_cpu() - t < 0.5;) /* the host's own work */
        ;
    double a1 = eval_num(a, "return os.clock() - first");
    CHECK_MSG(a1 >= 0 && a1 < 0.15, "os.clock moved by %.3f s while others burnt 0.8 s", a1);
    /* Its own time counts, across calls. */
    double a2 = burn_in(a, 0.3);
    double a3 = eval_num(a, "return os.clock()");
    CHECK_MSG(a2 >= 0.3 && a3 >= a2 && a3 < a2 + 0.15, "own clock %.3f then %.3f", a2, a3);

    /* 2. A new game, a new clock. */
    aw_fault f;
    CHECK_MSG(aw_sandbox_renew(a, 1, &f) == 0, "renew: %s", f.msg);
    double a4 = eval_num(a, "return os.clock()");
    CHECK_MSG(a4 >= 0 && a4 < 0.15, "the renewed sandbox's clock starts at %.3f", a4);

    /* 3. The process's start, not the time now (at least 1.1 s of CPU time
     * later, so at least a second has passed). */
    double ta = eval_num(a, "return os.time()"), tb = eval_num(b, "return os.time()");
    CHECK_MSG(ta == tb && ta <= (double)started && ta >= (double)started - 5, "os.time %.0f %.0f, main started at %lld",
              ta, tb, (long long)started);
    CHECK(time(NULL) > started);
    CHECK(eval_num(a, "return os.date() == os.date('%c', os.time()) and 1 or 0") == 1);
    CHECK(eval_num(b, "return os.date('*t').sec == os.date('*t', os.time()).sec and 1 or 0") == 1);
    /* With a time given they are the calendar functions they always were. */
    CHECK(eval_num(a, "return os.time({year = 2001, month = 9, day = 9, hour = 1, min = 46, sec = 40, isdst = false})"
                      " - os.time({year = 2001, month = 9, day = 9, hour = 0, min = 0, sec = 0, isdst = false})") ==
          6400);

    aw_sandbox_free(a);
    aw_sandbox_free(b);
    return test_done();
}
