/* sb_budget: the time budget: the count hook, work units, the clocks of a
 * call, the watchdog (its thread or timers) and its signal, the last
 * resort. Part of the sandbox (sandbox.h is the contract;
 * sandbox_internal.h what the parts share). */
#include "sandbox_internal.h"

#include <semaphore.h>

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

/* aw_now_ns, inlined for the calls' own two readings. */
static inline uint64_t sb_wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The wall-clock bound of a call (SB_WALL_FACTOR x the budget, at least
 * SB_WALL_MIN_NS): past it the call is stopped whatever CPU time it had, so
 * that host code waiting inside a call, or a thread that gets no CPU,
 * cannot hold the host for ever. */
uint64_t sb_wall_bound_ns(const aw_sandbox *sb)
{
    return sb->wall_bound_ns;
}

/* The budget of sb's calls from its limits, and their wall-clock bound
 * (worked out once, not at every call). */
void sb_budget_set(aw_sandbox *sb)
{
    sb->budget_ns = (uint64_t)sb->lim.budget_ms * 1000000u;
    uint64_t b = sb->budget_ns * SB_WALL_FACTOR;
    sb->wall_bound_ns = b > SB_WALL_MIN_NS ? b : SB_WALL_MIN_NS;
}

/* The last resort's margin (sb_wd_handler): one budget of CPU time past
 * the deadline, and at least 100 ms (so at the default budget of 100 ms
 * and above the whole call stays within twice its budget of CPU time,
 * give or take the watchdog's 5 ms period): late enough that the hook
 * comes first whenever it can. It stops most calls a few ms past the
 * deadline, but unwinding a stack overflow 300 000 frames deep takes up
 * to some 90 ms whatever the budget. On the wall clock it acts at twice
 * the wall-clock bound: a call that spends no CPU (host code waiting
 * inside it, a thread that is never scheduled) never reaches the first. */
static uint64_t sb_kill_after_ns(const aw_sandbox *sb)
{
    return sb->budget_ns > 100000000u ? sb->budget_ns : 100000000u;
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
    if (sb->lim.profile && sb->in_call && !sb->expired)
        sb_profile_sample(sb, L);
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

/* ------------------------------------------------------------------------ */
/* The clocks of a call                                                     */

/* The budget counts the calling thread's CPU time, but reading that clock is
 * a system call (about 0.7 us on the development machine, against 30 ns for
 * the monotonic clock through the vDSO): too dear twice per call when a
 * call takes a few us. So each thread keeps a sample of its CPU clock, read
 * again only when it is SB_CPU_SAMPLE_NS of wall-clock time old. A call
 * starts its count at the sample (at most SB_CPU_SAMPLE_NS of CPU time
 * before the call: the thread's CPU time advances no faster than the wall
 * clock), so it is never given more than its budget, and may be charged up
 * to that much of the host's time before it. Reset in a forked child,
 * whose thread's CPU clock starts again from zero. */
static _Thread_local uint64_t wall_sample, cpu_sample; /* wall_sample 0: none */

/* The seat's own clock                                                     */
/*                                                                          */
/* os.clock is the CPU time of the seat's own calls in this game, never the
 * process's (which every seat of every game in the process moves: an agent
 * that burnt CPU until clock() % 0.1 named the werewolf's seat told its
 * copy in the mirrored game, docs/sandbox.md "What an agent can read").
 * A call's share is measured between two points inside the call: the
 * thread's sample may be up to SB_CPU_SAMPLE_NS of another seat's time old,
 * and is not used. Calls of a game in which the agent never read os.clock
 * count their wall-clock time (read at their start and end; an upper bound
 * of their CPU time that costs nothing); from the first reading on
 * (clock_exact), each call reads the thread's CPU clock as it starts and
 * ends (clock_on; two system calls, only for agents that use os.clock;
 * they serve as the thread's sample too). In the call of the first
 * reading, the time before it is its wall-clock time since the call
 * started (sb_osclock). */

/* Inlined into sb_call_begin: one wall-clock read, the CPU clock only when
 * the thread's sample is old (or the game reads os.clock). */
static inline void sb_call_clocks_start(aw_sandbox *sb)
{
    uint64_t wall = sb_wall_ns();
    sb->clock_on = sb->clock_exact;
    /* (No sample, wall_sample 0: the monotonic clock is past 0.25 ms.) */
    if (sb->clock_on || wall - wall_sample >= SB_CPU_SAMPLE_NS) {
        wall_sample = wall; /* the wall clock first: see sb_clock_past */
        cpu_sample = sb_cpu_ns();
    }
    if (sb->clock_on)
        sb->clock_start = cpu_sample; /* read just now */
    sb->wall_start = wall;
    sb->cpu_start = cpu_sample;
    /* The sample may be older than the call (up to SB_CPU_SAMPLE_NS): the
     * thread's CPU time since then is at most the wall-clock time since
     * then, which the deadline adds, so that a call always has its whole
     * budget (at most that much more). */
    sb->deadline = cpu_sample + sb->budget_ns + (wall - wall_sample);
    sb->wall_limit = wall + sb->wall_bound_ns;
    /* The CPU clock cannot reach the deadline before this. */
    sb->cpu_check_at = wall + sb->budget_ns;
}

/* A new game, a new agent instance: its clock starts at zero. */
void sb_own_clock_reset(aw_sandbox *sb)
{
    sb->own_ns = 0;
    sb->clock_on = sb->clock_exact = 0;
}

int sb_osclock(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    uint64_t now = sb_cpu_ns(), t;
    if (sb->lim.unguarded || !sb->in_call) { /* benchmarks only: the thread's clock */
        t = now;
    } else {
        if (!sb->clock_on) {
            uint64_t before = aw_now_ns() - sb->wall_start;
            sb->clock_start = now - (before < now ? before : now);
            sb->clock_on = sb->clock_exact = 1;
        }
        t = sb->own_ns + (now - sb->clock_start);
    }
    lua_pushnumber(L, (lua_Number)t / 1e9);
    return 1;
}

/* The call's CPU and wall-clock time. exact: read the CPU clock whatever
 * the sample's age (a call that faulted); otherwise a call that ended within
 * SB_CPU_SAMPLE_NS of the sample reports its wall-clock time as its CPU time
 * (an upper bound: the thread cannot have had more). Counted from the
 * sample, the CPU time is at most the wall-clock time too. Adds the call to
 * the seat's own clock. */
static inline void sb_call_clocks_end(aw_sandbox *sb, int exact, uint64_t *cpu_ns, uint64_t *wall_ns)
{
    uint64_t wall = sb_wall_ns();
    *wall_ns = wall - sb->wall_start;
    if (exact || sb->clock_on || wall - wall_sample >= SB_CPU_SAMPLE_NS) {
        wall_sample = wall;
        cpu_sample = sb_cpu_ns();
        *cpu_ns = cpu_sample - sb->cpu_start;
        if (*cpu_ns > *wall_ns) /* the part of the sample's age the call did not have */
            *cpu_ns = *wall_ns;
    } else {
        *cpu_ns = *wall_ns;
    }
    sb->own_ns += sb->clock_on ? cpu_sample - sb->clock_start : *wall_ns;
    sb->clock_on = 0;
}

/* ------------------------------------------------------------------------ */
/* The watchdog                                                             */

/* A count hook only runs between instructions, and some single
 * instructions are slow without allocating or calling C (comparing two long
 * strings, coercing a long string to a number), as are some stock C
 * functions (utf8.len on megabytes): a thousand of them between two hook
 * firings can take seconds. And any count hook sends every instruction of
 * Lua 5.4 through its debug path, which doubles call-heavy code. So no hook
 * runs before the deadline: something outside the call watches it and, at
 * the deadline, sends the calling thread a real-time signal whose handler,
 * like lua.c's SIGINT handler, only calls lua_sethook to make the running
 * Lua thread's hook fire at its next instruction (Lua's lstate.c documents
 * lua_sethook as safe from a signal handler).
 *
 * What watches, with no system call in a call's fast path:
 *  - The watchdog thread (one per process, WD_THREAD). A call publishes
 *    its deadline (thread CPU time), its wall-clock bound and the wall time
 *    before which the deadline cannot pass in its thread's record (a few
 *    stores and one atomic exchange); the thread sleeps until the first
 *    such time among the calls running (or, for calls to come, the
 *    smallest budget seen), then reads that thread's CPU clock and either
 *    sleeps until the deadline can have passed (the rest of the budget, at
 *    least SB_CPU_SLACK_NS) or signals the thread, and again every
 *    SB_WATCHDOG_REPEAT_NS while the call runs on. A signal only ever goes
 *    to a thread in a call: the watchdog marks the call's record first
 *    (compare-and-swap on its generation), and the call does not end
 *    before the handler has cleared the mark. After a second without calls
 *    the thread sleeps until the next one (which wakes it: the only system
 *    call on the calls' side, once per idle period).
 *    An isolated child starts this thread before it confines itself
 *    (aw_sandbox_watchdog_start; its seccomp filter then kills clone, but
 *    the thread needs only futex, the clocks and tgkill on its own
 *    process, which the filter allows).
 *  - Per-thread POSIX timers (WD_TIMERS), in processes that cannot start a
 *    thread: a confined child that did not start the thread first
 *    (seccomp kills clone; docs/isolation.md) and wherever pthread_create
 *    fails. Each call arms one timer on the
 *    thread's CPU-time clock at the deadline (repeating every
 *    SB_WATCHDOG_REPEAT_NS of CPU time after it) and one on the monotonic
 *    clock at the wall-clock bound, both signalling the calling thread only
 *    (SIGEV_THREAD_ID), and disarms them at its end: four system calls per
 *    call (some 5 us).
 *    Where the CPU-time timer cannot be created (or
 *    AIWOLF_SANDBOX_NO_CPU_TIMER=1) the monotonic timer alone polls from the
 *    earliest wall time at which the budget can be spent; the handler reads
 *    the CPU clock. AIWOLF_SANDBOX_WATCHDOG=timers chooses this mode in any
 *    process (the tests).
 * If no signal can be had (the program uses them all, or chose none) the
 * count hook alone remains (sb_hook), with its coarser bound. */
#define SB_WATCHDOG_REPEAT_NS 5000000L
/* Without calls for this long, the watchdog thread sleeps until the next. */
#define WD_PARK_NS 1000000000u

enum { WD_UNDECIDED, WD_OFF, WD_THREAD, WD_TIMERS };

/* A thread's record. word: the generation of its current or last call
 * (times WD_GEN), WD_INCALL while one runs, WD_SIGNALLING from the moment
 * the watchdog decides to signal it until the handler ran. */
#define WD_INCALL ((uint64_t)1)
#define WD_SIGNALLING ((uint64_t)2)
#define WD_GEN ((uint64_t)4)
typedef struct wd_thread {
    _Atomic uint64_t word;
    _Atomic uint64_t deadline;   /* of the current call, on the thread's CPU clock */
    _Atomic uint64_t check_at;   /* wall time before which the deadline cannot pass */
    _Atomic uint64_t wall_limit; /* the wall-clock bound */
    int mode;                    /* WD_OFF (the count hook), WD_THREAD or WD_TIMERS */
    pid_t tid;
    clockid_t cpu_clock;         /* WD_THREAD: the thread's CPU clock, for the watchdog */
    struct wd_thread *next;      /* WD_THREAD: on wd_list */
    uint64_t seen, next_at;      /* the watchdog thread's, under wd_mu */
    int cpu_timer_ok;            /* WD_TIMERS: cpu_timer exists (else wall_timer polls) */
    timer_t cpu_timer, wall_timer;
} wd_thread;

static pthread_once_t wd_once = PTHREAD_ONCE_INIT;
static int wd_signo;         /* 0 when the watchdog is unavailable */
static int wd_wanted = -1;   /* aw_sandbox_set_watchdog_signal: -1 choose, 0 none, else that signal */
static int wd_no_cpu;        /* AIWOLF_SANDBOX_NO_CPU_TIMER: timers, polling (tests) */
static int wd_want_timers;   /* AIWOLF_SANDBOX_WATCHDOG=timers (tests) */
static volatile int wd_done; /* wd_install ran: the choice is made */
_Thread_local aw_sandbox *volatile sb_wd_running; /* sandbox in a call on this thread */

static pthread_once_t wd_setup_once = PTHREAD_ONCE_INIT;
static int wd_setup_ok;
static pthread_key_t wd_key;             /* the thread's record, freed when it exits */
static pthread_condattr_t wd_cv_attr;
static pthread_mutex_t wd_mu = PTHREAD_MUTEX_INITIALIZER; /* wd_list, wd_mode, the watchdog's state */
static pthread_cond_t wd_cv;             /* wakes the watchdog thread */
static int wd_mode;                      /* the process's mode; WD_UNDECIDED until a first call */
static wd_thread *wd_list;               /* threads watched by the watchdog thread */
static _Atomic int wd_parked;            /* the watchdog thread waits for a call */
static _Atomic uint64_t wd_min_budget = UINT64_MAX; /* smallest budget of a published call */
static _Thread_local wd_thread *wd_me;   /* this thread's record, NULL until its first call */
static wd_thread wd_off = {.mode = WD_OFF}; /* the record of threads without a watchdog */

static void wd_unblock(void)
{
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, wd_signo);
    pthread_sigmask(SIG_UNBLOCK, &s, NULL);
}

void sb_wd_handler(int sig, siginfo_t *si, void *uctx)
{
    (void)sig;
    (void)si;
    (void)uctx;
    int saved = errno;
    wd_thread *t = wd_me;
    if (t && t->mode == WD_THREAD) /* the call may end now (wd_retire) */
        atomic_fetch_and_explicit(&t->word, ~WD_SIGNALLING, memory_order_release);
    aw_sandbox *sb = sb_wd_running;
    if (sb && sb->in_call) {
        /* Both clocks: clock_gettime is async-signal-safe. The signal goes
         * to the thread in the call, so the CPU clock is the call's. */
        uint64_t cpu = sb_cpu_ns(), wall = aw_now_ns();
        if (cpu >= sb->deadline || wall >= sb->wall_limit) {
            sb->expired = 1;
            lua_State *cur = sb->cur;
            /* Only when the stopping hook is not already there: lua_sethook
             * walks the thread's whole call chain (to set each Lua frame's
             * trap), which at the depth of a stack overflow (some 300 000
             * frames) takes longer than the watchdog's 5 ms period. Done on
             * every signal, the thread would spend all its time in this
             * handler and never reach the hook (and the last resort's
             * siglongjmp would never come either). */
            if (cur && !sb_hook_stops(cur))
                lua_sethook(cur, sb_hook, LUA_MASKCOUNT, 1);
            /* The last resort: the call is still running a budget of CPU
             * time past its deadline (or twice its wall-clock bound), so it
             * is stuck where no hook runs (inside the garbage collector, or
             * a C function we failed to bound). Jump out of it and abandon
             * the state, never touching it again; sb_protected frees its
             * memory. Not while in malloc/free or other host code (their
             * locks would stay taken): the signal comes again 5 ms later.
             * sigsetjmp saved no signal mask (that is a system call per
             * call): unblock the signal, which the kernel blocked for this
             * handler, by hand. */
            if (sb->kill_armed && !sb->in_alloc && !sb->in_libc &&
                (cpu >= sb->deadline + sb_kill_after_ns(sb) || wall >= sb->wall_start + 2 * sb_wall_bound_ns(sb))) {
                sb->kill_armed = 0;
                wd_unblock();
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

static int env_on(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

static void wd_install(void)
{
    struct sigaction sa;
    const char *mode = getenv("AIWOLF_SANDBOX_WATCHDOG"); /* tests run every mode */
    wd_done = 1;
    wd_no_cpu = env_on("AIWOLF_SANDBOX_NO_CPU_TIMER");
    wd_want_timers = wd_no_cpu || (mode && strcmp(mode, "timers") == 0);
    if (env_on("AIWOLF_SANDBOX_NO_WATCHDOG") || wd_wanted == 0) /* and the count-hook fallback */
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

/* --- The watchdog thread ------------------------------------------------ */

/* Looks at one thread in a call (word w) whose time to be looked at came:
 * signals it when its call is past the deadline or the wall-clock bound,
 * else sets when to look again. */
static void wd_check(wd_thread *t, uint64_t w, uint64_t now, pid_t pid)
{
    if (w & WD_SIGNALLING) { /* the handler has not run yet */
        t->next_at = now + SB_WATCHDOG_REPEAT_NS;
        return;
    }
    uint64_t dl = atomic_load_explicit(&t->deadline, memory_order_relaxed);
    uint64_t wl = atomic_load_explicit(&t->wall_limit, memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
    if (atomic_load_explicit(&t->word, memory_order_relaxed) != w) { /* another call meanwhile */
        t->seen = UINT64_MAX;
        t->next_at = now;
        return;
    }
    int over = now >= wl;
    uint64_t cpu = 0;
    if (!over) {
        struct timespec ts;
        if (clock_gettime(t->cpu_clock, &ts) != 0) {
            t->next_at = now + SB_WATCHDOG_REPEAT_NS;
            return;
        }
        cpu = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
        over = cpu >= dl;
    }
    if (over) {
        uint64_t e = w;
        if (atomic_compare_exchange_strong(&t->word, &e, w | WD_SIGNALLING) &&
            syscall(SYS_tgkill, pid, t->tid, wd_signo) != 0)
            atomic_fetch_and(&t->word, ~WD_SIGNALLING);
        t->next_at = now + SB_WATCHDOG_REPEAT_NS;
    } else {
        /* The thread's CPU time cannot reach the deadline before the rest
         * of the budget has passed on the wall clock. */
        uint64_t left = dl - cpu;
        t->next_at = now + (left > SB_CPU_SLACK_NS ? left : SB_CPU_SLACK_NS);
        if (t->next_at > wl)
            t->next_at = wl;
    }
}

static void *wd_main(void *arg)
{
    sem_post(arg); /* started (wd_start_thread); arg is the starter's, not touched after this */
    pid_t pid = getpid();
    pthread_mutex_lock(&wd_mu);
    uint64_t quiet_since = aw_now_ns();
    for (;;) {
        uint64_t now = aw_now_ns(), next = UINT64_MAX;
        for (wd_thread *t = wd_list; t; t = t->next) {
            uint64_t w = atomic_load_explicit(&t->word, memory_order_acquire);
            if (w != t->seen) {
                quiet_since = now;
                t->seen = w;
                t->next_at = atomic_load_explicit(&t->check_at, memory_order_relaxed);
            }
            if (!(w & WD_INCALL))
                continue;
            quiet_since = now;
            if (now >= t->next_at)
                wd_check(t, w, now, pid);
            if (t->next_at < next)
                next = t->next_at;
        }
        /* A call that starts after this scan cannot be over before its
         * start + its budget - SB_CPU_SAMPLE_NS (sb_call_clocks_start). */
        uint64_t minb = atomic_load_explicit(&wd_min_budget, memory_order_relaxed);
        if (minb != UINT64_MAX && now + minb - SB_CPU_SAMPLE_NS < next)
            next = now + minb - SB_CPU_SAMPLE_NS;
        if (next == UINT64_MAX || now - quiet_since >= WD_PARK_NS) {
            /* Nothing to watch: sleep until a call starts. Announce it,
             * then look once more (a call stores its record, then reads
             * wd_parked: one of the two sees the other). */
            atomic_store(&wd_parked, 1);
            int again = 0;
            for (wd_thread *t = wd_list; t; t = t->next)
                again |= atomic_load(&t->word) != t->seen;
            if (again) {
                atomic_store(&wd_parked, 0);
                continue;
            }
            while (atomic_load(&wd_parked))
                pthread_cond_wait(&wd_cv, &wd_mu);
            quiet_since = aw_now_ns();
            continue;
        }
        if (next > now) {
            struct timespec ts = {(time_t)(next / 1000000000u), (long)(next % 1000000000u)};
            pthread_cond_timedwait(&wd_cv, &wd_mu, &ts);
        }
    }
    return NULL;
}

static __attribute__((noinline)) void wd_wake(void)
{
    pthread_mutex_lock(&wd_mu);
    atomic_store(&wd_parked, 0);
    pthread_cond_signal(&wd_cv);
    pthread_mutex_unlock(&wd_mu);
}

/* Starts the watchdog thread with every signal blocked (it must never run
 * the program's handlers, nor the watchdog's), and returns only once the
 * thread runs wd_main: its start-up, in the C library and (under
 * AddressSanitizer) in the sanitizer's runtime, is over. A host forks its
 * isolated children right after its first sandbox call, which starts the
 * thread (childseat: the load check, then the first child). A fork copies
 * every lock as it is and only the forking thread lives on: a lock the
 * starting thread held at that moment stays held in the child for ever.
 * glibc's malloc takes its locks around fork, but the sanitizer's
 * allocator (GCC 12's libasan has no fork interceptor) does not, and the
 * thread's start-up takes them (pthread_getattr_np allocates and frees,
 * the free allocates a quarantine batch): the child then blocks at its
 * first allocation of that size class, never answers, and is killed at the
 * host's wall-clock bound. Once started, the thread only takes wd_mu
 * (held across fork by wd_fork_prepare), reads clocks and sleeps: it never
 * allocates. */
static int wd_start_thread(void)
{
    pthread_t th;
    pthread_attr_t attr;
    sigset_t all, old;
    sem_t started;
    if (sem_init(&started, 0, 0) != 0)
        return -1;
    if (pthread_attr_init(&attr) != 0) {
        sem_destroy(&started);
        return -1;
    }
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, (size_t)256 << 10);
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&th, &attr, wd_main, &started);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    while (rc == 0 && sem_wait(&started) != 0 && errno == EINTR)
        ;
    sem_destroy(&started);
    return rc == 0 ? 0 : -1;
}

/* The process's mode, at its first call or aw_sandbox_watchdog_start (under
 * wd_mu). A confined process may not start a thread: the isolated
 * children's seccomp filter kills clone (and getrlimit). So a child starts
 * the thread before it confines itself (aw_sandbox_watchdog_start, through
 * the child seat's child_prepare), or, when it did not, runtime/isolate/
 * confine.c sets AIWOLF_SANDBOX_WATCHDOG=timers before it confines; and a
 * filter that refuses even prctl is taken for one like it. (Elsewhere a
 * filter that refuses clone makes pthread_create fail, and the timers
 * serve.) */
static int wd_choose_mode(void)
{
    const char *mode = getenv("AIWOLF_SANDBOX_WATCHDOG");
    if (wd_want_timers || (mode && strcmp(mode, "timers") == 0))
        return WD_TIMERS;
    if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0)
        return WD_TIMERS;
    return wd_start_thread() == 0 ? WD_THREAD : WD_TIMERS;
}

static void wd_setup(void);

int aw_sandbox_watchdog_start(void)
{
    pthread_once(&wd_once, wd_install);
    pthread_once(&wd_setup_once, wd_setup);
    if (!wd_signo || !wd_setup_ok)
        return 0;
    pthread_mutex_lock(&wd_mu);
    if (wd_mode == WD_UNDECIDED)
        wd_mode = wd_choose_mode();
    int on = wd_mode == WD_THREAD;
    pthread_mutex_unlock(&wd_mu);
    return on;
}

const char *aw_sandbox_watchdog_mode(void)
{
    if (wd_done && !wd_signo)
        return "none";
    pthread_mutex_lock(&wd_mu);
    int m = wd_mode;
    pthread_mutex_unlock(&wd_mu);
    return m == WD_THREAD ? "thread" : m == WD_TIMERS ? "timers" : "undecided";
}

/* --- Per-thread timers --------------------------------------------------- */

static int wd_timers_create(wd_thread *t)
{
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = wd_signo;
    ev._sigev_un._tid = t->tid; /* glibc < 2.41 has no sigev_notify_thread_id */
    if (timer_create(CLOCK_MONOTONIC, &ev, &t->wall_timer) != 0)
        return -1;
    /* CLOCK_THREAD_CPUTIME_ID in timer_create is the calling thread's CPU
     * clock (the one this thread's calls are charged on). */
    t->cpu_timer_ok = !wd_no_cpu && timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &t->cpu_timer) == 0;
    return 0;
}

/* Sets timer tm to fire at absolute time at_ns of its clock, then every
 * SB_WATCHDOG_REPEAT_NS; at_ns 0 disarms it. */
static int wd_set(timer_t tm, uint64_t at_ns)
{
    struct itimerspec it;
    memset(&it, 0, sizeof it);
    it.it_value.tv_sec = (time_t)(at_ns / 1000000000u);
    it.it_value.tv_nsec = (long)(at_ns % 1000000000u);
    if (at_ns)
        it.it_interval.tv_nsec = SB_WATCHDOG_REPEAT_NS;
    return timer_settime(tm, TIMER_ABSTIME, &it, NULL);
}

static int wd_timers_arm(wd_thread *t, const aw_sandbox *sb)
{
    int ok;
    if (t->cpu_timer_ok) /* just past the deadline; and the wall-clock bound */
        ok = wd_set(t->cpu_timer, sb->deadline + 100000u) == 0 && wd_set(t->wall_timer, sb->wall_limit) == 0;
    else /* polling: from the earliest wall time the budget can be spent */
        ok = wd_set(t->wall_timer, sb->cpu_check_at + 100000u) == 0;
    return ok;
}

static void wd_timers_disarm(wd_thread *t)
{
    wd_set(t->wall_timer, 0);
    if (t->cpu_timer_ok)
        wd_set(t->cpu_timer, 0);
}

/* --- Threads and forks --------------------------------------------------- */

/* A thread that exits: off the watchdog's list, its timers deleted. */
static void wd_thread_exit(void *p)
{
    wd_thread *t = p;
    if (t->mode == WD_THREAD) {
        pthread_mutex_lock(&wd_mu);
        for (wd_thread **pp = &wd_list; *pp; pp = &(*pp)->next)
            if (*pp == t) {
                *pp = t->next;
                break;
            }
        pthread_mutex_unlock(&wd_mu);
    } else if (t->mode == WD_TIMERS) {
        timer_delete(t->wall_timer);
        if (t->cpu_timer_ok)
            timer_delete(t->cpu_timer);
    }
    if (wd_me == t)
        wd_me = NULL;
    free(t);
}

static void wd_fork_prepare(void)
{
    pthread_mutex_lock(&wd_mu);
}

static void wd_fork_parent(void)
{
    pthread_mutex_unlock(&wd_mu);
}

/* In a forked child only the forking thread lives on, without the
 * watchdog thread and without timers (POSIX timers are not inherited), on
 * a CPU clock that starts again from zero: forget them all; the child's
 * first call (or aw_sandbox_watchdog_start, which an isolated child calls
 * before it confines itself) chooses its mode again. */
static void wd_fork_child(void)
{
    for (wd_thread *t = wd_list, *next; t; t = next) {
        next = t->next;
        if (t != wd_me)
            free(t);
    }
    wd_list = NULL;
    if (wd_me && wd_me != &wd_off) {
        pthread_setspecific(wd_key, NULL);
        free(wd_me);
    }
    wd_me = NULL;
    wd_mode = WD_UNDECIDED;
    atomic_store(&wd_parked, 0);
    pthread_cond_init(&wd_cv, &wd_cv_attr); /* its waiter is gone */
    wall_sample = 0;
    pthread_mutex_unlock(&wd_mu);
}

static void wd_setup(void)
{
    if (pthread_condattr_init(&wd_cv_attr) != 0 || pthread_condattr_setclock(&wd_cv_attr, CLOCK_MONOTONIC) != 0 ||
        pthread_cond_init(&wd_cv, &wd_cv_attr) != 0 || pthread_key_create(&wd_key, wd_thread_exit) != 0 ||
        pthread_atfork(wd_fork_prepare, wd_fork_parent, wd_fork_child) != 0)
        return;
    wd_setup_ok = 1;
}

/* This thread's record, made at its first call: its mode, its timers. */
static wd_thread *wd_register(void)
{
    sigset_t blocked;
    pthread_once(&wd_once, wd_install);
    pthread_once(&wd_setup_once, wd_setup);
    wd_me = &wd_off;
    if (!wd_signo || !wd_setup_ok)
        return wd_me;
    /* A thread that blocks the signal would never see it: the fallback. */
    if (pthread_sigmask(SIG_BLOCK, NULL, &blocked) != 0 || sigismember(&blocked, wd_signo))
        return wd_me;
    wd_thread *t = calloc(1, sizeof *t);
    if (!t)
        return wd_me;
    t->tid = gettid();
    pthread_mutex_lock(&wd_mu);
    if (wd_mode == WD_UNDECIDED)
        wd_mode = wd_choose_mode();
    t->mode = wd_mode;
    if (t->mode == WD_THREAD && pthread_getcpuclockid(pthread_self(), &t->cpu_clock) != 0)
        t->mode = WD_TIMERS;
    if (t->mode == WD_THREAD) {
        t->seen = UINT64_MAX;
        t->next = wd_list;
        wd_list = t;
    }
    pthread_mutex_unlock(&wd_mu);
    if (t->mode == WD_TIMERS && wd_timers_create(t) != 0) {
        free(t);
        return wd_me;
    }
    pthread_setspecific(wd_key, t);
    return wd_me = t;
}

/* Ends the published call of t: never while a signal is on its way to it
 * (the watchdog marked the call before sending it), so that the signal
 * never reaches the thread outside a call. */
static void wd_retire(wd_thread *t)
{
    uint64_t idle = atomic_load_explicit(&t->word, memory_order_relaxed) & ~(WD_INCALL | WD_SIGNALLING);
    for (unsigned spins = 0;; spins++) {
        uint64_t e = idle | WD_INCALL;
        if (atomic_compare_exchange_weak_explicit(&t->word, &e, idle, memory_order_release, memory_order_relaxed) ||
            !(e & WD_INCALL))
            return;
        if (!(e & WD_SIGNALLING))
            continue; /* a spurious failure */
        /* The signal comes at the latest when the watchdog thread gets a
         * CPU to send it. If this thread blocked it meanwhile (host code
         * inside the call), take it here. */
        if (spins < 64)
            continue;
        sched_yield();
        if (spins % 1024 == 1023) {
            sigset_t s;
            struct timespec zero = {0, 0};
            sigemptyset(&s);
            sigaddset(&s, wd_signo);
            if (sigtimedwait(&s, NULL, &zero) == wd_signo)
                atomic_fetch_and(&t->word, ~WD_SIGNALLING);
        }
    }
}

/* A budget smaller than any the watchdog thread has seen: it may be
 * sleeping longer than that. */
static __attribute__((noinline)) void wd_new_min_budget(uint64_t budget_ns)
{
    pthread_mutex_lock(&wd_mu);
    if (budget_ns < atomic_load_explicit(&wd_min_budget, memory_order_relaxed))
        atomic_store_explicit(&wd_min_budget, budget_ns, memory_order_relaxed);
    pthread_cond_signal(&wd_cv);
    pthread_mutex_unlock(&wd_mu);
}

static inline void wd_publish(wd_thread *t, const aw_sandbox *sb)
{
    uint64_t w = atomic_load_explicit(&t->word, memory_order_relaxed);
    if (w & WD_INCALL) { /* a call inside a call: the outer one steps back */
        wd_retire(t);
        w = atomic_load_explicit(&t->word, memory_order_relaxed);
    }
    /* The fields first, then the word (seq_cst): the watchdog thread reads
     * the word, the fields, and the word again (wd_check). */
    atomic_store_explicit(&t->deadline, sb->deadline, memory_order_relaxed);
    atomic_store_explicit(&t->check_at, sb->cpu_check_at, memory_order_relaxed);
    atomic_store_explicit(&t->wall_limit, sb->wall_limit, memory_order_relaxed);
    atomic_store(&t->word, (w & ~(WD_INCALL | WD_SIGNALLING)) + WD_GEN + WD_INCALL);
    if (sb->budget_ns < atomic_load_explicit(&wd_min_budget, memory_order_relaxed))
        wd_new_min_budget(sb->budget_ns);
    if (atomic_load(&wd_parked))
        wd_wake();
}

/* Puts sb's call under watch on this thread (at its absolute deadline and
 * wall-clock bound, so re-arming an outer call after an inner one keeps the
 * outer call's times); returns whether it did (0: the count hook must). */
int sb_wd_arm(aw_sandbox *sb)
{
    wd_thread *t = wd_me ? wd_me : wd_register();
    if (t->mode == WD_THREAD) {
        wd_publish(t, sb);
        return 1;
    }
    if (t->mode == WD_TIMERS) {
        if (wd_timers_arm(t, sb))
            return 1;
        wd_timers_disarm(t);
    }
    return 0;
}

void sb_wd_disarm(void)
{
    wd_thread *t = wd_me;
    if (!t)
        return;
    if (t->mode == WD_THREAD)
        wd_retire(t);
    else if (t->mode == WD_TIMERS)
        wd_timers_disarm(t);
}

/* The start of a call, in one step: its clocks (the deadline, the
 * wall-clock bound, from one wall-clock reading and the thread's CPU
 * sample) and its watch. Returns whether the watchdog covers the call (0:
 * the count hook must). No system call on the common path. */
static inline int sb_call_begin(aw_sandbox *sb)
{
    sb_call_clocks_start(sb);
    wd_thread *t = wd_me;
    if (t && t->mode == WD_THREAD) {
        wd_publish(t, sb);
        return 1;
    }
    return sb_wd_arm(sb);
}

/* The end of a call begun with sb_call_begin (armed: what it returned):
 * off the watch first (no signal reaches the thread after this), then its
 * CPU and wall-clock time (read exactly when the call failed or ran out of
 * time; see sb_call_clocks_end). */
static inline void sb_call_end(aw_sandbox *sb, int armed, int failed, uint64_t *cpu_ns, uint64_t *wall_ns)
{
    if (armed) {
        wd_thread *t = wd_me;
        uint64_t e = atomic_load_explicit(&t->word, memory_order_relaxed) | WD_INCALL;
        /* The common case of wd_retire: no signal on its way. */
        if (t->mode != WD_THREAD || e & WD_SIGNALLING ||
            !atomic_compare_exchange_strong_explicit(&t->word, &e, e & ~WD_INCALL, memory_order_release,
                                                     memory_order_relaxed))
            sb_wd_disarm();
    }
    sb_call_clocks_end(sb, failed || sb->expired, cpu_ns, wall_ns);
}

/* lua_pcall of what is on the stack, or SB_KILLED when the last resort
 * (sb_wd_handler) jumped back here: the call was stuck a whole budget past its
 * deadline where nothing else can stop it. Kept small so that nothing of
 * the caller lives across sigsetjmp. */
static __attribute__((noinline)) int sb_pcall_killable(aw_sandbox *sb, int nres, int msgh, int armed)
{
    /* (sb is not changed between sigsetjmp and the jump, and only
     * SB_KILLED is returned after it: it need not be volatile.) */
    /* No signal mask saved (that would be a system call per call): the
     * handler unblocks its signal itself before it jumps. When it jumps:
     * sb_kill_after_ns. */
    if (sigsetjmp(sb->kill_jmp, 0) != 0)
        return SB_KILLED;
    sb->kill_armed = armed;
    int status = lua_pcall(sb->L, 1, nres, msgh);
    sb->kill_armed = 0;
    return status;
}

/* A call's common path in one frame: its fields, the clocks and the
 * watch (sb_call_begin, inlined), the hook, the call, its end
 * (sb_call_end, inlined). sandbox_internal.h says what it returns. */
int sb_call(aw_sandbox *sb, lua_CFunction fn, lua_CFunction msgh, void *ud, int nres, aw_fault *fault)
{
    lua_State *L = sb->L;
    /* Not a memset of the whole (a 512-byte message) at every call. */
    fault->kind = AW_FAULT_NONE;
    fault->msg[0] = '\0';
    int base = lua_gettop(L);
    /* lua_newstate gives the main thread's base frame LUA_MINSTACK free
     * slots, which a collection never shrinks away (lua.c's main pushes
     * its call likewise): only a host that left more on the stack needs
     * to ask for room. */
    if (base > LUA_MINSTACK - 4 && !lua_checkstack(L, 4)) {
        fault->elapsed_ns = fault->wall_ns = 0;
        return SB_NOSTACK;
    }
    sb->call_base = base;
    sb->in_call = 1;
    sb->expired = 0;
    sb->reply_fault = 0;
    sb->main_nest = 0;
    sb->cur = L;
    sb->next_check = sb->units + SB_CHECK_UNITS;
    sb->units_start = sb->units;
    sb->work_expired = 0;
    sb->cap_first = 0;
    if (msgh)
        lua_pushcfunction(L, msgh);
    lua_pushcfunction(L, fn); /* light C functions and light userdata allocate nothing */
    lua_pushlightuserdata(L, ud);
    aw_sandbox *outer = sb_wd_running; /* a host fn may (oddly) call into another sandbox */
    sb_wd_running = sb;
    int armed = sb_call_begin(sb); /* the deadline, the wall-clock bound, the watch */
    if (armed && !sb->lim.work_budget && !sb->lim.profile) {
        /* The common case: no hook before the deadline. */
        sb->hook_count = 0;
        if (lua_gethook(L)) /* left by an expired call, or the fallback's */
            lua_sethook(L, NULL, 0, 0);
    } else {
        /* A work budget, a profile or no watch: the count hook, always
         * (the case without one is the one above). */
        sb->hook_count = sb->lim.work_budget ? SB_WORK_COUNT : SB_HOOK_COUNT;
        /* Setting the hook restarts its countdown. A profile (without a
         * work budget, whose units count from each call's start) keeps it
         * running from call to call: restarted, calls shorter than the
         * count would never be sampled. */
        if (!(sb->lim.profile && !sb->lim.work_budget && lua_gethook(L) == sb_hook &&
              lua_gethookmask(L) == LUA_MASKCOUNT && lua_gethookcount(L) == sb->hook_count))
            lua_sethook(L, sb_hook, LUA_MASKCOUNT, sb->hook_count);
    }
    /* Near the cap, collect fully first: emergency collections (the ones an
     * allocation failure triggers) do not run finalizers, so garbage LPeg
     * patterns (which have a C __gc) would otherwise pin the memory. The
     * time counts against this call's budget. */
    sb->want_gc = 0;
    if (sb->used > sb->gc_at) {
        lua_gc(L, LUA_GCCOLLECT);
        sb->since_gc = 0;
    }
    int status = sb_pcall_killable(sb, nres, msgh ? base + 1 : 0, armed);
    /* Killed: it was armed (kill_armed), and failed. */
    sb_call_end(sb, armed, status != LUA_OK, &fault->elapsed_ns, &fault->wall_ns);
    sb_wd_running = outer;
    if (outer && outer->in_call)
        sb_wd_arm(outer); /* the outer call's deadline is still running */
    if (status == SB_KILLED)
        return SB_KILLED;
    int expired = sb->expired;
    sb->units_last = sb->units - sb->units_start;
    sb->in_call = 0;
    sb->expired = 0;
    sb->cur = NULL;
    sb->deadline = UINT64_MAX; /* a late signal's handler finds nothing to stop */
    sb->wall_limit = UINT64_MAX;
    if (status == LUA_OK && !expired) {
        if (msgh)
            lua_settop(L, base);
        return 0;
    }
    return status | (expired ? SB_EXPIRED : 0);
}

/* Stock library functions that scan their string arguments or push many
 * results without creating long strings (utf8.len, string.byte,
 * table.unpack, tonumber...) go through this closure (functions whose
 * cost is their result, like upper or sub, are priced by the long strings
 * they create), which charges their
 * input bytes before and their results after: it prices them in the work
 * budget and, for big inputs, reads the clock between calls. */
int sb_charged(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    int n = lua_gettop(L);
    uint64_t cost = 1;
    for (int i = 1; i <= n; i++)
        if (lua_type(L, i) == LUA_TSTRING)
            cost += lua_rawlen(L, i) / 16;
    sb_charge(L, sb, cost);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    n = lua_gettop(L);
    sb_charge(L, sb, (uint64_t)n);
    return n;
}
