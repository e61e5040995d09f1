/* sb_budget: the time budget: the count hook, work units, the watchdog timer
 * and its signal, the last resort. Part of the sandbox (sandbox.h is the
 * contract; sandbox_internal.h what the parts share). */
#include "sandbox_internal.h"

/* ------------------------------------------------------------------------ */
/* Time                                                                     */

/* Whether L's hook already fires at its next instruction (lua_gethook and
 * friends only read fields: safe in a signal handler). Setting it again is
 * not free: lua_sethook walks L's whole call chain (see sb_wd_handler). */
static int sb_hook_stops(lua_State *L)
{
    return lua_gethook(L) == sb_hook && lua_gethookmask(L) == LUA_MASKCOUNT && lua_gethookcount(L) == 1;
}

/* Re-arms the hook of the thread believed to run so that its next
 * instruction stops it. Safe from inside the allocator: lua_sethook only sets
 * a few fields, the way lua.c sets it from a signal handler. */
void sb_rearm(aw_sandbox *sb)
{
    if (sb->cur && !sb_hook_stops(sb->cur))
        lua_sethook(sb->cur, sb_hook, LUA_MASKCOUNT, 1);
}

/* The calling thread's CPU time: what the budget counts. clock_gettime is
 * async-signal-safe; for this clock it is a system call (about 0.7 us on
 * the development machine, against 30 ns for CLOCK_MONOTONIC through the
 * vDSO), so sb_clock_past reads it only when the deadline may have passed. */
uint64_t sb_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* cannot fail for this clock on Linux */
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The wall-clock bound of a call (SB_WALL_FACTOR x the budget, at least
 * SB_WALL_MIN_NS): past it the call is stopped whatever CPU time it had, so
 * that host code waiting inside a call, or a thread that gets no CPU,
 * cannot hold the host for ever. */
uint64_t sb_wall_bound_ns(const aw_sandbox *sb)
{
    uint64_t b = sb->budget_ns * SB_WALL_FACTOR;
    return b > SB_WALL_MIN_NS ? b : SB_WALL_MIN_NS;
}

/* Whether the current call is past its deadline (thread CPU time) or its
 * wall-clock bound. Reads the cheap wall clock every time, the CPU clock only
 * when the deadline can have passed: a thread's CPU time advances no faster
 * than the wall clock, so with r ns of budget left at wall time w there is
 * no need to look again before w + r (and at most every SB_CPU_SLACK_NS
 * near the end, which is the most it can overshoot). Under load the CPU
 * clock is thus read a few times per call, not at every check. Not for the
 * signal handler (it writes cpu_check_at). */
static int sb_clock_past(aw_sandbox *sb)
{
    uint64_t now = aw_now_ns();
    if (now >= sb->wall_limit)
        return 1;
    if (now < sb->cpu_check_at)
        return 0;
    uint64_t cpu = sb_cpu_ns();
    if (cpu >= sb->deadline)
        return 1;
    uint64_t left = sb->deadline - cpu;
    sb->cpu_check_at = now + (left > SB_CPU_SLACK_NS ? left : SB_CPU_SLACK_NS);
    return 0;
}

/* Reads the clocks; marks the call expired when the deadline has passed. */
int sb_past_deadline(aw_sandbox *sb)
{
    if (sb->expired)
        return 1;
    if (!sb->in_call)
        return 0;
    if (sb_clock_past(sb)) {
        sb->expired = 1;
        sb_rearm(sb);
        return 1;
    }
    return 0;
}

/* Raises the time-out error in L. The message is a string prebuilt at
 * creation, so raising it allocates nothing (the agent may be at its memory
 * cap). The hook of L is left firing on every instruction: if agent code
 * catches the error, its very next instruction raises it again. */
int sb_raise_timeout(lua_State *L, aw_sandbox *sb)
{
    sb->expired = 1;
    if (L != sb->L)
        *thread_flags(L) |= SB_THREAD_POISONED;
    if (!sb_hook_stops(L))
        lua_sethook(L, sb_hook, LUA_MASKCOUNT, 1);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &sb_key_timeout_msg);
    return lua_error(L);
}

void sb_hook(lua_State *L, lua_Debug *ar)
{
    aw_sandbox *sb = sb_of(L);
    (void)ar;
    sb->cur = L;
    if (sb->lim.work_budget && sb->in_call && !sb->expired) {
        /* The count of instructions since this thread's last firing. */
        sb->units += (uint64_t)lua_gethookcount(L);
        sb_over_work(sb);
    }
    if (!sb->expired && !(sb->in_call && sb_clock_past(sb))) {
        /* A thread left at count 1 by an earlier, expired call goes back to
         * the steady state of this call. */
        if (!sb->hook_count)
            lua_sethook(L, NULL, 0, 0);
        else if (lua_gethookcount(L) != sb->hook_count)
            lua_sethook(L, sb_hook, LUA_MASKCOUNT, sb->hook_count);
        return;
    }
    sb_raise_timeout(L, sb);
}

/* Raises the time-out in L if the current call is over budget. */
void sb_check(lua_State *L, aw_sandbox *sb)
{
    if (sb_past_deadline(sb))
        sb_raise_timeout(L, sb);
}

/* Whether the current call has spent its work budget (deterministic mode). */
int sb_over_work(aw_sandbox *sb)
{
    if (!sb->lim.work_budget || !sb->in_call || sb->units - sb->units_start <= sb->lim.work_budget)
        return 0;
    if (!sb->expired)
        sb->work_expired = 1;
    sb->expired = 1;
    return 1;
}

/* Charges n work units; stops the call past its work budget; reads the
 * clock every SB_CHECK_UNITS units. */
void sb_charge(lua_State *L, aw_sandbox *sb, uint64_t n)
{
    sb->units += n;
    if (sb_over_work(sb))
        sb_raise_timeout(L, sb);
    if (sb->units >= sb->next_check) {
        sb->next_check = sb->units + SB_CHECK_UNITS;
        sb_check(L, sb);
    }
}

/* The watchdog. A count hook only runs between instructions, and some
 * single instructions are slow without allocating or calling C (comparing
 * two long strings, coercing a long string to a number), as are some stock C
 * functions (utf8.len on megabytes): a thousand of them between two hook
 * firings can take seconds. So each call also arms per-thread POSIX timers
 * that signal the calling thread: one on the thread's CPU-time clock at the
 * deadline (and every few ms of CPU time after), one on the monotonic clock
 * at the wall-clock bound (and every few ms after). The handler, like lua.c's
 * SIGINT handler, only calls lua_sethook to make the running thread's hook
 * fire at its next instruction. Lua's lstate.c documents lua_sethook as safe
 * from a signal handler. Where the CPU-time timer cannot be created (or
 * AIWOLF_SANDBOX_NO_CPU_TIMER=1), the monotonic timer alone polls instead:
 * it fires from the earliest wall time at which the budget can be spent
 * (start + budget) every few ms, and the handler reads the CPU clock. If the
 * signal cannot be installed (the host uses it, or timers fail) the count
 * hook alone remains, with its coarser bound. */
#define SB_WATCHDOG_REPEAT_NS 5000000L

static pthread_once_t wd_once = PTHREAD_ONCE_INIT;
static int wd_signo;   /* 0 when the watchdog is unavailable */
static int wd_wanted = -1; /* aw_sandbox_set_watchdog_signal: -1 choose, 0 none, else that signal */
static int wd_no_cpu;  /* AIWOLF_SANDBOX_NO_CPU_TIMER: the polling mode (tests) */
static volatile int wd_done; /* wd_install ran: the choice is made */
_Thread_local aw_sandbox *volatile sb_wd_running; /* sandbox in a call on this thread */
static _Thread_local int wd_state;                    /* 0 untried, 1 timers ready, -1 failed */
static _Thread_local int wd_cpu_ok;                   /* wd_cpu exists; else wd_wall polls */
static _Thread_local timer_t wd_cpu;                  /* on this thread's CPU-time clock */
static _Thread_local timer_t wd_wall;                 /* on CLOCK_MONOTONIC */
static _Thread_local pid_t wd_pid;                    /* the process that created them */

void sb_wd_handler(int sig, siginfo_t *si, void *uctx)
{
    (void)sig;
    (void)si;
    (void)uctx;
    int saved = errno;
    aw_sandbox *sb = sb_wd_running;
    if (sb && sb->in_call) {
        /* Both clocks: clock_gettime is async-signal-safe. The signal is
         * delivered to the thread that armed the timers, the one in the
         * call, so the CPU clock is the call's. */
        uint64_t cpu = sb_cpu_ns(), wall = aw_now_ns();
        if (cpu >= sb->deadline || wall >= sb->wall_limit) {
            sb->expired = 1;
            lua_State *cur = sb->cur;
            /* Only when the stopping hook is not already there: lua_sethook
             * walks the thread's whole call chain (to set each Lua frame's
             * trap), which at the depth of a stack overflow (some 300 000
             * frames) takes longer than the timer's 5 ms period. Done on
             * every signal, the thread would spend all its time in this
             * handler and never reach the hook (and the last resort's
             * siglongjmp, which unblocks the signal, would never return
             * either). */
            if (cur && !sb_hook_stops(cur))
                lua_sethook(cur, sb_hook, LUA_MASKCOUNT, 1);
            /* The last resort: the call is still running a budget of CPU
             * time past its deadline (or twice its wall-clock bound), so it
             * is stuck where no hook runs (inside the garbage collector, or
             * a C function we failed to bound). Jump out of it and abandon
             * the state, never touching it again; sb_protected frees its
             * memory from the block list. Not while in malloc/free or other
             * host code (their locks would stay taken): the timer fires
             * again 5 ms later. */
            if (sb->kill_armed && !sb->in_alloc && !sb->in_libc && (cpu >= sb->kill_at || wall >= sb->wall_kill_at)) {
                sb->kill_armed = 0;
                siglongjmp(sb->kill_jmp, 1);
            }
        }
    }
    errno = saved;
}

/* Whether signo's disposition is the default one (nobody else's). */
static int wd_free(int signo)
{
    struct sigaction old;
    if (signo < SIGRTMIN || signo > SIGRTMAX || sigaction(signo, NULL, &old) != 0)
        return 0;
    return !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL;
}

static void wd_install(void)
{
    struct sigaction sa;
    const char *off = getenv("AIWOLF_SANDBOX_NO_WATCHDOG"); /* tests run the count-hook fallback too */
    const char *no_cpu = getenv("AIWOLF_SANDBOX_NO_CPU_TIMER"); /* and the polling mode */
    wd_done = 1;
    wd_no_cpu = no_cpu && *no_cpu && strcmp(no_cpu, "0") != 0;
    if ((off && *off && strcmp(off, "0") != 0) || wd_wanted == 0)
        return;
    int signo = 0;
    if (wd_wanted > 0) {
        signo = wd_free(wd_wanted) ? wd_wanted : 0;
    } else {
        /* The first real-time signal from SIGRTMIN+4 up that nobody uses. */
        for (int s = SIGRTMIN + 4; s <= SIGRTMAX && !signo; s++)
            if (wd_free(s))
                signo = s;
    }
    if (!signo)
        return;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = sb_wd_handler;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(signo, &sa, NULL) == 0)
        wd_signo = signo;
}

int aw_sandbox_set_watchdog_signal(int signo, aw_error *err)
{
    if (wd_done)
        return aw_fail(err, AW_ESTATE,
                       "the watchdog's signal is chosen when the first call is budgeted (it is %d now): choose "
                       "before that",
                       wd_signo);
    if (signo < -1)
        return aw_fail(err, AW_EINVAL, "%d is not a signal", signo);
    if (signo > 0 && (signo < SIGRTMIN || signo > SIGRTMAX))
        return aw_fail(err, AW_EINVAL, "the watchdog needs a real-time signal (%d to %d), not %d", SIGRTMIN,
                       SIGRTMAX, signo);
    if (signo > 0 && !wd_free(signo))
        return aw_fail(err, AW_EINVAL, "signal %d already has a handler", signo);
    wd_wanted = signo;
    return 0;
}

int aw_sandbox_watchdog_signal(void)
{
    pthread_once(&wd_once, wd_install);
    return wd_signo;
}

/* Sets timer t to fire at absolute time at_ns of its clock, then every
 * SB_WATCHDOG_REPEAT_NS. */
static int wd_set(timer_t t, uint64_t at_ns)
{
    struct itimerspec it;
    memset(&it, 0, sizeof it);
    it.it_value.tv_sec = (time_t)(at_ns / 1000000000u);
    it.it_value.tv_nsec = (long)(at_ns % 1000000000u);
    it.it_interval.tv_nsec = SB_WATCHDOG_REPEAT_NS;
    return timer_settime(t, TIMER_ABSTIME, &it, NULL);
}

/* Arms this thread's timers for sb's call (at its absolute deadline and
 * wall-clock bound, so re-arming an outer call after an inner one keeps the
 * outer call's times); returns whether it did. */
int sb_wd_arm(aw_sandbox *sb)
{
    sigset_t blocked;
    pthread_once(&wd_once, wd_install);
    if (!wd_signo || wd_state < 0)
        return 0;
    /* A thread that blocks the signal would never see it: fall back. */
    if (pthread_sigmask(SIG_BLOCK, NULL, &blocked) != 0 || sigismember(&blocked, wd_signo))
        return 0;
    /* After a fork the child has no timers (and another thread id): a
     * contest runner that forks workers gets fresh timers in each. */
    if (wd_state > 0 && wd_pid != getpid())
        wd_state = 0;
    if (wd_state == 0) {
        struct sigevent ev;
        memset(&ev, 0, sizeof ev);
        ev.sigev_notify = SIGEV_THREAD_ID;
        ev.sigev_signo = wd_signo;
        ev._sigev_un._tid = gettid(); /* glibc < 2.41 has no sigev_notify_thread_id */
        wd_pid = getpid();
        if (timer_create(CLOCK_MONOTONIC, &ev, &wd_wall) != 0) {
            wd_state = -1;
            return 0;
        }
        /* CLOCK_THREAD_CPUTIME_ID in timer_create is the calling thread's
         * CPU clock (the one this thread's calls are charged on). */
        wd_cpu_ok = !wd_no_cpu && timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &wd_cpu) == 0;
        wd_state = 1;
    }
    int ok;
    if (wd_cpu_ok) /* just past the deadline; and the wall-clock bound */
        ok = wd_set(wd_cpu, sb->deadline + 100000u) == 0 && wd_set(wd_wall, sb->wall_limit) == 0;
    else /* polling: from the earliest wall time the budget can be spent */
        ok = wd_set(wd_wall, sb->wall_start + sb->budget_ns + 100000u) == 0;
    if (!ok)
        sb_wd_disarm();
    return ok;
}

void sb_wd_disarm(void)
{
    struct itimerspec it;
    memset(&it, 0, sizeof it);
    if (wd_state > 0 && wd_pid == getpid()) {
        timer_settime(wd_wall, 0, &it, NULL);
        if (wd_cpu_ok)
            timer_settime(wd_cpu, 0, &it, NULL);
    }
}
