/* sandbox: one isolated Lua 5.4 state per agent (see sandbox.h for the
 * contract). This file provides the state's allocator (a hard per-agent cap,
 * accounted here), the time budget (a count hook that reads the clock and,
 * once a call is over budget, re-arms itself to fire on every instruction so
 * that no pcall can swallow the stop), the agent's library (a curated list of
 * Lua's standard libraries with every long-running C function replaced by a
 * step-counted version of our own: patterns, string.rep, table.insert/remove/
 * move/concat/sort, load), the guards that keep agent code from running with
 * hooks off (no __gc, wrapped xpcall handlers, coroutines killed by the budget
 * are never resumed or closed), `require` served only from preloaded C
 * modules, the embedded lua/ library and an optional module folder, an LPeg
 * whose loops and grammar rules pass through a budget checkpoint, and the
 * protected calls the host makes into the state.
 *
 * Uses Lua 5.4's C API, LPeg (luaopen_lpeg), luamods (aw_luamods) and util
 * (aw_now_ns, aw_buf, aw_fail). Only lua.h/lauxlib.h/lualib.h are used: no
 * Lua internals. */
#define _GNU_SOURCE /* memmem: a linear-time substring search */

#include "sandbox.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua-lpeg.h>
#include <lualib.h>

#include "luamods.h"

/* Without the watchdog (below), a count hook fires every SB_HOOK_COUNT VM
 * instructions of a thread and reads the (vDSO) clock. With it, no hook is
 * installed until the deadline: in Lua 5.4 any count hook sends every
 * instruction through luaG_traceexec, which doubles the cost of call-heavy
 * code. Either way, after the deadline the hook is armed with count 1. */
#define SB_HOOK_COUNT 1000
/* With a work budget (deterministic mode) the hook fires every SB_WORK_COUNT
 * instructions of a thread and charges that many units. */
#define SB_WORK_COUNT 100
/* Our own C functions charge "work units" (about one cheap inner-loop step
 * each) and read the clock whenever SB_CHECK_UNITS have accumulated. */
#define SB_CHECK_UNITS 16384
/* The allocator reads the clock after every SB_ALLOC_CHECK bytes of growth,
 * so that a loop of instructions that each allocate a lot (s .. "x" on a big
 * s) is noticed between hook firings. */
#define SB_ALLOC_CHECK ((size_t)1 << 20)
/* Largest chunk `load` accepts from agent code (text or reader pieces). */
#define SB_MAX_LOAD ((size_t)1 << 20)
/* Largest source the host loads, and largest module file read from module_dir. */
#define SB_MAX_SOURCE ((size_t)16 << 20)
#define SB_MAX_MODULE_FILE ((size_t)1 << 20)
/* Pattern matcher limits (the same as stock Lua's). */
#define SB_MAXCAPTURES 32
#define SB_MAXMATCHDEPTH 200

/* Header in front of every block of agent memory: 16 bytes, so payloads
 * keep malloc's 16-byte alignment. */
typedef struct sb_block {
    struct sb_block *prev, *next;
} sb_block;

struct aw_sandbox {
    lua_State *L;
    int close_depth;            /* nesting of coroutine.close (co_close) */
    int main_nest;              /* protected calls running in the main thread (sb_nest_enter) */
    aw_sandbox_limits lim;
    size_t used;                /* bytes the state holds now */
    size_t peak;                /* most it ever held */
    size_t grown;               /* growth since the allocator last read the clock */
    uint64_t budget_ns;
    uint64_t deadline;          /* UINT64_MAX outside calls */
    uint64_t units;             /* work units charged so far (all calls) */
    uint64_t units_start;       /* units when the current call started */
    uint64_t units_last;        /* units the last call used */
    int work_expired;           /* the expiry came from the work budget */
    int want_gc;                /* near the cap: collect fully at the next safe point */
    /* The last resort (see wd_handler): every block the state owns is on a
     * list, so that a state that cannot be stopped can be abandoned and its
     * memory freed without Lua's help. */
    struct sb_block *blocks;    /* circular list: &head */
    struct sb_block head;
    volatile sig_atomic_t in_alloc; /* in malloc/free or other host code: no kill now */
    volatile sig_atomic_t in_libc;  /* in a libc call that takes a lock (mktime, strftime): no kill now */
    volatile sig_atomic_t kill_armed;
    uint64_t kill_at;           /* when the watchdog abandons the call */
    sigjmp_buf kill_jmp;
    int dead;                   /* the state was abandoned: every call fails */
    size_t since_gc;            /* growth since the last such collection */
    uint64_t next_check;        /* units value at which the clock is read next */
    int hook_count;             /* steady hook count this call, 0 when the watchdog covers it */
    volatile sig_atomic_t in_call;
    volatile sig_atomic_t expired; /* the current call ran past its deadline */
    int reply_fault;            /* the host marked the error as a bad reply */
    lua_State *volatile cur;    /* the thread believed to be running */
    aw_buf out;
    size_t out_dropped;
    char *module_dir;
};

/* Registry keys (their addresses are unique). */
static const char key_timeout_msg = 0; /* prebuilt string raised on time-out */
static const char key_preload = 0;     /* host-registered loaders, agent-invisible */

/* Per-thread flags kept in each lua_State's extra space: a thread in which the
 * hook raised the time-out error. Lua leaves such a thread with hooks
 * disabled (the hook never returned), so it must never run Lua code again —
 * not even its pending __close handlers. The main thread's space stays zero,
 * which is what new threads copy. */
#define SB_THREAD_POISONED ((uintptr_t)1)
/* Above the flags, a coroutine's count of the sandbox's protected calls
 * running in it (sb_nest_enter; the main thread's count is in the sandbox,
 * since new threads copy the main thread's space). */
#define SB_THREAD_NEST ((uintptr_t)1 << 8)

static void sb_hook(lua_State *L, lua_Debug *ar);
static int sb_over_work(aw_sandbox *sb);

static aw_sandbox *sb_of(lua_State *L)
{
    void *ud = NULL;
    lua_getallocf(L, &ud);
    return ud;
}

static uintptr_t *thread_flags(lua_State *L)
{
    return (uintptr_t *)lua_getextraspace(L);
}

/* ------------------------------------------------------------------------ */
/* Time                                                                     */

/* Whether L's hook already fires at its next instruction (lua_gethook and
 * friends only read fields: safe in a signal handler). Setting it again is
 * not free: lua_sethook walks L's whole call chain (see wd_handler). */
static int sb_hook_stops(lua_State *L)
{
    return lua_gethook(L) == sb_hook && lua_gethookmask(L) == LUA_MASKCOUNT && lua_gethookcount(L) == 1;
}

/* Re-arms the hook of the thread believed to run so that its next
 * instruction stops it. Safe from inside the allocator: lua_sethook only sets
 * a few fields, the way lua.c sets it from a signal handler. */
static void sb_rearm(aw_sandbox *sb)
{
    if (sb->cur && !sb_hook_stops(sb->cur))
        lua_sethook(sb->cur, sb_hook, LUA_MASKCOUNT, 1);
}

/* Reads the clock; marks the call expired when the deadline has passed. */
static int sb_past_deadline(aw_sandbox *sb)
{
    if (sb->expired)
        return 1;
    if (!sb->in_call)
        return 0;
    if (aw_now_ns() >= sb->deadline) {
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
static int sb_raise_timeout(lua_State *L, aw_sandbox *sb)
{
    sb->expired = 1;
    if (L != sb->L)
        *thread_flags(L) |= SB_THREAD_POISONED;
    if (!sb_hook_stops(L))
        lua_sethook(L, sb_hook, LUA_MASKCOUNT, 1);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &key_timeout_msg);
    return lua_error(L);
}

static void sb_hook(lua_State *L, lua_Debug *ar)
{
    aw_sandbox *sb = sb_of(L);
    (void)ar;
    sb->cur = L;
    if (sb->lim.work_budget && sb->in_call && !sb->expired) {
        /* The count of instructions since this thread's last firing. */
        sb->units += (uint64_t)lua_gethookcount(L);
        sb_over_work(sb);
    }
    if (!sb->expired && !(sb->in_call && aw_now_ns() >= sb->deadline)) {
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
static void sb_check(lua_State *L, aw_sandbox *sb)
{
    if (sb_past_deadline(sb))
        sb_raise_timeout(L, sb);
}

/* Whether the current call has spent its work budget (deterministic mode). */
static int sb_over_work(aw_sandbox *sb)
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
static void sb_charge(lua_State *L, aw_sandbox *sb, uint64_t n)
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
 * firings can take seconds. So each call also arms a per-thread POSIX timer
 * that signals the calling thread at the deadline (and every few ms after);
 * the handler, like lua.c's SIGINT handler, only calls lua_sethook to make
 * the running thread's hook fire at its next instruction. Lua's lstate.c
 * documents lua_sethook as safe from a signal handler. If the signal cannot
 * be installed (the host uses it, or timers fail) the count hook alone
 * remains, with its coarser bound. */
#define SB_WATCHDOG_REPEAT_NS 5000000L

static pthread_once_t wd_once = PTHREAD_ONCE_INIT;
static int wd_signo;   /* 0 when the watchdog is unavailable */
static int wd_wanted = -1; /* aw_sandbox_set_watchdog_signal: -1 choose, 0 none, else that signal */
static volatile int wd_done; /* wd_install ran: the choice is made */
static _Thread_local aw_sandbox *volatile wd_running; /* sandbox in a call on this thread */
static _Thread_local int wd_state;                    /* 0 untried, 1 timer ready, -1 failed */
static _Thread_local timer_t wd_timer;
static _Thread_local pid_t wd_pid;                    /* the process that created wd_timer */

static void wd_handler(int sig, siginfo_t *si, void *uctx)
{
    (void)sig;
    (void)si;
    (void)uctx;
    int saved = errno;
    aw_sandbox *sb = wd_running;
    uint64_t now;
    if (sb && sb->in_call && (now = aw_now_ns()) >= sb->deadline) { /* clock_gettime is async-signal-safe */
        sb->expired = 1;
        lua_State *cur = sb->cur;
        /* Only when the stopping hook is not already there: lua_sethook
         * walks the thread's whole call chain (to set each Lua frame's
         * trap), which at the depth of a stack overflow (some 300 000
         * frames) takes longer than the timer's 5 ms period. Done on every
         * signal, the thread would spend all its time in this handler and
         * never reach the hook (and the last resort's siglongjmp, which
         * unblocks the signal, would never return either). */
        if (cur && !sb_hook_stops(cur))
            lua_sethook(cur, sb_hook, LUA_MASKCOUNT, 1);
        /* The last resort: the call is still running a budget past its
         * deadline, so it is stuck where no hook runs (inside the garbage
         * collector, or a C function we failed to bound). Jump out of it and
         * abandon the state, never touching it again; sb_protected frees its
         * memory from the block list. Not while in malloc/free or other host
         * code (their locks would stay taken): the timer fires again 5 ms
         * later. */
        if (sb->kill_armed && !sb->in_alloc && !sb->in_libc && now >= sb->kill_at) {
            sb->kill_armed = 0;
            siglongjmp(sb->kill_jmp, 1);
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
    wd_done = 1;
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
    sa.sa_sigaction = wd_handler;
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

/* Arms this thread's timer for sb's call; returns whether it did. */
static int wd_arm(aw_sandbox *sb)
{
    sigset_t blocked;
    pthread_once(&wd_once, wd_install);
    if (!wd_signo || wd_state < 0)
        return 0;
    /* A thread that blocks the signal would never see it: fall back. */
    if (pthread_sigmask(SIG_BLOCK, NULL, &blocked) != 0 || sigismember(&blocked, wd_signo))
        return 0;
    /* After a fork the child has no timers (and another thread id): a
     * contest runner that forks workers gets a fresh timer in each. */
    if (wd_state > 0 && wd_pid != getpid())
        wd_state = 0;
    if (wd_state == 0) {
        struct sigevent ev;
        memset(&ev, 0, sizeof ev);
        ev.sigev_notify = SIGEV_THREAD_ID;
        ev.sigev_signo = wd_signo;
        ev._sigev_un._tid = gettid(); /* glibc < 2.41 has no sigev_notify_thread_id */
        wd_state = timer_create(CLOCK_MONOTONIC, &ev, &wd_timer) == 0 ? 1 : -1;
        wd_pid = getpid();
        if (wd_state < 0)
            return 0;
    }
    struct itimerspec it;
    memset(&it, 0, sizeof it);
    it.it_value.tv_sec = (time_t)(sb->budget_ns / 1000000000u);
    it.it_value.tv_nsec = (long)(sb->budget_ns % 1000000000u) + 100000L; /* just past the deadline */
    if (it.it_value.tv_nsec >= 1000000000L) {
        it.it_value.tv_sec++;
        it.it_value.tv_nsec -= 1000000000L;
    }
    it.it_interval.tv_nsec = SB_WATCHDOG_REPEAT_NS;
    return timer_settime(wd_timer, 0, &it, NULL) == 0;
}

static void wd_disarm(void)
{
    struct itimerspec it;
    memset(&it, 0, sizeof it);
    if (wd_state > 0 && wd_pid == getpid())
        timer_settime(wd_timer, 0, &it, NULL);
}

/* ------------------------------------------------------------------------ */
/* Memory                                                                   */

static void *sb_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    aw_sandbox *sb = ud;
    if (ptr == NULL && nsize == 0)
        return NULL;
    if (nsize == 0) {
        sb_block *h = (sb_block *)ptr - 1;
        sb->in_alloc = 1;
        h->prev->next = h->next;
        h->next->prev = h->prev;
        free(h);
        sb->in_alloc = 0;
        sb->used -= osize;
        return NULL;
    }
    /* A new object of more than 128 bytes that Lua says (through osize, see
     * lua_Alloc) is a string is a long string (short ones, at most 40
     * bytes, are interned and may or may not be allocated depending on the
     * collector): it is created anew every time, so charging its bytes is
     * deterministic. This prices concatenation, string.format, gsub results,
     * table.concat... */
    int long_string = ptr == NULL && osize == LUA_TSTRING && nsize > 128;
    if (ptr == NULL)
        osize = 0;
    if (nsize > osize) {
        size_t grow = nsize - osize;
        if (grow > sb->lim.memory_bytes || sb->used > sb->lim.memory_bytes - grow) {
            /* Failing here makes Lua collect and retry, then raise a memory
             * error: a moment to look at the clock too. */
            sb_past_deadline(sb);
            return NULL;
        }
        sb->grown += grow;
        sb->since_gc += grow;
        /* Near the cap, ask for a full collection at the next safe point
         * (an LPeg constructor, see sb_lpeg_gc): allocation failures only
         * trigger emergency collections, which never run finalizers, so
         * garbage with a C __gc (LPeg patterns built in a loop) would
         * otherwise pin the memory until the call fails. Throttled to once
         * per eighth of the cap. */
        if (sb->in_call && !sb->want_gc && sb->used > sb->lim.memory_bytes / 8 * 6 &&
            sb->since_gc > sb->lim.memory_bytes / 8)
            sb->want_gc = 1;
        if (sb->grown >= SB_ALLOC_CHECK) {
            sb->grown = 0;
            sb_past_deadline(sb);
        }
    }
    if (nsize > SIZE_MAX - sizeof(sb_block))
        return NULL;
    sb->in_alloc = 1;
    sb_block *h = ptr ? (sb_block *)ptr - 1 : NULL;
    if (h) { /* unlink while realloc may move it */
        h->prev->next = h->next;
        h->next->prev = h->prev;
    }
    sb_block *n = realloc(h, nsize + sizeof(sb_block));
    int failed = n == NULL;
    if (failed)
        n = h; /* the old block is still valid (or there was none) */
    if (n) {
        n->next = sb->blocks->next;
        n->prev = sb->blocks;
        sb->blocks->next->prev = n;
        sb->blocks->next = n;
    }
    sb->in_alloc = 0;
    if (failed)
        return (h && nsize <= osize) ? ptr : NULL; /* Lua assumes shrinking never fails */
    void *p = n + 1;
    sb->used = sb->used - osize + nsize;
    if (sb->used > sb->peak)
        sb->peak = sb->used;
    if (long_string && sb->in_call) {
        sb->units += nsize / 16;
        if (sb_over_work(sb))
            sb_rearm(sb); /* cannot raise here: the next instruction will */
    }
    return p;
}

/* ------------------------------------------------------------------------ */
/* Safe reading of agent values                                             */

/* Copies s into dst (size cap) as one printable line: control bytes become
 * spaces. Bytes >= 0x80 are kept so UTF-8 text survives. */
static void copy_line(char *dst, size_t cap, const char *s, size_t len)
{
    size_t n = len < cap - 1 ? len : cap - 1;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        dst[i] = (c < 0x20 || c == 0x7f) ? ' ' : (char)c;
    }
    dst[n] = '\0';
    if (len > n && cap > 4)
        memcpy(dst + cap - 4, "...", 4);
}

int aw_sandbox_check_string(lua_State *L, int idx, size_t maxlen, const char **s, size_t *len, aw_fault *fault)
{
    size_t n = 0;
    const char *p;
    if (lua_type(L, idx) != LUA_TSTRING) {
        if (fault) {
            fault->kind = AW_FAULT_REPLY;
            snprintf(fault->msg, sizeof fault->msg, "expected a string, got a %s value", luaL_typename(L, idx));
        }
        return -AW_EINVAL;
    }
    p = lua_tolstring(L, idx, &n); /* a string already: no conversion, no metamethod */
    if (n > maxlen) {
        if (fault) {
            fault->kind = AW_FAULT_REPLY;
            snprintf(fault->msg, sizeof fault->msg, "string of %zu bytes is longer than %zu", n, maxlen);
        }
        return -AW_EINVAL;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c < 0x20 || c == 0x7f) {
            if (fault) {
                fault->kind = AW_FAULT_REPLY;
                snprintf(fault->msg, sizeof fault->msg, "string holds control byte 0x%02x at offset %zu", c, i);
            }
            return -AW_EINVAL;
        }
    }
    if (s)
        *s = p;
    if (len)
        *len = n;
    return 0;
}

int aw_sandbox_check_integer(lua_State *L, int idx, lua_Integer lo, lua_Integer hi, lua_Integer *out, aw_fault *fault)
{
    int ok = 0;
    lua_Integer v = 0;
    if (lua_type(L, idx) == LUA_TNUMBER) /* strings are not converted */
        v = lua_tointegerx(L, idx, &ok);
    if (!ok || v < lo || v > hi) {
        if (fault) {
            fault->kind = AW_FAULT_REPLY;
            if (!ok)
                snprintf(fault->msg, sizeof fault->msg, "expected an integer, got a %s value", luaL_typename(L, idx));
            else
                snprintf(fault->msg, sizeof fault->msg, "integer %lld is outside [%lld, %lld]", (long long)v,
                         (long long)lo, (long long)hi);
        }
        return -AW_EINVAL;
    }
    if (out)
        *out = v;
    return 0;
}

int aw_sandbox_reply_error(lua_State *L, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sb_of(L)->reply_fault = 1;
    return luaL_error(L, "%s", msg);
}

/* ------------------------------------------------------------------------ */
/* Base library replacements                                                */

/* print: to the bounded per-agent log. Older output is kept; what does not
 * fit is dropped and counted. __tostring metamethods run here, inside the
 * agent's call and under its budget. */
static void out_add(aw_sandbox *sb, const char *s, size_t len)
{
    size_t room = sb->lim.output_bytes > sb->out.len ? sb->lim.output_bytes - sb->out.len : 0;
    size_t take = len < room ? len : room;
    sb->in_alloc = 1; /* host malloc: the last resort must not jump out of it */
    aw_buf_add(&sb->out, s, take);
    sb->in_alloc = 0;
    sb->out_dropped += len - take;
}

static int sb_print(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    int n = lua_gettop(L);
    for (int i = 1; i <= n; i++) {
        size_t len;
        const char *s = luaL_tolstring(L, i, &len);
        if (i > 1)
            out_add(sb, "\t", 1);
        out_add(sb, s, len);
        lua_pop(L, 1);
        sb_charge(L, sb, len / 16 + 1);
    }
    out_add(sb, "\n", 1);
    return 0;
}

/* setmetatable without __gc (finalizers run with hooks off, so an agent's
 * finalizer could loop forever). Weak tables are ordinary Lua and allowed:
 * the collector's work on them runs where no hook reaches, but a collection
 * made quadratic on purpose (a chain of keys spread over ephemeron tables)
 * is stopped by the last resort like any other stuck call. */
static int sb_setmetatable(lua_State *L)
{
    int t = lua_type(L, 2);
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_argexpected(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table");
    if (t == LUA_TTABLE) {
        /* Raw, as Lua itself looks: with lua_getfield a metatable's own
         * __index would run here and could add __gc behind the check. */
        lua_pushliteral(L, "__gc");
        if (lua_rawget(L, 2) != LUA_TNIL)
            return luaL_argerror(L, 2, "'__gc' is not allowed in the sandbox");
        lua_pop(L, 1);
    }
    if (luaL_getmetafield(L, 1, "__metatable") != LUA_TNIL)
        return luaL_error(L, "cannot change a protected metatable");
    lua_settop(L, 2);
    lua_setmetatable(L, 1);
    return 1;
}

/* collectgarbage: only "count" (the agent's own heap in KiB). Controlling the
 * collector would let an agent move GC work (which no hook sees) around. */
static int sb_collectgarbage(lua_State *L)
{
    const char *opt = luaL_optstring(L, 1, "collect");
    if (strcmp(opt, "count") != 0)
        return luaL_error(L, "collectgarbage('%s') is not available in the sandbox", opt);
    lua_pushnumber(L, (lua_Number)lua_gc(L, LUA_GCCOUNT, 0) + (lua_Number)lua_gc(L, LUA_GCCOUNTB, 0) / 1024.0);
    return 1;
}

/* Nested protected calls over a deep stack. When a protected call fails,
 * Lua (luaD_pcall) measures the stack still in use by walking every frame
 * below it, to shrink the stack after an overflow. A time-out raised under
 * n nested pcalls is caught and raised again by each of them in turn, so
 * its unwinding walks the frames below every one: n times a depth of up to
 * some 300 000 frames (a full Lua stack), several ms per walk once the
 * frames are scattered in memory — seconds in all, with no agent
 * instruction in between for the hook to stop. So a protected call (pcall,
 * xpcall, load with a reader function) may nest inside another in the same
 * thread only while the thread is less than SB_NEST_DEPTH calls deep: each
 * nested level's walk is then short, and only the outermost one (once per
 * thread) walks a deep stack. The check is a walk of at most that many
 * frames, made only for nested calls. */
#define SB_NEST_DEPTH 2000

static uintptr_t sb_nest_count(lua_State *L, aw_sandbox *sb)
{
    return L == sb->L ? (uintptr_t)sb->main_nest : *thread_flags(L) / SB_THREAD_NEST;
}

/* Enters a protected call in L; returns 0 (and enters nothing) when it
 * would nest over a deep stack. */
static int sb_nest_enter(lua_State *L, aw_sandbox *sb)
{
    lua_Debug ar;
    if (sb_nest_count(L, sb) > 0 && lua_getstack(L, SB_NEST_DEPTH, &ar))
        return 0;
    if (L == sb->L)
        sb->main_nest++;
    else
        *thread_flags(L) += SB_THREAD_NEST;
    return 1;
}

static void sb_nest_leave(lua_State *L, aw_sandbox *sb)
{
    if (sb_nest_count(L, sb) == 0)
        return;
    if (L == sb->L)
        sb->main_nest--;
    else
        *thread_flags(L) -= SB_THREAD_NEST;
}

#define SB_NEST_MSG "stack overflow (a protected call nested in another, more than %d calls deep)"

/* Continuation and tail of pcall/xpcall. A failure that happened because the
 * call is over budget is not returned to the agent: it is raised again. */
static int sb_pcall_finish(lua_State *L, int status, lua_KContext extra)
{
    aw_sandbox *sb = sb_of(L);
    sb_nest_leave(L, sb);
    if (status != LUA_OK && status != LUA_YIELD) {
        if (sb->expired)
            return sb_raise_timeout(L, sb);
        lua_pushboolean(L, 0);
        lua_pushvalue(L, -2);
        return 2;
    }
    return lua_gettop(L) - (int)extra;
}

static int sb_pcall(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    luaL_checkany(L, 1);
    sb_check(L, sb);
    if (!sb_nest_enter(L, sb)) {
        lua_pushboolean(L, 0);
        lua_pushfstring(L, SB_NEST_MSG, SB_NEST_DEPTH);
        return 2;
    }
    lua_pushboolean(L, 1); /* first result if no errors */
    lua_insert(L, 1);
    int status = lua_pcallk(L, lua_gettop(L) - 2, LUA_MULTRET, 0, 0, sb_pcall_finish);
    return sb_pcall_finish(L, status, 0);
}

/* The message handler xpcall really installs: it runs the agent's handler
 * only while the call is within budget. The hook's time-out error is raised
 * from inside the hook, where Lua has hooks disabled, so an agent handler run
 * for it could loop forever unseen. */
static int sb_xpcall_handler(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    if (sb->expired)
        return 1; /* the error value, unchanged */
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

static int sb_xpcall(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    int n = lua_gettop(L);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    sb_check(L, sb);
    lua_pushvalue(L, 2);
    lua_pushcclosure(L, sb_xpcall_handler, 1);
    lua_replace(L, 2);     /* f, handler, args... */
    lua_pushboolean(L, 1); /* f, handler, args..., true */
    lua_pushvalue(L, 1);   /* f, handler, args..., true, f */
    lua_rotate(L, 3, 2);   /* f, handler, true, f, args... */
    if (!sb_nest_enter(L, sb)) {
        lua_pushboolean(L, 0);
        lua_pushfstring(L, SB_NEST_MSG, SB_NEST_DEPTH);
        return 2;
    }
    int status = lua_pcallk(L, n - 2, LUA_MULTRET, 2, 2, sb_pcall_finish);
    return sb_pcall_finish(L, status, 2);
}

/* load: text only, bounded size. The chunk gets the agent's globals (or
 * env) as _ENV. Lua's parser is one C call, where no hook runs, and parts of
 * it are quadratic in the shape of the source:
 *   - pending gotos (`goto`, `break`) and labels: each label scans every
 *     pending goto of its block and every label of its function, and each
 *     resolved goto is removed by shifting the rest (32 000 gotos to one
 *     label: 0.35 s);
 *   - jump lists: each `and`/`or` of an expression walks the list of the
 *     jumps before it, each `elseif`/`else` the list of the branches before
 *     it (80 000 `or`: 9 s; 40 000 `elseif`: 2 s).
 * So every text the sandbox parses (the agent's `load`, the host's
 * aw_sandbox_load, modules from the agent's folder) is first scanned
 * (sb_scan, linear): functions with too many gotos and labels, expressions
 * with too long and/or chains, ifs with too many branches, are refused, and
 * the quadratic part of the rest is charged as work units. Then it is fed to
 * the parser in pieces of SB_LOAD_PIECE bytes through a reader that charges
 * them and checks the deadline, so the linear part (up to some 7 µs a byte
 * for names looked up through dozens of nested functions with hundreds of
 * locals) stops at the budget too. */
#define SB_LOAD_PIECE 1024
#define SB_SCAN_MAX_JUMPS 4096  /* gotos + breaks + labels in one function */
#define SB_SCAN_MAX_CHAIN 4096  /* and/or in one expression; branches of one if */
#define SB_SCAN_MAX_LEVELS 1000 /* brackets and blocks (Lua allows some 200) */

enum { SC_FUNC, SC_BLOCK, SC_IF, SC_REPEAT, SC_GROUP, SC_CALL, SC_INDEX, SC_TABLE };

typedef struct sb_scan_level {
    unsigned char kind;
    uint32_t chain;    /* length of the jump list of the current and/or chain */
    uint32_t branches; /* elseif/else so far (SC_IF) */
    uint32_t jumps;    /* gotos, breaks and labels so far (SC_FUNC) */
} sb_scan_level;

typedef struct sb_scan {
    sb_scan_level lv[SB_SCAN_MAX_LEVELS];
    int n;
    uint64_t quad_jumps; /* estimated goto/label work: sum of jumps^2 per function */
    uint64_t quad_lists; /* estimated jump-list steps */
    int line;
    int in_label; /* between the two "::" of a label */
    const char *why;
} sb_scan;

static int scan_word(const char *p, size_t n, const char *w)
{
    size_t k = strlen(w);
    return n == k && memcmp(p, w, k) == 0;
}

/* The level of the function that encloses the top. */
static sb_scan_level *scan_func(sb_scan *sc)
{
    for (int i = sc->n - 1; i > 0; i--)
        if (sc->lv[i].kind == SC_FUNC)
            return &sc->lv[i];
    return &sc->lv[0];
}

static int scan_push(sb_scan *sc, int kind)
{
    if (sc->n >= SB_SCAN_MAX_LEVELS) {
        sc->why = "chunk has too many syntax levels";
        return 0;
    }
    memset(&sc->lv[sc->n], 0, sizeof sc->lv[0]);
    sc->lv[sc->n++].kind = (unsigned char)kind;
    return 1;
}

static void scan_pop(sb_scan *sc)
{
    if (sc->n <= 1)
        return; /* unbalanced: the parser reports it */
    sb_scan_level *top = &sc->lv[--sc->n], *up = &sc->lv[sc->n - 1];
    if (top->kind == SC_FUNC)
        sc->quad_jumps += (uint64_t)top->jumps * top->jumps;
    else if (top->kind == SC_GROUP) { /* (a or b) keeps its jump lists */
        sc->quad_lists += top->chain;
        up->chain += top->chain;
    }
}

/* Skips a long bracket [==[ ... ]==] at p (p[0] == '['); returns the end, or
 * NULL if p does not open one. */
static const char *scan_long(sb_scan *sc, const char *p, const char *e)
{
    const char *q = p + 1;
    size_t level = 0;
    while (q < e && *q == '=')
        q++, level++;
    if (q >= e || *q != '[')
        return NULL;
    for (q++; q < e; q++) {
        if (*q == '\n')
            sc->line++;
        else if (*q == ']') {
            const char *r = q + 1;
            size_t k = 0;
            while (r < e && *r == '=' && k < level)
                r++, k++;
            if (k == level && r < e && *r == ']')
                return r + 1;
        }
    }
    return e;
}

/* Scans a chunk's text (see above); returns 0 with sc->why when it is refused. */
static int sb_scan_text(lua_State *L, aw_sandbox *sb, sb_scan *sc, const char *s, size_t len)
{
    const char *p = s, *e = s + len, *next_check = s + 65536;
    int operand = 0; /* the last token ends an operand: a '(' after it is a call */
    sc->n = 0;
    sc->quad_jumps = sc->quad_lists = 0;
    sc->line = 1;
    sc->in_label = 0;
    sc->why = NULL;
    scan_push(sc, SC_FUNC);
    while (p < e) {
        if (p >= next_check) { /* the scan itself is linear, but long: keep to the deadline */
            next_check = p + 65536;
            sb_check(L, sb);
        }
        sb_scan_level *top = &sc->lv[sc->n - 1];
        unsigned char c = (unsigned char)*p;
        if (c == '\n') {
            sc->line++;
            p++;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            p++;
            continue;
        }
        if (c == '-' && p + 1 < e && p[1] == '-') { /* comment */
            const char *q = p + 2 < e && p[2] == '[' ? scan_long(sc, p + 2, e) : NULL;
            if (q)
                p = q;
            else
                while (p < e && *p != '\n')
                    p++;
            continue;
        }
        if (c == '[') {
            const char *q = scan_long(sc, p, e);
            if (q) { /* a long string */
                p = q;
                operand = 1;
                continue;
            }
        }
        if (c == '"' || c == '\'') {
            for (p++; p < e && (unsigned char)*p != c && *p != '\n'; p++)
                if (*p == '\\' && p + 1 < e && *++p == '\n')
                    sc->line++;
            p++;
            operand = 1;
            continue;
        }
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (c >= '0' && c <= '9') ||
            (c == '.' && p + 1 < e && p[1] >= '0' && p[1] <= '9')) {
            const char *w = p;
            int number = !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_');
            while (p < e) {
                unsigned char d = (unsigned char)*p;
                if ((d >= 'a' && d <= 'z') || (d >= 'A' && d <= 'Z') || d == '_' || (d >= '0' && d <= '9') ||
                    (number && d == '.'))
                    p++;
                else if (number && (d == '+' || d == '-') && strchr("eEpP", p[-1]))
                    p++;
                else
                    break;
            }
            size_t n = (size_t)(p - w);
            operand = 1;
            if (number || n < 2 || n > 8 || !strchr("abdefgilnortuw", w[0]))
                continue; /* not a keyword */
            if (scan_word(w, n, "and") || scan_word(w, n, "or")) {
                sc->quad_lists += top->chain;
                if (++top->chain > SB_SCAN_MAX_CHAIN) {
                    sc->why = "expression too complex (too many 'and'/'or' in a row)";
                    return 0;
                }
                operand = 0;
            } else if (scan_word(w, n, "not")) {
                operand = 0;
            } else if (scan_word(w, n, "nil") || scan_word(w, n, "true") || scan_word(w, n, "false")) {
                /* operands */
            } else if (scan_word(w, n, "function")) {
                if (!scan_push(sc, SC_FUNC))
                    return 0;
                operand = 0;
            } else if (scan_word(w, n, "if") || scan_word(w, n, "do") || scan_word(w, n, "repeat")) {
                top->chain = 0;
                if (!scan_push(sc, w[0] == 'i' ? SC_IF : w[0] == 'd' ? SC_BLOCK : SC_REPEAT))
                    return 0;
                operand = 0;
            } else if (scan_word(w, n, "end")) {
                scan_pop(sc);
                sc->lv[sc->n - 1].chain = 0;
            } else if (scan_word(w, n, "until")) {
                scan_pop(sc);
                sc->lv[sc->n - 1].chain = 0;
                operand = 0;
            } else if (scan_word(w, n, "elseif") || scan_word(w, n, "else")) {
                top->chain = 0;
                sc->quad_lists += top->branches;
                if (++top->branches > SB_SCAN_MAX_CHAIN) {
                    sc->why = "if statement with too many 'elseif' branches";
                    return 0;
                }
                operand = 0;
            } else if (scan_word(w, n, "goto") || scan_word(w, n, "break")) {
                top->chain = 0;
                if (++scan_func(sc)->jumps > SB_SCAN_MAX_JUMPS) {
                    sc->why = "function with too many gotos, breaks and labels";
                    return 0;
                }
                operand = 0;
            } else if (scan_word(w, n, "then") || scan_word(w, n, "while") || scan_word(w, n, "for") ||
                       scan_word(w, n, "in") || scan_word(w, n, "local") || scan_word(w, n, "return")) {
                top->chain = 0;
                operand = 0;
            }
            continue;
        }
        p++;
        int was_operand = operand;
        operand = 0;
        switch (c) {
        case ':':
            if (p < e && *p == ':') { /* a label's "::" (two per label) */
                p++;
                top->chain = 0;
                sc->in_label = !sc->in_label;
                if (sc->in_label && ++scan_func(sc)->jumps > SB_SCAN_MAX_JUMPS) {
                    sc->why = "function with too many gotos, breaks and labels";
                    return 0;
                }
            }
            break;
        case '=':
            if (p < e && *p == '=')
                p++; /* == */
            else
                top->chain = 0;
            break;
        case '<': case '>': case '~': case '/': case '.':
            while (p < e && (*p == '=' || *p == (char)c))
                p++; /* <= >= ~= << >> // .. ... */
            break;
        case ',': case ';':
            top->chain = 0;
            break;
        case '(':
            if (!scan_push(sc, was_operand ? SC_CALL : SC_GROUP))
                return 0;
            break;
        case '[':
            if (!scan_push(sc, SC_INDEX))
                return 0;
            break;
        case '{':
            if (!scan_push(sc, SC_TABLE))
                return 0;
            break;
        case ')': case ']': case '}':
            scan_pop(sc);
            operand = 1;
            break;
        default:
            break;
        }
    }
    while (sc->n > 1)
        scan_pop(sc);
    sc->quad_jumps += (uint64_t)sc->lv[0].jumps * sc->lv[0].jumps;
    return 1;
}

/* Feeds a text to the parser in pieces, charging each and checking the
 * deadline (raising the time-out here aborts the parse). */
typedef struct sb_text_reader {
    lua_State *L;
    const char *s;
    size_t left;
} sb_text_reader;

static const char *sb_text_read(lua_State *L, void *ud, size_t *size)
{
    sb_text_reader *r = ud;
    aw_sandbox *sb = sb_of(r->L);
    (void)L;
    if (r->left == 0) {
        *size = 0;
        return NULL;
    }
    size_t n = r->left < SB_LOAD_PIECE ? r->left : SB_LOAD_PIECE;
    sb_check(r->L, sb);
    sb_charge(r->L, sb, n / 8 + 1);
    const char *p = r->s;
    r->s += n;
    r->left -= n;
    *size = n;
    return p;
}

/* Parses a text chunk as load does (mode "t"), within the budget: pushes the
 * function and returns LUA_OK, or pushes the error message and returns its
 * status. A time-out during the scan or the parse is raised. */
static int sb_load_text(lua_State *L, aw_sandbox *sb, const char *s, size_t len, const char *name)
{
    /* The scan's state lives in a userdata: the agent's memory, and freed by
     * the collector if the scan raises the time-out. */
    sb_scan *sc = lua_newuserdatauv(L, sizeof *sc, 0);
    if (!sb_scan_text(L, sb, sc, s, len)) {
        /* Named as Lua names chunks in messages: file, =name, [string "..."]. */
        int plain = name[0] == '=' || name[0] == '@';
        const char *id = plain ? name + 1 : name;
        char msg[200];
        snprintf(msg, sizeof msg, "%s%.*s%s:%d: %s", plain ? "" : "[string \"", (int)strcspn(id, "\n") > 60 ? 60 : (int)strcspn(id, "\n"), id,
                 plain ? "" : "\"]", sc->line, sc->why);
        lua_pop(L, 1);
        lua_pushstring(L, msg);
        return LUA_ERRSYNTAX;
    }
    /* goto/label work: about 1/16 unit a step; jump-list steps 1/4 unit. */
    uint64_t units = sc->quad_jumps / 16 + sc->quad_lists / 4;
    lua_pop(L, 1);
    if (units)
        sb_charge(L, sb, units);
    sb_text_reader r = {L, s, len};
    int status = lua_load(L, sb_text_read, &r, name, "t");
    if (sb->expired)
        return sb_raise_timeout(L, sb); /* the parser caught the reader's time-out */
    return status;
}

/* A reader function's pieces, gathered into one string before the parse
 * (which then goes through sb_load_text): runs protected, so that an error
 * in the reader makes load fail as it does in stock Lua. */
static int sb_gather(lua_State *L)
{
    luaL_Buffer b;
    size_t total = 0;
    luaL_buffinit(L, &b); /* the reader is at 1 */
    for (;;) {
        luaL_checkstack(L, 2, "too many nested functions");
        lua_pushvalue(L, 1);
        lua_call(L, 0, 1);
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            break;
        }
        if (!lua_isstring(L, -1))
            return luaL_error(L, "reader function must return a string");
        size_t n;
        lua_tolstring(L, -1, &n);
        if (n == 0) {
            lua_pop(L, 1);
            break;
        }
        if (total == 0 && lua_tostring(L, -1)[0] == LUA_SIGNATURE[0]) {
            luaL_addvalue(&b); /* a binary chunk: refused by the parse at once, as in stock Lua */
            break;
        }
        total += n;
        if (total > SB_MAX_LOAD)
            return luaL_error(L, "chunk larger than %d bytes", (int)SB_MAX_LOAD);
        sb_charge(L, sb_of(L), n / 8 + 1);
        luaL_addvalue(&b);
    }
    luaL_pushresult(&b);
    return 1;
}

static int sb_load(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    size_t len;
    const char *s = lua_tolstring(L, 1, &len);
    const char *mode = luaL_optstring(L, 3, "bt");
    int env = !lua_isnone(L, 4) ? 4 : 0;
    int status;
    if (!strchr(mode, 't')) {
        luaL_pushfail(L);
        lua_pushfstring(L, "attempt to load a text chunk (mode is '%s')", mode);
        return 2;
    }
    const char *name;
    if (s != NULL) {
        name = luaL_optstring(L, 2, s);
    } else {
        name = luaL_optstring(L, 2, "=(load)");
        luaL_checktype(L, 1, LUA_TFUNCTION);
        lua_settop(L, 4);
        lua_pushcfunction(L, sb_gather);
        lua_pushvalue(L, 1);
        if (!sb_nest_enter(L, sb)) {
            luaL_pushfail(L);
            lua_pushfstring(L, SB_NEST_MSG, SB_NEST_DEPTH);
            return 2;
        }
        status = lua_pcall(L, 1, 1, 0);
        sb_nest_leave(L, sb);
        if (sb->expired)
            return sb_raise_timeout(L, sb); /* the time-out hit the reader */
        if (status != LUA_OK) {
            luaL_pushfail(L);
            lua_insert(L, -2);
            return 2;
        }
        lua_replace(L, 1); /* the whole text, kept alive while it is parsed */
        s = lua_tolstring(L, 1, &len);
    }
    if (len > SB_MAX_LOAD) {
        luaL_pushfail(L);
        lua_pushfstring(L, "chunk larger than %d bytes", (int)SB_MAX_LOAD);
        return 2;
    }
    status = sb_load_text(L, sb, s, len, name);
    if (status != LUA_OK) {
        luaL_pushfail(L);
        lua_insert(L, -2);
        return 2;
    }
    if (env) {
        lua_pushvalue(L, env);
        if (!lua_setupvalue(L, -2, 1))
            lua_pop(L, 1);
    }
    return 1;
}

/* ------------------------------------------------------------------------ */
/* Coroutines: the library's resume/wrap/close, rewritten so that the sandbox
 * knows which thread runs (for re-arming its hook), never resumes or closes
 * a thread the hook has killed, and turns a time-out inside a coroutine into
 * a time-out of the caller. create/yield/status/running/isyieldable are
 * Lua's own.                                                               */

/* Whether co can be resumed from L; when not, *why says why. */
static int co_is_startable(lua_State *L, lua_State *co, const char **why)
{
    lua_Debug ar;
    *why = "cannot resume non-suspended coroutine";
    if (co == L)
        return 0;
    if (*thread_flags(co) & SB_THREAD_POISONED) {
        *why = "cannot resume dead coroutine";
        return 0;
    }
    switch (lua_status(co)) {
    case LUA_YIELD:
        return 1;
    case LUA_OK:
        if (lua_getstack(co, 0, &ar))
            return 0; /* it is running (it resumed someone) */
        if (lua_gettop(co) > 0)
            return 1; /* not yet started */
        *why = "cannot resume dead coroutine";
        return 0;
    default:
        *why = "cannot resume dead coroutine"; /* died with an error */
        return 0;
    }
}

/* Resumes co with narg values from L's top; returns the number of results
 * moved to L, or -1 with the error value on L's top. */
static int co_resume(lua_State *L, lua_State *co, int narg)
{
    aw_sandbox *sb = sb_of(L);
    int nres, status;
    const char *why;
    if (!co_is_startable(L, co, &why)) {
        lua_pushstring(L, why);
        return -1;
    }
    if (!lua_checkstack(co, narg)) {
        lua_pushliteral(L, "too many arguments to resume");
        return -1;
    }
    lua_xmove(L, co, narg);
    /* A thread created in another call may carry another call's hook
     * state: give it this call's. Never reset a correct one: that would
     * restart its count on every resume. */
    if (!sb->hook_count) {
        if (lua_gethook(co))
            lua_sethook(co, NULL, 0, 0);
    } else if (lua_gethook(co) != sb_hook || lua_gethookmask(co) != LUA_MASKCOUNT) {
        lua_sethook(co, sb_hook, LUA_MASKCOUNT, sb->hook_count);
    }
    if (sb->lim.work_budget) /* co's last instructions may never reach its hook */
        sb_charge(L, sb, SB_WORK_COUNT);
    lua_State *prev = sb->cur;
    sb->cur = co;
    status = lua_resume(co, L, narg, &nres);
    sb->cur = prev;
    if (sb->expired)
        sb_raise_timeout(L, sb);
    if (status == LUA_OK || status == LUA_YIELD) {
        if (!lua_checkstack(L, nres + 1)) {
            lua_pop(co, nres);
            lua_pushliteral(L, "too many results to resume");
            return -1;
        }
        lua_xmove(co, L, nres);
        return nres;
    }
    lua_xmove(co, L, 1); /* the error value */
    return -1;
}

static int sb_co_resume(lua_State *L)
{
    lua_State *co = lua_tothread(L, 1);
    luaL_argexpected(L, co, 1, "coroutine");
    sb_check(L, sb_of(L));
    int r = co_resume(L, co, lua_gettop(L) - 1);
    if (r < 0) {
        lua_pushboolean(L, 0);
        lua_insert(L, -2);
        return 2;
    }
    lua_pushboolean(L, 1);
    lua_insert(L, -(r + 1));
    return r + 1;
}

/* Runs co's pending __close handlers (what coroutine.close and a failed wrap
 * do), unless the hook killed co: Lua left that thread with hooks off, so
 * its handlers could not be stopped. Returns the status; on failure the
 * error value is pushed on L. (co's stack is never cut with lua_settop: that
 * would run the very handlers we must not run.) */
/* How deeply coroutine.close may nest (a __close handler closing another
 * coroutine): Lua 5.4.4's lua_resetthread does not count C calls, so a long
 * chain overflows the C stack and crashes the host. */
#define SB_MAX_CLOSE_DEPTH 100

static int co_close(lua_State *L, lua_State *co)
{
    aw_sandbox *sb = sb_of(L);
    if (*thread_flags(co) & SB_THREAD_POISONED) {
        lua_rawgetp(L, LUA_REGISTRYINDEX, &key_timeout_msg);
        return LUA_ERRRUN;
    }
    if (sb->close_depth >= SB_MAX_CLOSE_DEPTH) {
        lua_pushliteral(L, "coroutine.close nested too deeply");
        return LUA_ERRRUN;
    }
    lua_State *prev = sb->cur;
    sb->cur = co;
    sb->close_depth++;
#if LUA_VERSION_RELEASE_NUM >= 50406
    int status = lua_closethread(co, L);
#else
    int status = lua_resetthread(co);
#endif
    sb->close_depth--;
    sb->cur = prev;
    if (sb->expired)
        sb_raise_timeout(L, sb);
    if (status != LUA_OK)
        lua_xmove(co, L, 1);
    return status;
}

static int sb_co_wrap_call(lua_State *L)
{
    lua_State *co = lua_tothread(L, lua_upvalueindex(1));
    sb_check(L, sb_of(L));
    int r = co_resume(L, co, lua_gettop(L));
    if (r >= 0)
        return r;
    int st = lua_status(co);
    if (st != LUA_OK && st != LUA_YIELD) { /* co died: close its variables */
        if (co_close(L, co) != LUA_OK)
            lua_remove(L, -2); /* the close's error replaces the first one */
    }
    if (lua_type(L, -1) == LUA_TSTRING) { /* add where the wrapped call was made */
        luaL_where(L, 1);
        lua_insert(L, -2);
        lua_concat(L, 2);
    }
    return lua_error(L);
}

static int sb_co_wrap(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_State *co = lua_newthread(L);
    lua_pushvalue(L, 1);
    lua_xmove(L, co, 1);
    lua_pushcclosure(L, sb_co_wrap_call, 1);
    return 1;
}

static int sb_co_close(lua_State *L)
{
    lua_State *co = lua_tothread(L, 1);
    luaL_argexpected(L, co, 1, "coroutine");
    sb_check(L, sb_of(L));
    lua_Debug ar;
    /* Only a suspended or dead coroutine can be closed: not the running one,
     * nor one that is waiting for a coroutine it resumed. */
    if (co == L || (lua_status(co) == LUA_OK && lua_getstack(co, 0, &ar)))
        return luaL_error(L, "cannot close a %s coroutine", co == L ? "running" : "normal");
    if (co_close(L, co) == LUA_OK) {
        lua_pushboolean(L, 1);
        return 1;
    }
    lua_pushboolean(L, 0);
    lua_insert(L, -2);
    return 2;
}

/* ------------------------------------------------------------------------ */
/* string.rep: one allocation, filled by doubling copies, so that neither a
 * huge count of an empty string nor a count of one-byte strings loops. */
static int sb_rep(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    size_t l, lsep;
    const char *s = luaL_checklstring(L, 1, &l);
    lua_Integer n = luaL_checkinteger(L, 2);
    const char *sep = luaL_optlstring(L, 3, "", &lsep);
    if (n <= 0 || (l == 0 && lsep == 0) || (l == 0 && n == 1)) {
        lua_pushliteral(L, "");
        return 1;
    }
    size_t unit = l + lsep;
    if (unit < l || (lua_Unsigned)n > (SIZE_MAX - lsep) / unit)
        return luaL_error(L, "resulting string too large");
    /* A result beyond the cap fails in the allocator: a memory error. */
    size_t total = (size_t)n * unit - lsep;
    luaL_Buffer b;
    char *p = luaL_buffinitsize(L, &b, total); /* past the cap: a memory error */
    sb_charge(L, sb, total / 64 + 1);
    size_t done = l < total ? l : total;
    memcpy(p, s, done);
    if (done < total) {
        memcpy(p + done, sep, lsep);
        done += lsep;
    }
    while (done < total) { /* p[0..done) is a whole number of units */
        size_t k = done < total - done ? done : total - done;
        memcpy(p + done, p, k);
        done += k;
    }
    luaL_pushresultsize(&b, total);
    return 1;
}

/* Stock library functions that scan their string arguments or push many
 * results without creating long strings (utf8.len, string.byte,
 * table.unpack, tonumber...) go through this closure (functions whose
 * cost is their result, like upper or sub, are priced by the long strings
 * they create), which charges their
 * input bytes before and their results after: it prices them in the work
 * budget and, for big inputs, reads the clock between calls. */
static int sb_charged(lua_State *L)
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

/* ------------------------------------------------------------------------ */
/* os.time and os.date, our own: the same results as stock Lua 5.4, but the
 * libc calls that take glibc's time-zone lock (mktime, localtime_r,
 * strftime) run with `in_libc` set, and nothing else does: no agent code
 * (a table's __index), no allocation, no collector step. The last resort
 * never jumps out while it is set (a lock left taken would stop every
 * other agent's os.date/os.time in this process). */

/* The fields of a date table, as stock Lua reads them: required ones (d <
 * 0) raise "missing", out-of-range ones "out-of-bound". Agent code may run
 * (__index); the lock is not held. */
static int sb_date_field(lua_State *L, const char *key, int d, int delta)
{
    int isnum;
    int t = lua_getfield(L, -1, key);
    lua_Integer res = lua_tointegerx(L, -1, &isnum);
    if (!isnum) {
        if (t != LUA_TNIL)
            return luaL_error(L, "field '%s' is not an integer", key);
        else if (d < 0)
            return luaL_error(L, "field '%s' missing in date table", key);
        res = d;
    } else {
        if (!(res >= 0 ? res - delta <= INT_MAX : INT_MIN + delta <= res))
            return luaL_error(L, "field '%s' is out-of-bound", key);
        res -= delta;
    }
    lua_pop(L, 1);
    return (int)res;
}

static void sb_date_setfield(lua_State *L, const char *key, int value, int delta)
{
    lua_pushinteger(L, (lua_Integer)value + delta);
    lua_setfield(L, -2, key);
}

static void sb_date_setall(lua_State *L, const struct tm *stm)
{
    sb_date_setfield(L, "year", stm->tm_year, 1900);
    sb_date_setfield(L, "month", stm->tm_mon, 1);
    sb_date_setfield(L, "day", stm->tm_mday, 0);
    sb_date_setfield(L, "hour", stm->tm_hour, 0);
    sb_date_setfield(L, "min", stm->tm_min, 0);
    sb_date_setfield(L, "sec", stm->tm_sec, 0);
    sb_date_setfield(L, "yday", stm->tm_yday, 1);
    sb_date_setfield(L, "wday", stm->tm_wday, 1);
    if (stm->tm_isdst >= 0) {
        lua_pushboolean(L, stm->tm_isdst);
        lua_setfield(L, -2, "isdst");
    }
}

static int sb_ostime(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    time_t t;
    if (lua_isnoneornil(L, 1)) {
        t = time(NULL);
    } else {
        struct tm ts;
        luaL_checktype(L, 1, LUA_TTABLE);
        lua_settop(L, 1);
        ts.tm_year = sb_date_field(L, "year", -1, 1900);
        ts.tm_mon = sb_date_field(L, "month", -1, 1);
        ts.tm_mday = sb_date_field(L, "day", -1, 0);
        ts.tm_hour = sb_date_field(L, "hour", 12, 0);
        ts.tm_min = sb_date_field(L, "min", 0, 0);
        ts.tm_sec = sb_date_field(L, "sec", 0, 0);
        lua_getfield(L, 1, "isdst");
        ts.tm_isdst = lua_isnil(L, -1) ? -1 : lua_toboolean(L, -1);
        lua_pop(L, 1);
        sb->in_libc = 1;
        t = mktime(&ts);
        sb->in_libc = 0;
        sb_date_setall(L, &ts); /* the table's fields, normalized */
    }
    if (t == (time_t)(-1))
        return luaL_error(L, "time result cannot be represented in this installation");
    lua_pushinteger(L, (lua_Integer)t);
    return 1;
}

/* The conversions Lua 5.4 accepts (C99): one character, or E or O and one. */
static size_t sb_date_conversion(const char *s)
{
    static const char one[] = "aAbBcCdDeFgGhHIjmMnprRStTuUVwWxXyYzZ%";
    static const char e[] = "cCxXyY", o[] = "deHImMSuUVwWy";
    if (*s && strchr(one, *s))
        return 1;
    if (*s == 'E' && s[1] && strchr(e, s[1]))
        return 2;
    if (*s == 'O' && s[1] && strchr(o, s[1]))
        return 2;
    return 0;
}

static int sb_osdate(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    size_t slen;
    const char *s = luaL_optlstring(L, 1, "%c", &slen);
    luaL_argcheck(L, slen <= 1024, 1, "format longer than 1 KiB");
    time_t t = lua_isnoneornil(L, 2) ? time(NULL) : (time_t)luaL_checkinteger(L, 2);
    const char *se = s + slen;
    struct tm tmr, *stm;
    sb->in_libc = 1;
    if (*s == '!') {
        stm = gmtime_r(&t, &tmr);
        s++;
    } else {
        stm = localtime_r(&t, &tmr);
    }
    sb->in_libc = 0;
    if (stm == NULL)
        return luaL_error(L, "date result cannot be represented in this installation");
    if (strcmp(s, "*t") == 0) {
        lua_createtable(L, 0, 9);
        sb_date_setall(L, stm);
        return 1;
    }
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    while (s < se) {
        if (*s != '%') {
            luaL_addchar(&b, *s++);
            continue;
        }
        s++;
        size_t n = sb_date_conversion(s);
        if (n == 0 || s + n > se)
            return luaL_error(L, "invalid conversion specifier '%%%s'", s);
        char cc[4] = {'%', 0, 0, 0};
        memcpy(cc + 1, s, n);
        s += n;
        char out[256];
        sb->in_libc = 1;
        size_t reslen = strftime(out, sizeof out, cc, stm);
        sb->in_libc = 0;
        luaL_addlstring(&b, out, reslen);
    }
    luaL_pushresult(&b);
    return 1;
}

/* table.unpack: a C loop that may call __index once per element, so each
 * element is charged and the loop is stoppable (a million __index calls to
 * a C function run no Lua instruction a hook could stop). */
static int sb_tunpack(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    lua_Integer i = luaL_optinteger(L, 2, 1);
    lua_Integer e = luaL_opt(L, luaL_checkinteger, 3, luaL_len(L, 1));
    if (i > e)
        return 0;
    lua_Unsigned n = (lua_Unsigned)e - (lua_Unsigned)i;
    if (n >= (unsigned int)INT_MAX || !lua_checkstack(L, (int)(++n)))
        return luaL_error(L, "too many results to unpack");
    for (; i < e; i++) {
        sb_charge(L, sb, 8);
        lua_geti(L, 1, i);
    }
    sb_charge(L, sb, 8);
    lua_geti(L, 1, e);
    return (int)n;
}

/* ------------------------------------------------------------------------ */
/* string.format: the stock function, fed one conversion at a time so that
 * a format of a million conversions is checkpointed like any other loop,
 * and %q of a string is our own (the same text as stock Lua), charged and
 * checkpointed every 64 KiB: stock %q adds a character at a time, some 20 ns
 * a byte, one C call of 300 ms for 15 MB. Results are identical to stock
 * Lua (the differential test compares them). */

/* Length of the conversion spec at p (just after its '%'), as far as the
 * stock parser reads one: flags, width, precision, conversion character. A
 * malformed spec is handed to the stock function whole, which raises the
 * same error it always does. */
static size_t sb_format_spec(const char *p, const char *e)
{
    const char *q = p;
    while (q < e && strchr("-+ #0", *q))
        q++;
    while (q < e && *q >= '0' && *q <= '9')
        q++;
    if (q < e && *q == '.') {
        q++;
        while (q < e && *q >= '0' && *q <= '9')
            q++;
    }
    if (q < e)
        q++; /* the conversion */
    return (size_t)(q - p);
}

/* %q of a string, as stock Lua writes it. */
static void sb_addquoted(lua_State *L, aw_sandbox *sb, luaL_Buffer *b, const char *s, size_t len)
{
    luaL_addchar(b, '"');
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((i & 0xffff) == 0xffff)
            sb_charge(L, sb, 0x10000 / 16);
        if (c == '"' || c == '\\' || c == '\n') {
            luaL_addchar(b, '\\');
            luaL_addchar(b, (char)c);
        } else if (c < 0x20 || c == 0x7f) {
            char buf[8];
            /* s[len] is the string's terminating NUL, as in stock Lua */
            unsigned char next = (unsigned char)s[i + 1];
            snprintf(buf, sizeof buf, next >= '0' && next <= '9' ? "\\%03d" : "\\%d", (int)c);
            luaL_addstring(b, buf);
        } else {
            luaL_addchar(b, (char)c);
        }
    }
    luaL_addchar(b, '"');
}

static int sb_format(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    size_t flen;
    const char *fmt = luaL_checklstring(L, 1, &flen);
    const char *p = fmt, *e = fmt + flen;
    int top = lua_gettop(L), arg = 1;
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    while (p < e) {
        /* Literal text up to the next conversion. */
        const char *pc = memchr(p, '%', (size_t)(e - p));
        if (!pc) {
            luaL_addlstring(&b, p, (size_t)(e - p));
            break;
        }
        luaL_addlstring(&b, p, (size_t)(pc - p));
        if (pc + 1 < e && pc[1] == '%') {
            luaL_addchar(&b, '%');
            p = pc + 2;
            continue;
        }
        size_t n = sb_format_spec(pc + 1, e);
        const char *spec_end = pc + 1 + n;
        sb_charge(L, sb, 4);
        if (n == 1 && pc[1] == 'q' && arg < top && lua_type(L, arg + 1) == LUA_TSTRING) {
            size_t slen;
            const char *s = lua_tolstring(L, ++arg, &slen);
            sb_addquoted(L, sb, &b, s, slen);
            p = spec_end;
            continue;
        }
        /* One conversion by the stock function: string.format(spec, arg).
         * The argument is checked here first, as the stock function would,
         * so that an error names the real argument and function. */
        if (arg >= top)
            return luaL_argerror(L, arg + 1, "no value");
        arg++;
        char conv = spec_end > pc + 1 ? spec_end[-1] : 0;
        if (strchr("diouxXc", conv))
            luaL_checkinteger(L, arg);
        else if (strchr("aAfFeEgG", conv))
            luaL_checknumber(L, arg);
        else if (conv == 'q' && n == 1 && !(lua_type(L, arg) == LUA_TNUMBER || lua_type(L, arg) == LUA_TNIL ||
                                            lua_type(L, arg) == LUA_TBOOLEAN))
            return luaL_argerror(L, arg, "value has no literal form");
        lua_pushvalue(L, lua_upvalueindex(1));
        lua_pushlstring(L, pc, (size_t)(spec_end - pc));
        lua_pushvalue(L, arg);
        lua_call(L, 2, 1);
        luaL_addvalue(&b);
        p = spec_end;
    }
    luaL_pushresult(&b);
    return 1;
}

/* Numerals longer than this are not numbers in the sandbox (tonumber gives
 * fail, arithmetic on such a string is an error): converting a 60 MB
 * string of digits is one slow C call (strtod) or one VM instruction. */
#define SB_MAX_NUMERAL 1024

static int sb_tonumber(lua_State *L)
{
    if (lua_type(L, 1) == LUA_TSTRING && lua_isnoneornil(L, 2) && lua_rawlen(L, 1) > SB_MAX_NUMERAL) {
        luaL_pushfail(L);
        return 1;
    }
    return sb_charged(L);
}

/* The string metatable's arithmetic (Lua 5.4 coerces strings there): the
 * same, but a string longer than SB_MAX_NUMERAL is no number. */
static int sb_string_arith(lua_State *L)
{
    for (int i = 1; i <= 2; i++)
        if (lua_type(L, i) == LUA_TSTRING && lua_rawlen(L, i) > SB_MAX_NUMERAL)
            return luaL_error(L, "attempt to perform arithmetic on a %s value (a numeral of more than %d bytes)",
                              luaL_typename(L, i), SB_MAX_NUMERAL);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

/* string.pack: numbers in the format (sizes, 'c' lengths) are capped so that
 * padding loops stay short. */
static int sb_pack(lua_State *L)
{
    const char *fmt = luaL_checkstring(L, 1);
    for (const char *p = fmt; *p; p++) {
        if (*p >= '0' && *p <= '9') {
            unsigned long v = 0;
            while (*p >= '0' && *p <= '9') {
                if (v < 100000000)
                    v = v * 10 + (unsigned long)(*p - '0');
                p++;
            }
            if (v > (1u << 20))
                return luaL_argerror(L, 1, "size in format larger than 1 MiB");
            p--;
        }
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

/* ------------------------------------------------------------------------ */
/* Patterns: string.find/match/gmatch/gsub on our own backtracking matcher.
 * It implements Lua 5.4's pattern language (classes, sets, the four
 * quantifiers, captures and position captures, back references, %b, %f,
 * anchors) but charges one work unit per step, so that catastrophic
 * backtracking ('.-.-.-.-b' on a long subject) stops at the budget instead
 * of running for hours inside one C call.                                   */

#define PM_CAP_UNFINISHED (-1)
#define PM_CAP_POSITION (-2)

typedef struct pm_state {
    const char *src_init, *src_end; /* the subject */
    const char *p_end;              /* end of the pattern */
    lua_State *L;
    aw_sandbox *sb;
    unsigned pending;               /* steps not yet charged */
    int depth;                      /* recursion left */
    int level;                      /* captures open or closed so far */
    struct {
        const char *init;
        ptrdiff_t len;
    } capture[SB_MAXCAPTURES];
} pm_state;

static void pm_step(pm_state *ms)
{
    if (++ms->pending >= 256) {
        sb_charge(ms->L, ms->sb, ms->pending);
        ms->pending = 0;
    }
}

static void pm_prepare(pm_state *ms, lua_State *L, const char *s, size_t ls, const char *p, size_t lp)
{
    ms->L = L;
    ms->sb = sb_of(L);
    ms->pending = 0;
    ms->src_init = s;
    ms->src_end = s + ls;
    ms->p_end = p + lp;
}

static void pm_reset(pm_state *ms)
{
    ms->level = 0;
    ms->depth = SB_MAXMATCHDEPTH;
}

static const char *pm_class_end(pm_state *ms, const char *p)
{
    char c = *p++;
    if (c == '%') {
        if (p >= ms->p_end)
            luaL_error(ms->L, "malformed pattern (ends with '%%')");
        return p + 1;
    }
    if (c == '[') {
        if (*p == '^')
            p++;
        do { /* the first character may be a literal ']' */
            if (p >= ms->p_end)
                luaL_error(ms->L, "malformed pattern (missing ']')");
            c = *p++;
            if (c == '%' && p < ms->p_end)
                p++; /* an escaped character, maybe ']' */
        } while (*p != ']');
        return p + 1;
    }
    return p;
}

static int pm_class(int c, int cl)
{
    int r;
    switch (cl | 0x20) { /* lower case of a letter */
    case 'a': r = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); break;
    case 'c': r = c < 0x20 || c == 0x7f; break;
    case 'd': r = c >= '0' && c <= '9'; break;
    case 'g': r = c > 0x20 && c < 0x7f; break;
    case 'l': r = c >= 'a' && c <= 'z'; break;
    case 'p': r = (c > 0x20 && c < 0x7f) && !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')); break;
    case 's': r = c == ' ' || (c >= '\t' && c <= '\r'); break;
    case 'u': r = c >= 'A' && c <= 'Z'; break;
    case 'w': r = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); break;
    case 'x': r = (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f'); break;
    case 'z': r = c == 0; break; /* deprecated, still in 5.4 */
    default: return cl == c;
    }
    if (cl >= 'A' && cl <= 'Z')
        r = !r; /* %A, %D, ...: the complement */
    return r;
}

/* p points at '[', ec at the closing ']'. */
static int pm_set(int c, const char *p, const char *ec)
{
    int found = 1;
    if (p[1] == '^') {
        found = 0;
        p++;
    }
    while (++p < ec) {
        if (*p == '%') {
            p++;
            if (pm_class(c, (unsigned char)*p))
                return found;
        } else if (p[1] == '-' && p + 2 < ec) {
            if ((unsigned char)p[0] <= c && c <= (unsigned char)p[2])
                return found;
            p += 2;
        } else if ((unsigned char)*p == c) {
            return found;
        }
    }
    return !found;
}

static int pm_single(pm_state *ms, const char *s, const char *p, const char *ep)
{
    if (s >= ms->src_end)
        return 0;
    int c = (unsigned char)*s;
    switch (*p) {
    case '.': return 1;
    case '%': return pm_class(c, (unsigned char)p[1]);
    case '[': return pm_set(c, p, ep - 1);
    default: return (unsigned char)*p == c;
    }
}

static const char *pm_match(pm_state *ms, const char *s, const char *p);

static const char *pm_max_expand(pm_state *ms, const char *s, const char *p, const char *ep)
{
    ptrdiff_t n = 0;
    while (pm_single(ms, s + n, p, ep)) {
        n++;
        pm_step(ms);
    }
    for (; n >= 0; n--) { /* longest first, giving back one at a time */
        pm_step(ms);
        const char *r = pm_match(ms, s + n, ep + 1);
        if (r)
            return r;
    }
    return NULL;
}

static const char *pm_min_expand(pm_state *ms, const char *s, const char *p, const char *ep)
{
    for (;;) {
        pm_step(ms);
        const char *r = pm_match(ms, s, ep + 1);
        if (r)
            return r;
        if (!pm_single(ms, s, p, ep))
            return NULL;
        s++;
    }
}

static const char *pm_open(pm_state *ms, const char *s, const char *p, ptrdiff_t what)
{
    if (ms->level >= SB_MAXCAPTURES)
        luaL_error(ms->L, "too many captures");
    ms->capture[ms->level].init = s;
    ms->capture[ms->level].len = what;
    ms->level++;
    const char *r = pm_match(ms, s, p);
    if (!r)
        ms->level--;
    return r;
}

static const char *pm_close(pm_state *ms, const char *s, const char *p)
{
    int l = ms->level - 1;
    while (l >= 0 && ms->capture[l].len != PM_CAP_UNFINISHED)
        l--;
    if (l < 0)
        luaL_error(ms->L, "invalid pattern capture");
    ms->capture[l].len = s - ms->capture[l].init;
    const char *r = pm_match(ms, s, p);
    if (!r)
        ms->capture[l].len = PM_CAP_UNFINISHED;
    return r;
}

static const char *pm_balance(pm_state *ms, const char *s, const char *p)
{
    if (p + 1 >= ms->p_end)
        luaL_error(ms->L, "malformed pattern (missing arguments to '%%b')");
    if (s >= ms->src_end || *s != *p)
        return NULL;
    char open = p[0], close = p[1];
    int depth = 1;
    while (++s < ms->src_end) {
        pm_step(ms);
        if (*s == close) {
            if (--depth == 0)
                return s + 1;
        } else if (*s == open) {
            depth++;
        }
    }
    return NULL;
}

static const char *pm_backref(pm_state *ms, const char *s, int c)
{
    int l = c - '1';
    if (l < 0 || l >= ms->level || ms->capture[l].len == PM_CAP_UNFINISHED)
        luaL_error(ms->L, "invalid capture index %%%d in pattern", l + 1);
    size_t len = (size_t)ms->capture[l].len; /* a position capture never matches */
    if ((size_t)(ms->src_end - s) >= len) {
        sb_charge(ms->L, ms->sb, len / 16 + 1);
        if (memcmp(ms->capture[l].init, s, len) == 0)
            return s + len;
    }
    return NULL;
}

static const char *pm_match(pm_state *ms, const char *s, const char *p)
{
    if (ms->depth-- == 0)
        luaL_error(ms->L, "pattern too complex");
    for (;;) {
        pm_step(ms);
        if (p == ms->p_end)
            break;
        if (*p == '(') {
            s = p[1] == ')' ? pm_open(ms, s, p + 2, PM_CAP_POSITION) : pm_open(ms, s, p + 1, PM_CAP_UNFINISHED);
            break;
        }
        if (*p == ')') {
            s = pm_close(ms, s, p + 1);
            break;
        }
        if (*p == '$' && p + 1 == ms->p_end) {
            if (s != ms->src_end)
                s = NULL;
            break;
        }
        if (*p == '%' && p + 1 < ms->p_end) {
            if (p[1] == 'b') {
                s = pm_balance(ms, s, p + 2);
                if (s) {
                    p += 4;
                    continue;
                }
                break;
            }
            if (p[1] == 'f') {
                p += 2;
                if (*p != '[')
                    luaL_error(ms->L, "missing '[' after '%%f' in pattern");
                const char *ep = pm_class_end(ms, p);
                int prev = s == ms->src_init ? 0 : (unsigned char)s[-1];
                int cur = s < ms->src_end ? (unsigned char)*s : 0;
                if (!pm_set(prev, p, ep - 1) && pm_set(cur, p, ep - 1)) {
                    p = ep;
                    continue;
                }
                s = NULL;
                break;
            }
            if (p[1] >= '0' && p[1] <= '9') {
                s = pm_backref(ms, s, (unsigned char)p[1]);
                if (s) {
                    p += 2;
                    continue;
                }
                break;
            }
        }
        /* a single character class, maybe followed by a quantifier */
        const char *ep = pm_class_end(ms, p);
        int m = pm_single(ms, s, p, ep);
        if (*ep == '?') {
            const char *r;
            if (m && (r = pm_match(ms, s + 1, ep + 1)) != NULL) {
                s = r;
                break;
            }
            p = ep + 1;
            continue;
        }
        if (*ep == '+') {
            s = m ? pm_max_expand(ms, s + 1, p, ep) : NULL;
            break;
        }
        if (*ep == '*') {
            s = pm_max_expand(ms, s, p, ep);
            break;
        }
        if (*ep == '-') {
            s = pm_min_expand(ms, s, p, ep);
            break;
        }
        if (!m) {
            s = NULL;
            break;
        }
        s++;
        p = ep;
    }
    ms->depth++;
    return s;
}

/* Pushes capture i (or the whole match s..e when there are none). */
static void pm_push_capture(pm_state *ms, int i, const char *s, const char *e)
{
    if (i >= ms->level) {
        if (i != 0)
            luaL_error(ms->L, "invalid capture index %%%d", i + 1);
        lua_pushlstring(ms->L, s, (size_t)(e - s));
        return;
    }
    ptrdiff_t l = ms->capture[i].len;
    if (l == PM_CAP_UNFINISHED)
        luaL_error(ms->L, "unfinished capture");
    if (l == PM_CAP_POSITION)
        lua_pushinteger(ms->L, (ms->capture[i].init - ms->src_init) + 1);
    else
        lua_pushlstring(ms->L, ms->capture[i].init, (size_t)l);
}

static int pm_push_captures(pm_state *ms, const char *s, const char *e)
{
    int n = (ms->level == 0 && s) ? 1 : ms->level;
    luaL_checkstack(ms->L, n, "too many captures");
    for (int i = 0; i < n; i++)
        pm_push_capture(ms, i, s, e);
    return n;
}

/* Lua's rule for a start position: negative counts from the end. */
static size_t pm_start(lua_Integer pos, size_t len)
{
    if (pos > 0)
        return (size_t)pos;
    if (pos == 0 || pos < -(lua_Integer)len)
        return 1;
    return len + (size_t)pos + 1;
}

static int pm_plain(const char *p, size_t lp)
{
    for (size_t i = 0; i < lp; i++)
        if (strchr("^$*+?.([%-", p[i]) && p[i] != '\0')
            return 0;
    return 1;
}

static int pm_find_aux(lua_State *L, int find)
{
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    size_t init = pm_start(luaL_optinteger(L, 3, 1), ls) - 1;
    if (init > ls) {
        luaL_pushfail(L);
        return 1;
    }
    if (find && (lua_toboolean(L, 4) || pm_plain(p, lp))) {
        /* glibc's memmem is linear in the subject: no quadratic needle scans */
        sb_charge(L, sb_of(L), (ls - init) / 32 + 1);
        const char *r = lp == 0 ? s + init : memmem(s + init, ls - init, p, lp);
        if (r) {
            lua_pushinteger(L, (r - s) + 1);
            lua_pushinteger(L, (lua_Integer)((r - s) + (ptrdiff_t)lp));
            return 2;
        }
    } else {
        pm_state ms;
        const char *s1 = s + init;
        int anchor = (*p == '^');
        if (anchor) {
            p++;
            lp--;
        }
        pm_prepare(&ms, L, s, ls, p, lp);
        do {
            pm_reset(&ms);
            pm_step(&ms);
            const char *e = pm_match(&ms, s1, p);
            if (e) {
                if (find) {
                    lua_pushinteger(L, (s1 - s) + 1);
                    lua_pushinteger(L, e - s);
                    return pm_push_captures(&ms, NULL, NULL) + 2;
                }
                return pm_push_captures(&ms, s1, e);
            }
        } while (s1++ < ms.src_end && !anchor);
    }
    luaL_pushfail(L);
    return 1;
}

static int sb_find(lua_State *L)
{
    return pm_find_aux(L, 1);
}

static int sb_match(lua_State *L)
{
    return pm_find_aux(L, 0);
}

/* gmatch's iterator state, in a userdata the agent never sees. */
typedef struct pm_gstate {
    size_t pos;       /* where the next search starts */
    size_t lastmatch; /* end of the last match, or SIZE_MAX */
} pm_gstate;

static int pm_gmatch_next(lua_State *L)
{
    size_t ls, lp;
    const char *s = lua_tolstring(L, lua_upvalueindex(1), &ls);
    const char *p = lua_tolstring(L, lua_upvalueindex(2), &lp);
    pm_gstate *g = lua_touserdata(L, lua_upvalueindex(3));
    pm_state ms;
    pm_prepare(&ms, L, s, ls, p, lp);
    for (const char *src = s + g->pos; src <= ms.src_end; src++) {
        pm_reset(&ms);
        pm_step(&ms);
        const char *e = pm_match(&ms, src, p);
        if (e && (g->lastmatch == SIZE_MAX || (size_t)(e - s) != g->lastmatch)) {
            g->pos = g->lastmatch = (size_t)(e - s);
            return pm_push_captures(&ms, src, e);
        }
    }
    g->pos = ls + 1;
    return 0;
}

static int sb_gmatch(lua_State *L)
{
    size_t ls;
    luaL_checklstring(L, 1, &ls);
    luaL_checkstring(L, 2);
    size_t init = pm_start(luaL_optinteger(L, 3, 1), ls) - 1;
    lua_settop(L, 2);
    pm_gstate *g = lua_newuserdatauv(L, sizeof *g, 0);
    g->pos = init > ls ? ls + 1 : init;
    g->lastmatch = SIZE_MAX;
    lua_pushcclosure(L, pm_gmatch_next, 3);
    return 1;
}

static void pm_add_s(pm_state *ms, luaL_Buffer *b, const char *s, const char *e)
{
    size_t l;
    lua_State *L = ms->L;
    const char *news = lua_tolstring(L, 3, &l);
    sb_charge(L, ms->sb, l / 16 + 1);
    for (size_t i = 0; i < l; i++) {
        if (news[i] != '%') {
            luaL_addchar(b, news[i]);
            continue;
        }
        i++;
        if (i < l && news[i] == '%') {
            luaL_addchar(b, '%');
        } else if (i < l && news[i] >= '0' && news[i] <= '9') {
            if (news[i] == '0') {
                luaL_addlstring(b, s, (size_t)(e - s));
            } else {
                pm_push_capture(ms, news[i] - '1', s, e);
                luaL_tolstring(L, -1, NULL);
                lua_remove(L, -2);
                luaL_addvalue(b);
            }
        } else {
            luaL_error(L, "invalid use of '%%' in replacement string");
        }
    }
}

static void pm_add_value(pm_state *ms, luaL_Buffer *b, const char *s, const char *e, int tr)
{
    lua_State *L = ms->L;
    if (tr == LUA_TFUNCTION) {
        lua_pushvalue(L, 3);
        int n = pm_push_captures(ms, s, e);
        lua_call(L, n, 1);
    } else if (tr == LUA_TTABLE) {
        pm_push_capture(ms, 0, s, e);
        lua_gettable(L, 3);
    } else {
        pm_add_s(ms, b, s, e);
        return;
    }
    if (!lua_toboolean(L, -1)) { /* nil or false: keep the original text */
        lua_pop(L, 1);
        luaL_addlstring(b, s, (size_t)(e - s));
    } else if (!lua_isstring(L, -1)) {
        luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
    } else {
        luaL_addvalue(b);
    }
}

static int sb_gsub(lua_State *L)
{
    size_t srcl, lp;
    const char *src = luaL_checklstring(L, 1, &srcl);
    const char *p = luaL_checklstring(L, 2, &lp);
    const char *lastmatch = NULL;
    int tr = lua_type(L, 3);
    lua_Integer max_s = luaL_optinteger(L, 4, (lua_Integer)srcl + 1);
    int anchor = (*p == '^');
    lua_Integer n = 0;
    pm_state ms;
    luaL_Buffer b;
    luaL_argexpected(L, tr == LUA_TNUMBER || tr == LUA_TSTRING || tr == LUA_TFUNCTION || tr == LUA_TTABLE, 3,
                     "string/function/table");
    luaL_buffinit(L, &b);
    if (anchor) {
        p++;
        lp--;
    }
    pm_prepare(&ms, L, src, srcl, p, lp);
    while (n < max_s) {
        pm_reset(&ms);
        pm_step(&ms);
        const char *e = pm_match(&ms, src, p);
        if (e && e != lastmatch) {
            n++;
            pm_add_value(&ms, &b, src, e, tr);
            src = lastmatch = e;
        } else if (src < ms.src_end) {
            luaL_addchar(&b, *src++);
        } else {
            break;
        }
        if (anchor)
            break;
    }
    luaL_addlstring(&b, src, (size_t)(ms.src_end - src));
    luaL_pushresult(&b);
    lua_pushinteger(L, n);
    return 2;
}

/* ------------------------------------------------------------------------ */
/* Table functions whose loops are bounded only by a length the agent
 * controls (#t, __len, explicit ranges): insert, remove, move, concat, sort.
 * Same behaviour as Lua's, with every iteration charged.                    */

#define TAB_R 1
#define TAB_W 2
#define TAB_L 4
#define TAB_UNITS 8 /* charge per element: a few API calls each */

static void tab_check(lua_State *L, int arg, int what)
{
    if (lua_type(L, arg) == LUA_TTABLE)
        return;
    int ok = 1;
    if ((what & TAB_R) && luaL_getmetafield(L, arg, "__index") == LUA_TNIL)
        ok = 0;
    else if (what & TAB_R)
        lua_pop(L, 1);
    if (ok && (what & TAB_W) && luaL_getmetafield(L, arg, "__newindex") == LUA_TNIL)
        ok = 0;
    else if (ok && (what & TAB_W))
        lua_pop(L, 1);
    if (ok && (what & TAB_L) && luaL_getmetafield(L, arg, "__len") == LUA_TNIL)
        ok = 0;
    else if (ok && (what & TAB_L))
        lua_pop(L, 1);
    if (!ok)
        luaL_checktype(L, arg, LUA_TTABLE); /* raises the usual message */
}

static lua_Integer tab_len(lua_State *L, int arg, int what)
{
    tab_check(L, arg, what | TAB_L);
    return luaL_len(L, arg);
}

static int sb_tinsert(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    lua_Integer e = tab_len(L, 1, TAB_R | TAB_W);
    lua_Integer pos;
    e = (lua_Integer)((lua_Unsigned)e + 1u); /* first empty slot */
    switch (lua_gettop(L)) {
    case 2:
        pos = e;
        break;
    case 3:
        pos = luaL_checkinteger(L, 2);
        luaL_argcheck(L, (lua_Unsigned)pos - 1u < (lua_Unsigned)e, 2, "position out of bounds");
        for (lua_Integer i = e; i > pos; i--) {
            sb_charge(L, sb, TAB_UNITS);
            lua_geti(L, 1, i - 1);
            lua_seti(L, 1, i);
        }
        break;
    default:
        return luaL_error(L, "wrong number of arguments to 'insert'");
    }
    lua_seti(L, 1, pos);
    return 0;
}

static int sb_tremove(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    lua_Integer size = tab_len(L, 1, TAB_R | TAB_W);
    lua_Integer pos = luaL_optinteger(L, 2, size);
    if (pos != size)
        luaL_argcheck(L, (lua_Unsigned)pos - 1u <= (lua_Unsigned)size, 2, "position out of bounds");
    lua_geti(L, 1, pos);
    for (; pos < size; pos++) {
        sb_charge(L, sb, TAB_UNITS);
        lua_geti(L, 1, pos + 1);
        lua_seti(L, 1, pos);
    }
    lua_pushnil(L);
    lua_seti(L, 1, pos);
    return 1;
}

static int sb_tmove(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    lua_Integer f = luaL_checkinteger(L, 2);
    lua_Integer e = luaL_checkinteger(L, 3);
    lua_Integer t = luaL_checkinteger(L, 4);
    int tt = !lua_isnoneornil(L, 5) ? 5 : 1;
    tab_check(L, 1, TAB_R);
    tab_check(L, tt, TAB_W);
    if (e >= f) {
        luaL_argcheck(L, f > 0 || e < LUA_MAXINTEGER + f, 3, "too many elements to move");
        lua_Integer n = e - f + 1;
        luaL_argcheck(L, t <= LUA_MAXINTEGER - n + 1, 4, "destination wrap around");
        if (t > e || t <= f || (tt != 1 && !lua_compare(L, 1, tt, LUA_OPEQ))) {
            for (lua_Integer i = 0; i < n; i++) {
                sb_charge(L, sb, TAB_UNITS);
                lua_geti(L, 1, f + i);
                lua_seti(L, tt, t + i);
            }
        } else {
            for (lua_Integer i = n - 1; i >= 0; i--) {
                sb_charge(L, sb, TAB_UNITS);
                lua_geti(L, 1, f + i);
                lua_seti(L, tt, t + i);
            }
        }
    }
    lua_pushvalue(L, tt);
    return 1;
}

static void tconcat_add(lua_State *L, luaL_Buffer *b, lua_Integer i)
{
    lua_geti(L, 1, i);
    if (!lua_isstring(L, -1))
        luaL_error(L, "invalid value (at index %I) in table for 'concat'", (LUAI_UACINT)i);
    luaL_addvalue(b);
}

static int sb_tconcat(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    luaL_Buffer b;
    lua_Integer last = tab_len(L, 1, TAB_R);
    size_t lsep;
    const char *sep = luaL_optlstring(L, 2, "", &lsep);
    lua_Integer i = luaL_optinteger(L, 3, 1);
    last = luaL_optinteger(L, 4, last);
    luaL_buffinit(L, &b);
    for (; i < last; i++) {
        sb_charge(L, sb, TAB_UNITS + lsep / 16);
        tconcat_add(L, &b, i);
        luaL_addlstring(&b, sep, lsep);
    }
    if (i == last)
        tconcat_add(L, &b, i);
    luaL_pushresult(&b);
    return 1;
}

/* table.sort: an introsort. Quicksort with a median-of-three pivot kept on
 * the stack; a range that recurses too deep is finished by heapsort, so the
 * number of comparisons is O(n log n) whatever the comparator answers (an
 * inconsistent or C-function comparator cannot make it loop), and every
 * comparison is charged. */
static int sort_lt(lua_State *L, int a, int b) /* absolute stack indexes */
{
    if (lua_isnil(L, 2))
        return lua_compare(L, a, b, LUA_OPLT);
    lua_pushvalue(L, 2);
    lua_pushvalue(L, a);
    lua_pushvalue(L, b);
    lua_call(L, 2, 1);
    int r = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return r;
}

static int sort_lt_ij(lua_State *L, aw_sandbox *sb, lua_Integer i, lua_Integer j)
{
    sb_charge(L, sb, TAB_UNITS);
    lua_geti(L, 1, i);
    lua_geti(L, 1, j);
    int top = lua_gettop(L);
    int r = sort_lt(L, top - 1, top);
    lua_pop(L, 2);
    return r;
}

static void sort_swap(lua_State *L, lua_Integer a, lua_Integer b)
{
    lua_geti(L, 1, a);
    lua_geti(L, 1, b);
    lua_seti(L, 1, a);
    lua_seti(L, 1, b);
}

/* Heapsort of t[lo..hi]: heap position k lives at index lo + k - 1. */
static void sort_sift(lua_State *L, aw_sandbox *sb, lua_Integer lo, lua_Integer root, lua_Integer end)
{
    lua_Integer child;
    while ((child = 2 * root) <= end) {
        if (child + 1 <= end && sort_lt_ij(L, sb, lo + child - 1, lo + child))
            child++;
        if (!sort_lt_ij(L, sb, lo + root - 1, lo + child - 1))
            return;
        sort_swap(L, lo + root - 1, lo + child - 1);
        root = child;
    }
}

static void sort_heap(lua_State *L, aw_sandbox *sb, lua_Integer lo, lua_Integer hi)
{
    lua_Integer n = hi - lo + 1;
    for (lua_Integer i = n / 2; i >= 1; i--)
        sort_sift(L, sb, lo, i, n);
    for (lua_Integer end = n; end > 1; end--) {
        sort_swap(L, lo, lo + end - 1);
        sort_sift(L, sb, lo, 1, end - 1);
    }
}

static void sort_range(lua_State *L, aw_sandbox *sb, lua_Integer lo, lua_Integer hi, int depth)
{
    while (hi > lo) {
        if (depth-- <= 0) {
            sort_heap(L, sb, lo, hi);
            return;
        }
        lua_Integer mid = lo + (hi - lo) / 2;
        if (sort_lt_ij(L, sb, mid, lo))
            sort_swap(L, mid, lo);
        if (sort_lt_ij(L, sb, hi, mid)) {
            sort_swap(L, hi, mid);
            if (sort_lt_ij(L, sb, mid, lo))
                sort_swap(L, mid, lo);
        }
        if (hi - lo <= 2)
            return; /* three (or two) elements, now in order */
        /* t[lo] <= pivot <= t[hi]; the pivot moves to hi - 1 and stays on
         * the stack, and t[lo] and t[hi - 1] stop the two scans. */
        lua_geti(L, 1, mid);
        int piv = lua_gettop(L);
        sort_swap(L, mid, hi - 1);
        lua_Integer i = lo, j = hi - 1;
        for (;;) {
            for (;;) {
                sb_charge(L, sb, TAB_UNITS);
                lua_geti(L, 1, ++i);
                int lt = sort_lt(L, lua_gettop(L), piv);
                lua_pop(L, 1);
                if (!lt)
                    break;
                if (i >= hi - 1)
                    luaL_error(L, "invalid order function for sorting");
            }
            for (;;) {
                sb_charge(L, sb, TAB_UNITS);
                lua_geti(L, 1, --j);
                int lt = sort_lt(L, piv, lua_gettop(L));
                lua_pop(L, 1);
                if (!lt)
                    break;
                if (j <= lo)
                    luaL_error(L, "invalid order function for sorting");
            }
            if (j < i)
                break;
            sort_swap(L, i, j);
        }
        lua_pop(L, 1);
        sort_swap(L, i, hi - 1);
        /* Recurse into the smaller side, loop on the larger: O(log n) stack. */
        if (i - lo < hi - i) {
            sort_range(L, sb, lo, i - 1, depth);
            lo = i + 1;
        } else {
            sort_range(L, sb, i + 1, hi, depth);
            hi = i - 1;
        }
    }
}

static int sb_tsort(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    lua_Integer n = tab_len(L, 1, TAB_R | TAB_W);
    if (n > 1) {
        luaL_argcheck(L, n < INT_MAX, 1, "array too big");
        if (!lua_isnoneornil(L, 2))
            luaL_checktype(L, 2, LUA_TFUNCTION);
        lua_settop(L, 2);
        int depth = 0;
        for (lua_Integer k = n; k > 0; k >>= 1)
            depth += 2;
        luaL_checkstack(L, 8, "sort");
        sort_range(L, sb, 1, n, depth);
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* require: package.loaded, then the host's loaders (LPeg, the embedded lua/
 * library, aw_sandbox_preload), then package.preload (the agent's own), then
 * plain Lua files from module_dir. No C modules, no search paths.           */

static int sb_module_file(lua_State *L, aw_sandbox *sb, const char *name)
{
    size_t n = strlen(name);
    if (!sb->module_dir || n == 0 || n > 200)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                 (c == '.' && i > 0 && i + 1 < n && name[i + 1] != '.');
        if (!ok)
            return 0; /* no '/', no '..', no leading or trailing dot */
    }
    char path[4096];
    int k = snprintf(path, sizeof path, "%s/", sb->module_dir);
    if (k < 0 || (size_t)k + n + 5 > sizeof path)
        return 0;
    for (size_t i = 0; i < n; i++)
        path[k + i] = name[i] == '.' ? '/' : name[i];
    memcpy(path + k + n, ".lua", 5);
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    /* The file must really be inside the folder: a symbolic link to
     * elsewhere (/etc/passwd as passwd.lua), or through a linked
     * subfolder, is not a module. Each part of the path below the folder is
     * looked at with lstat (realpath would need readlink, which the isolated
     * mode's filter forbids). */
    for (size_t i = (size_t)k; path[i]; i++) {
        if (path[i] != '/' && path[i + 1] != '\0')
            continue;
        char part[4096];
        memcpy(part, path, i + (path[i] != '/'));
        part[i + (path[i] != '/')] = '\0';
        struct stat ls;
        if (lstat(part, &ls) != 0 || S_ISLNK(ls.st_mode))
            return luaL_error(L, "module '%s' is not a file inside the agent's folder", name);
    }
    if ((size_t)st.st_size > SB_MAX_MODULE_FILE)
        return luaL_error(L, "module '%s' is larger than %d bytes", name, (int)SB_MAX_MODULE_FILE);
    /* The file goes into a userdata (the agent's memory, freed by the GC) so
     * that nothing leaks if loading raises: no Lua call happens while the
     * FILE is open. */
    size_t size = (size_t)st.st_size;
    char *buf = lua_newuserdatauv(L, size ? size : 1, 0);
    sb->in_alloc = 1; /* stdio takes locks: the last resort must not jump out of it */
    FILE *f = fopen(path, "rb");
    if (f) {
        size = fread(buf, 1, size, f);
        fclose(f);
    }
    sb->in_alloc = 0;
    if (!f)
        return luaL_error(L, "cannot open module '%s'", name);
    lua_pushfstring(L, "@%s", path + k);
    if (sb_load_text(L, sb, buf, size, lua_tostring(L, -1)) != LUA_OK)
        return lua_error(L);
    lua_pushstring(L, name);
    lua_pushstring(L, path + k);
    lua_call(L, 2, 1);
    return 1;
}

static int sb_require(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    const char *name = luaL_checkstring(L, 1);
    lua_settop(L, 1);
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE); /* 2 */
    lua_pushvalue(L, 1);
    if (lua_toboolean(L, (lua_rawget(L, 2), -1)))
        return 1;
    lua_pop(L, 1);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &key_preload); /* 3 */
    lua_pushvalue(L, 1);
    lua_rawget(L, 3); /* 4 */
    if (lua_isnil(L, 4)) {
        lua_pop(L, 1);
        lua_getglobal(L, "package");
        if (lua_istable(L, -1)) {
            lua_getfield(L, -1, "preload");
            lua_remove(L, -2);
            if (lua_istable(L, -1)) {
                lua_pushvalue(L, 1);
                lua_gettable(L, -2);
                lua_remove(L, -2);
            }
        }
        if (!lua_isfunction(L, -1)) {
            lua_settop(L, 3);
            if (sb_module_file(L, sb, name))
                goto loaded;
            return luaL_error(L, "module '%s' not found", name);
        }
    }
    lua_pushvalue(L, 1);
    lua_pushliteral(L, ":preload:");
    lua_call(L, 2, 1);
loaded:
    if (!lua_isnil(L, -1)) {
        lua_pushvalue(L, 1);
        lua_pushvalue(L, -2);
        lua_rawset(L, 2);
    }
    lua_pop(L, 1);
    lua_pushvalue(L, 1);
    if (lua_rawget(L, 2) == LUA_TNIL) {
        lua_pop(L, 1);
        lua_pushboolean(L, 1);
        lua_pushvalue(L, 1);
        lua_pushvalue(L, -2);
        lua_rawset(L, 2);
    }
    return 1;
}

static int sb_luamod_loader(lua_State *L)
{
    const aw_luamod *m = lua_touserdata(L, lua_upvalueindex(1));
    lua_pushfstring(L, "@%s", m->path);
    /* Our own modules load from bytecode compiled once per process (made from
     * our text, never from an agent's); agents' chunks stay text-only. */
    size_t blen;
    const char *code = aw_luamod_bytecode(m, &blen);
    int st = code ? luaL_loadbufferx(L, code, blen, lua_tostring(L, -1), "b")
                  : luaL_loadbufferx(L, m->source, m->len, lua_tostring(L, -1), "t");
    if (st != LUA_OK)
        return lua_error(L);
    lua_pushstring(L, m->name);
    lua_pushstring(L, m->path);
    lua_call(L, 2, 1);
    return 1;
}

/* ------------------------------------------------------------------------ */
/* LPeg. Its matcher is a C loop no hook reaches, and PEG grammars can
 * backtrack exponentially, so every loop body (p^n) and every grammar rule
 * the agent builds starts with a match-time checkpoint: a Cmt whose C
 * function charges the budget and reads the clock. Tables given anywhere a
 * pattern is expected become grammars through the same instrumentation;
 * back captures (Cb, which search the capture list) pass through a
 * checkpoint too. The pattern metatable is hidden from getmetatable.        */

static int sb_lpeg_check(lua_State *L)
{
    sb_charge(L, sb_of(L), 32);
    lua_pushboolean(L, 1);
    return 1;
}

/* Called by every LPeg constructor wrapper: the full collection the
 * allocator asked for, from an ordinary C function (not from a hook or the
 * allocator, where collecting is not safe). It runs finalizers, which for
 * agents can only be LPeg's own C ones. */
static int sb_lpeg_gc(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    if (sb->want_gc) {
        sb->want_gc = 0;
        sb->since_gc = 0;
        lua_gc(L, LUA_GCCOLLECT);
    }
    return 0;
}

/* lpeg.match goes through here. LPeg 1.0.2 pushes the values of nested
 * captures without always checking the Lua stack (100 nested C() write past
 * the stack in stock LPeg: valgrind shows it), so the stack is grown first
 * far beyond what LPeg's own nesting limit (200 levels) can push, keeping
 * those writes inside allocated, unused stack slots. */
#define SB_LPEG_STACK 2000
static int sb_lpeg_match(lua_State *L)
{
    int n = lua_gettop(L);
    luaL_checkstack(L, SB_LPEG_STACK, "lpeg.match");
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L);
}

static int sb_lpeg_guard(lua_State *L)
{
    lua_settop(L, 1);
    lua_pushcclosure(L, sb_lpeg_match, 1);
    return 1;
}

static int sb_lpeg_pass(lua_State *L)
{
    sb_charge(L, sb_of(L), 32);
    return lua_gettop(L);
}

/* The instrumentation, in Lua: it runs once per sandbox when LPeg is first
 * required, with the raw module, the pattern metatable, the two checkpoint
 * functions and a weak-keyed table (made in C: the agent's setmetatable
 * refuses weak keys). Every pattern built through the wrappers gets a
 * "shadow" there: an upper estimate of its tree size and how many references
 * to each rule name it contains. They guard three things LPeg itself does
 * not:
 *  - LPeg's grammar analyses (left-recursion and loop checks, first sets)
 *    follow every rule reference separately, so a grammar whose rules each
 *    reference the next one twice takes 2^n steps inside one C call, before
 *    any match: a grammar is refused when the reference paths from a rule
 *    pass a bound;
 *  - LPeg computes tree sizes in int: p^n and P(n) for large n overflow and
 *    write past the tree (P(-2^31) crashes stock LPeg 1.0.2), so counts are
 *    capped and p^n is refused when its size estimate is too large;
 *  - LPeg's tree algorithms recurse on nested patterns (captures,
 *    predicates, repetitions), and through rule references into rule
 *    bodies: 30 000 nested -p crash stock LPeg on the C stack, so nesting
 *    is capped at 400 (sequences and choices, which LPeg keeps flat, do not
 *    count) and a grammar's rule count times its deepest rule at 10 000;
 *  - loops and rules get the match-time checkpoint (see above).
 * Shadow values hold only numbers and rule names (strings or numbers), never
 * patterns, so the weak table can never form chains the collector would
 * traverse quadratically. */
/* (The guard itself is Lua: runtime/luahost/lua/lpeg_guard.lua, compiled
 * into the binary as host code, aw_hostmods.) */

static char key_lpeg_module;

static int sb_open_lpeg(lua_State *L)
{
    lua_settop(L, 0);
    /* Opened once per sandbox: running luaopen_lpeg again (after an agent
     * clears package.loaded.lpeg) would put LPeg's raw metamethods back into
     * the shared pattern metatable and start new, empty shadows, switching
     * the guards off for every pattern made before. */
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &key_lpeg_module) == LUA_TTABLE)
        return 1;
    lua_pop(L, 1);
    lua_pushcfunction(L, luaopen_lpeg);
    lua_call(L, 0, 1); /* 1: the module */
    lua_getfield(L, 1, "P");
    lua_pushboolean(L, 1);
    lua_call(L, 1, 1);
    if (!lua_getmetatable(L, -1)) /* 3: the pattern metatable (raw, from C) */
        return luaL_error(L, "lpeg: patterns have no metatable");
    const aw_luamod *guard = aw_hostmod("lpeg_guard");
    if (!guard || luaL_loadbufferx(L, guard->source, guard->len, "=lpeg-sandbox", "t") != LUA_OK)
        return lua_error(L);
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 3);
    lua_pushcfunction(L, sb_lpeg_check);
    lua_pushcfunction(L, sb_lpeg_pass);
    lua_newtable(L); /* the shadows: weak keys, values never refer back to patterns */
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_pushcfunction(L, sb_lpeg_gc);
    lua_pushcfunction(L, sb_lpeg_guard);
    lua_call(L, 7, 0);
    lua_settop(L, 1);
    lua_pushvalue(L, 1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &key_lpeg_module);
    return 1;
}

/* ------------------------------------------------------------------------ */
/* The agent's environment.                                                 */

static int sb_randomseed(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    if (n == 0) { /* the stock one would seed from the clock: use the game's seed */
        lua_pushinteger(L, (lua_Integer)sb->lim.seed);
        n = 1;
    }
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L);
}

static void set_funcs(lua_State *L, const luaL_Reg *r)
{
    for (; r->name; r++) {
        if (r->func)
            lua_pushcfunction(L, r->func);
        else
            lua_pushnil(L);
        lua_setfield(L, -2, r->name);
    }
}

/* Replaces t[name] (t on top) by a closure of f over the old value. */
static void wrap_field(lua_State *L, const char *name, lua_CFunction f)
{
    lua_getfield(L, -1, name);
    lua_pushcclosure(L, f, 1);
    lua_setfield(L, -2, name);
}

static void open_lib(lua_State *L, const char *name, lua_CFunction open)
{
    luaL_requiref(L, name, open, 1);
}

static int sb_setup(lua_State *L)
{
    aw_sandbox *sb = lua_touserdata(L, 1);
    lua_settop(L, 0);

    lua_pushfstring(L, "time budget of %d ms exceeded", sb->lim.budget_ms);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &key_timeout_msg);

    open_lib(L, LUA_GNAME, luaopen_base);
    static const luaL_Reg base[] = {
        {"dofile", NULL},  {"loadfile", NULL},           {"warn", NULL},     {"print", sb_print},
        {"load", sb_load}, {"pcall", sb_pcall},          {"xpcall", sb_xpcall},
        {"setmetatable", sb_setmetatable},               {"collectgarbage", sb_collectgarbage},
        {"require", sb_require}, {NULL, NULL}};
    set_funcs(L, base);
    wrap_field(L, "tonumber", sb_tonumber);
    lua_pop(L, 1);

    open_lib(L, LUA_COLIBNAME, luaopen_coroutine);
    static const luaL_Reg co[] = {
        {"resume", sb_co_resume}, {"wrap", sb_co_wrap}, {"close", sb_co_close}, {NULL, NULL}};
    set_funcs(L, co);
    lua_pop(L, 1);

    open_lib(L, LUA_TABLIBNAME, luaopen_table);
    static const luaL_Reg tab[] = {{"insert", sb_tinsert}, {"remove", sb_tremove}, {"move", sb_tmove},
                                   {"concat", sb_tconcat}, {"sort", sb_tsort},     {NULL, NULL}};
    set_funcs(L, tab);
    lua_pushcfunction(L, sb_tunpack);
    lua_setfield(L, -2, "unpack");
    lua_pop(L, 1);

    open_lib(L, LUA_STRLIBNAME, luaopen_string);
    static const luaL_Reg str[] = {{"dump", NULL},      {"find", sb_find}, {"match", sb_match},
                                   {"gmatch", sb_gmatch}, {"gsub", sb_gsub}, {"rep", sb_rep},
                                   {NULL, NULL}};
    set_funcs(L, str);
    wrap_field(L, "pack", sb_pack);
    wrap_field(L, "format", sb_format);
    static const char *const str_charged[] = {"byte", "unpack", NULL};
    for (int i = 0; str_charged[i]; i++)
        wrap_field(L, str_charged[i], sb_charged);
    lua_pop(L, 1);
    /* Strings share one metatable; getmetatable("") must not hand it out. */
    lua_pushliteral(L, "");
    lua_getmetatable(L, -1);
    static const char *const arith[] = {"__add", "__sub", "__mul", "__mod", "__pow",  "__div",
                                        "__idiv", "__unm", NULL};
    for (int i = 0; arith[i]; i++)
        if (lua_getfield(L, -1, arith[i]) == LUA_TFUNCTION) {
            lua_pushcclosure(L, sb_string_arith, 1);
            lua_setfield(L, -2, arith[i]);
        } else {
            lua_pop(L, 1);
        }
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 2);

    open_lib(L, LUA_MATHLIBNAME, luaopen_math);
    wrap_field(L, "randomseed", sb_randomseed);
    lua_getfield(L, -1, "randomseed");
    lua_pushinteger(L, (lua_Integer)sb->lim.seed);
    lua_call(L, 1, 0);
    lua_pop(L, 1);

    open_lib(L, LUA_UTF8LIBNAME, luaopen_utf8);
    static const char *const utf8_charged[] = {"char", "codepoint", "len", "offset", NULL};
    for (int i = 0; utf8_charged[i]; i++)
        wrap_field(L, utf8_charged[i], sb_charged);
    lua_pop(L, 1);

    /* os: only the clock and calendar functions. */
    lua_pushcfunction(L, luaopen_os);
    lua_call(L, 0, 1);
    lua_createtable(L, 0, 4);
    static const char *const os_keep[] = {"clock", "time", "date", "difftime", NULL};
    for (int i = 0; os_keep[i]; i++) {
        lua_getfield(L, -2, os_keep[i]);
        lua_setfield(L, -2, os_keep[i]);
    }
    lua_remove(L, -2);
    lua_pushcfunction(L, sb_osdate);
    lua_setfield(L, -2, "date");
    lua_pushcfunction(L, sb_ostime);
    lua_setfield(L, -2, "time");
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_pushvalue(L, -2);
    lua_setfield(L, -2, "os");
    lua_pop(L, 1);
    lua_setglobal(L, "os");

    /* package: loaded and preload only. */
    lua_createtable(L, 0, 2);
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, "loaded");
    lua_pushvalue(L, -2);
    lua_setfield(L, -2, "package");
    lua_pop(L, 1);
    lua_newtable(L);
    lua_setfield(L, -2, "preload");
    lua_setglobal(L, "package");

    /* The host's loaders. */
    lua_newtable(L);
    lua_pushcfunction(L, sb_open_lpeg);
    lua_setfield(L, -2, "lpeg");
    for (const aw_luamod *m = aw_luamods; m->name; m++) {
        lua_pushlightuserdata(L, (void *)m);
        lua_pushcclosure(L, sb_luamod_loader, 1);
        lua_setfield(L, -2, m->name);
    }
    lua_rawsetp(L, LUA_REGISTRYINDEX, &key_preload);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Host side.                                                               */

void aw_sandbox_limits_default(aw_sandbox_limits *l)
{
    memset(l, 0, sizeof *l);
    l->budget_ms = 100;
    l->memory_bytes = (size_t)64 << 20;
    l->seed = 0;
    l->output_bytes = (size_t)64 << 10;
    l->module_dir = NULL;
}

const char *aw_fault_kind_name(aw_fault_kind k)
{
    switch (k) {
    case AW_FAULT_NONE: return "none";
    case AW_FAULT_ERROR: return "error";
    case AW_FAULT_TIMEOUT: return "timeout";
    case AW_FAULT_MEMORY: return "memory";
    case AW_FAULT_REPLY: return "reply";
    }
    return "unknown";
}

static int sb_panic(lua_State *L)
{
    /* Every entry into the state is protected; reaching here is a host bug. */
    const char *msg = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "(not a string)";
    fprintf(stderr, "aiwolf: unprotected error in a sandbox: %.200s\n", msg);
    abort();
}

/* Frees every block of an abandoned state (see wd_handler) without Lua,
 * and gives the sandbox an empty state so that aw_sandbox_state never
 * returns a dangling pointer. The agent is gone: every later call fails. */
static void sb_abandon(aw_sandbox *sb)
{
    sb_block *h = sb->blocks->next;
    while (h != sb->blocks) {
        sb_block *next = h->next;
        free(h);
        h = next;
    }
    sb->blocks->next = sb->blocks->prev = sb->blocks;
    sb->used = 0;
    sb->dead = 1;
    sb->in_call = 0;
    sb->expired = 0;
    sb->cur = NULL;
    sb->deadline = UINT64_MAX;
    sb->L = lua_newstate(sb_alloc, sb);
    if (sb->L) {
        lua_atpanic(sb->L, sb_panic);
        memset(lua_getextraspace(sb->L), 0, LUA_EXTRASPACE);
    }
}

/* lua_pcall of what is on the stack, or SB_KILLED when the last resort
 * (wd_handler) jumped back here: the call was stuck a whole budget past its
 * deadline where nothing else can stop it. Kept small so that nothing of
 * the caller lives across sigsetjmp. */
#define SB_KILLED (-1)
static int sb_pcall_killable(aw_sandbox *volatile sb, int nres, int armed)
{
    if (sigsetjmp(sb->kill_jmp, 1) != 0)
        return SB_KILLED;
    /* One budget past the deadline, and at least 100 ms (so at the default
     * budget of 100 ms and above the whole call stays within twice its
     * budget, give or take the timer's 5 ms period): late enough that the
     * hook comes first whenever it can. It stops most calls a few ms past
     * the deadline, but unwinding a stack overflow 300 000 frames deep takes
     * up to some 90 ms whatever the budget. */
    sb->kill_at = sb->deadline + (sb->budget_ns > 100000000u ? sb->budget_ns : 100000000u);
    sb->kill_armed = armed;
    int status = lua_pcall(sb->L, 1, nres, 0);
    sb->kill_armed = 0;
    return status;
}

/* Runs fn(ud) as the protected, budgeted call behind load and run. */
static int sb_protected(aw_sandbox *sb, lua_CFunction fn, void *ud, int nres, aw_fault *fault)
{
    lua_State *L = sb->L;
    aw_fault local;
    if (!fault)
        fault = &local;
    memset(fault, 0, sizeof *fault);
    if (sb->dead || !L) {
        fault->kind = AW_FAULT_TIMEOUT;
        snprintf(fault->msg, sizeof fault->msg, "the agent was killed by an earlier call that could not be stopped");
        return -AW_ESTATE;
    }
    if (sb->in_call) {
        fault->kind = AW_FAULT_ERROR;
        snprintf(fault->msg, sizeof fault->msg, "nested call into the same sandbox");
        return -AW_ESTATE;
    }
    int base = lua_gettop(L);
    if (!lua_checkstack(L, 4)) {
        fault->kind = AW_FAULT_MEMORY;
        snprintf(fault->msg, sizeof fault->msg, "memory cap of %zu bytes reached", sb->lim.memory_bytes);
        return -AW_ENOMEM;
    }
    uint64_t start = aw_now_ns();
    sb->in_call = 1;
    sb->expired = 0;
    sb->reply_fault = 0;
    sb->main_nest = 0;
    sb->cur = L;
    sb->deadline = start + sb->budget_ns;
    sb->next_check = sb->units + SB_CHECK_UNITS;
    sb->units_start = sb->units;
    sb->work_expired = 0;
    aw_sandbox *outer = wd_running; /* a host fn may (oddly) call into another sandbox */
    wd_running = sb;
    int armed = wd_arm(sb);
    sb->hook_count = sb->lim.work_budget ? SB_WORK_COUNT : armed ? 0 : SB_HOOK_COUNT;
    if (sb->hook_count)
        lua_sethook(L, sb_hook, LUA_MASKCOUNT, sb->hook_count);
    else
        lua_sethook(L, NULL, 0, 0);
    /* Near the cap, collect fully first: emergency collections (the ones an
     * allocation failure triggers) do not run finalizers, so garbage LPeg
     * patterns (which have a C __gc) would otherwise pin the memory. The
     * time counts against this call's budget. */
    sb->want_gc = 0;
    if (sb->used > sb->lim.memory_bytes / 8 * 7) {
        lua_gc(L, LUA_GCCOLLECT);
        sb->since_gc = 0;
    }
    lua_pushcfunction(L, fn); /* light C functions and light userdata allocate nothing */
    lua_pushlightuserdata(L, ud);
    int status = sb_pcall_killable(sb, nres, armed);
    if (status == SB_KILLED) {
        wd_disarm();
        wd_running = outer;
        if (outer && outer->in_call)
            wd_arm(outer);
        sb_abandon(sb);
        fault->kind = AW_FAULT_TIMEOUT;
        fault->elapsed_ns = aw_now_ns() - start;
        snprintf(fault->msg, sizeof fault->msg,
                 "time budget of %d ms exceeded and the call could not be stopped (stuck in the collector or a C "
                 "function) after %.1f ms: the agent was killed",
                 sb->lim.budget_ms, (double)fault->elapsed_ns / 1e6);
        return -AW_EINVAL;
    }
    if (armed)
        wd_disarm();
    wd_running = outer;
    if (outer && outer->in_call)
        wd_arm(outer); /* the outer call's deadline is still running */
    uint64_t end = aw_now_ns();
    int expired = sb->expired, by_work = sb->work_expired;
    sb->units_last = sb->units - sb->units_start;
    sb->in_call = 0;
    sb->expired = 0;
    sb->cur = NULL;
    sb->deadline = UINT64_MAX;
    fault->elapsed_ns = end - start;
    if (status == LUA_OK && !expired)
        return 0;
    if (expired && by_work) {
        fault->kind = AW_FAULT_TIMEOUT;
        snprintf(fault->msg, sizeof fault->msg, "work budget of %llu units exceeded (after %.1f ms)",
                 (unsigned long long)sb->lim.work_budget, (double)(end - start) / 1e6);
    } else if (expired) {
        fault->kind = AW_FAULT_TIMEOUT;
        snprintf(fault->msg, sizeof fault->msg, "time budget of %d ms exceeded (stopped after %.1f ms)",
                 sb->lim.budget_ms, (double)(end - start) / 1e6);
    } else if (status == LUA_ERRMEM) {
        fault->kind = AW_FAULT_MEMORY;
        snprintf(fault->msg, sizeof fault->msg, "memory cap of %zu bytes reached", sb->lim.memory_bytes);
    } else {
        /* Only type checks and raw access: no __tostring, no __index. */
        fault->kind = sb->reply_fault ? AW_FAULT_REPLY : AW_FAULT_ERROR;
        if (status != LUA_OK && lua_type(L, -1) == LUA_TSTRING) {
            size_t len;
            const char *s = lua_tolstring(L, -1, &len);
            copy_line(fault->msg, sizeof fault->msg, s, len);
        } else if (status != LUA_OK) {
            snprintf(fault->msg, sizeof fault->msg, "error object is a %s value", luaL_typename(L, -1));
        }
    }
    lua_settop(L, base);
    return -AW_EINVAL;
}

aw_sandbox *aw_sandbox_new(const aw_sandbox_limits *limits, aw_error *err)
{
    aw_sandbox *sb = calloc(1, sizeof *sb);
    if (!sb) {
        aw_fail(err, AW_ENOMEM, "sandbox: out of memory");
        return NULL;
    }
    if (limits)
        sb->lim = *limits;
    else
        aw_sandbox_limits_default(&sb->lim);
    if (sb->lim.budget_ms <= 0)
        sb->lim.budget_ms = 100;
    if (sb->lim.memory_bytes == 0)
        sb->lim.memory_bytes = (size_t)64 << 20;
    if (sb->lim.output_bytes == 0)
        sb->lim.output_bytes = (size_t)64 << 10;
    if (sb->lim.module_dir) {
        sb->module_dir = strdup(sb->lim.module_dir);
        if (!sb->module_dir) {
            free(sb);
            aw_fail(err, AW_ENOMEM, "sandbox: out of memory");
            return NULL;
        }
    }
    sb->lim.module_dir = sb->module_dir;
    sb->budget_ns = (uint64_t)sb->lim.budget_ms * 1000000u;
    sb->deadline = UINT64_MAX;
    sb->next_check = SB_CHECK_UNITS;
    sb->hook_count = SB_HOOK_COUNT;
    aw_buf_init(&sb->out);
    sb->blocks = &sb->head;
    sb->head.prev = sb->head.next = &sb->head;
    sb->L = lua_newstate(sb_alloc, sb);
    if (!sb->L) {
        aw_fail(err, AW_ENOMEM, "sandbox: cannot create a Lua state within %zu bytes", sb->lim.memory_bytes);
        aw_sandbox_free(sb);
        return NULL;
    }
    lua_atpanic(sb->L, sb_panic);
    /* Lua leaves the main thread's extra space uninitialised, and every new
     * thread copies it: the per-thread flags must start at zero. */
    memset(lua_getextraspace(sb->L), 0, LUA_EXTRASPACE);
    /* The hook is in place before any code runs; calls only move the deadline. */
    lua_sethook(sb->L, sb_hook, LUA_MASKCOUNT, SB_HOOK_COUNT);
    lua_pushcfunction(sb->L, sb_setup);
    lua_pushlightuserdata(sb->L, sb);
    if (lua_pcall(sb->L, 1, 0, 0) != LUA_OK) {
        const char *m = lua_type(sb->L, -1) == LUA_TSTRING ? lua_tostring(sb->L, -1) : "error";
        aw_fail(err, AW_ENOMEM, "sandbox: setup failed: %s", m);
        aw_sandbox_free(sb);
        return NULL;
    }
    lua_settop(sb->L, 0);
    return sb;
}

void aw_sandbox_free(aw_sandbox *sb)
{
    if (!sb)
        return;
    if (sb->L)
        lua_close(sb->L);
    if (sb->blocks) { /* nothing should remain; free it if something does */
        for (sb_block *h = sb->blocks->next, *next; h != sb->blocks; h = next) {
            next = h->next;
            free(h);
        }
    }
    aw_buf_free(&sb->out);
    free(sb->module_dir);
    free(sb);
}

lua_State *aw_sandbox_state(aw_sandbox *sb)
{
    return sb->L;
}

typedef struct sb_load_args {
    const char *src;
    size_t len;
    const char *name;
} sb_load_args;

static int sb_load_body(lua_State *L)
{
    sb_load_args *a = lua_touserdata(L, 1);
    if (a->len > SB_MAX_SOURCE)
        return luaL_error(L, "%s: source larger than %d bytes", a->name, (int)SB_MAX_SOURCE);
    if (sb_load_text(L, sb_of(L), a->src, a->len, a->name) != LUA_OK)
        return lua_error(L);
    lua_call(L, 0, 1);
    return 1;
}

int aw_sandbox_load(aw_sandbox *sb, const char *src, size_t len, const char *chunkname, aw_fault *fault)
{
    sb_load_args a = {src, len, chunkname ? chunkname : "=agent"};
    return sb_protected(sb, sb_load_body, &a, 1, fault);
}

int aw_sandbox_run(aw_sandbox *sb, lua_CFunction fn, void *ud, aw_fault *fault)
{
    return sb_protected(sb, fn, ud, 0, fault);
}

static int sb_ref_body(lua_State *L)
{
    lua_pushinteger(L, luaL_ref(L, LUA_REGISTRYINDEX));
    return 1;
}

int aw_sandbox_ref(aw_sandbox *sb, aw_fault *fault)
{
    lua_State *L = sb->L;
    aw_fault local;
    if (!fault)
        fault = &local;
    memset(fault, 0, sizeof *fault);
    if (lua_gettop(L) < 1 || !lua_checkstack(L, 2)) {
        lua_settop(L, lua_gettop(L) > 0 ? lua_gettop(L) - 1 : 0);
        fault->kind = AW_FAULT_ERROR;
        snprintf(fault->msg, sizeof fault->msg, "nothing to keep");
        return -AW_ESTATE;
    }
    /* luaL_ref may grow the registry: run it protected, the value as its argument. */
    lua_pushcfunction(L, sb_ref_body);
    lua_insert(L, -2);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
        lua_pop(L, 1);
        fault->kind = AW_FAULT_MEMORY;
        snprintf(fault->msg, sizeof fault->msg, "memory cap of %zu bytes reached", sb->lim.memory_bytes);
        return -AW_ENOMEM;
    }
    int ref = (int)lua_tointeger(L, -1);
    lua_pop(L, 1);
    return ref;
}

void aw_sandbox_unref(aw_sandbox *sb, int ref)
{
    if (ref > 0)
        luaL_unref(sb->L, LUA_REGISTRYINDEX, ref);
}

typedef struct sb_preload_args {
    const char *name;
    lua_CFunction open;
} sb_preload_args;

static int sb_preload_body(lua_State *L)
{
    sb_preload_args *a = lua_touserdata(L, 1);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &key_preload);
    lua_pushcfunction(L, a->open);
    lua_setfield(L, -2, a->name);
    return 0;
}

int aw_sandbox_preload(aw_sandbox *sb, const char *name, lua_CFunction open, aw_error *err)
{
    aw_fault f;
    sb_preload_args a = {name, open};
    if (!name || !open)
        return aw_fail(err, AW_EINVAL, "sandbox: preload needs a name and a function");
    if (sb_protected(sb, sb_preload_body, &a, 0, &f) < 0)
        return aw_fail(err, AW_ENOMEM, "sandbox: cannot preload '%s': %s", name, f.msg);
    return 0;
}

const char *aw_sandbox_output(aw_sandbox *sb, size_t *len)
{
    if (len)
        *len = sb->out.len;
    return sb->out.data ? sb->out.data : "";
}

void aw_sandbox_clear_output(aw_sandbox *sb)
{
    aw_buf_clear(&sb->out);
    sb->out_dropped = 0;
}

size_t aw_sandbox_output_dropped(const aw_sandbox *sb)
{
    return sb->out_dropped;
}

uint64_t aw_sandbox_work(const aw_sandbox *sb)
{
    return sb->units_last;
}

size_t aw_sandbox_memory(const aw_sandbox *sb)
{
    return sb->used;
}

size_t aw_sandbox_memory_peak(const aw_sandbox *sb)
{
    return sb->peak;
}
