/* sandbox_internal: what the files of the sandbox share (the sandbox's
 * own parts; nothing outside runtime/luahost/sb_*.c and sandbox.c may
 * include it): the state of a sandbox, its limits, the registry keys, and
 * the functions one part calls in another. sandbox.h is the contract. */
#ifndef AW_SANDBOX_INTERNAL_H
#define AW_SANDBOX_INTERNAL_H

#define _GNU_SOURCE /* memmem: a linear-time substring search */

#include "sandbox.h"


#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua-lpeg.h>
#include <lualib.h>

#include "luamods.h"

/* The wall-clock bound of a call: SB_WALL_FACTOR times its budget, at
 * least SB_WALL_MIN_NS; the last resort acts at twice that (see
 * docs/sandbox.md, "How time is enforced"). */
#define SB_WALL_FACTOR 10u
#define SB_WALL_MIN_NS 1000000000u
/* The CPU clock is read at most every SB_CPU_SLACK_NS of wall-clock time
 * once fewer than that many ns of the budget are left (sb_clock_past). */
#define SB_CPU_SLACK_NS 250000u
/* Each thread reads its CPU clock (a system call) when its sample of it is
 * SB_CPU_SAMPLE_NS of wall-clock time old, not at every call
 * (sb_call_clocks_start). */
#define SB_CPU_SAMPLE_NS 250000u

/* Without the watchdog (below), a count hook fires every SB_HOOK_COUNT VM
 * instructions of a thread and reads the clocks (sb_clock_past). With it, no hook is
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

/* The allocator (sb_alloc.c): every block comes from the sandbox's own
 * address region. Blocks of at most SB_SMALL_MAX bytes come from its arena,
 * in size classes of SB_GRAIN bytes (so they keep malloc's 16-byte
 * alignment); larger ones have a 16-byte header in front and free lists by
 * powers of two (SB_NBIN). */
#define SB_SMALL_MAX 512u
#define SB_GRAIN 16u
#define SB_NCLASS (SB_SMALL_MAX / SB_GRAIN)
#define SB_NBIN 64

/* Built with AddressSanitizer: the arena poisons what Lua does not own. */
#if defined(__SANITIZE_ADDRESS__)
#define SB_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SB_ASAN 1
#endif
#endif

struct aw_sandbox {
    lua_State *L;
    int close_depth;            /* nesting of coroutine.close (co_close) */
    int main_nest;              /* protected calls running in the main thread (sb_nest_enter) */
    int call_base;              /* the stack's top when the current or last call started */
    aw_sandbox_limits lim;
    size_t used;                /* bytes the state holds now */
    size_t peak;                /* most it ever held */
    uint64_t allocated;         /* bytes of growth since it was made (benchmarks) */
    int lpeg_opened;            /* LPeg was opened since the environment was last made */
    size_t renewed_used;        /* what it held after its environment was last made (aw_sandbox_renew) */
    size_t made_used;           /* what it held when aw_sandbox_new returned */
    size_t kept_bytes;          /* what the kept chunks took when loaded (sb_chunk_keep) */
    unsigned long envs;         /* environments made (sb_fresh_env): names the game */
    unsigned global_reads;      /* the game's globals read through their proxy (sb_proxy.c) */
    size_t grown;               /* growth since the allocator last read the clock */
    uint64_t budget_ns;
    uint64_t wall_bound_ns;     /* the wall-clock bound of a call (sb_wall_bound_ns) */
    size_t gc_at;               /* a call starts with a full collection when the state holds more (7/8 of the cap) */
    /* The clocks of a call (see sb_clock_past): the budget counts the
     * calling thread's CPU time (sb_cpu_ns); the wall clock (aw_now_ns)
     * only bounds the call from outside. */
    uint64_t deadline;          /* thread CPU time at which the call is over budget; UINT64_MAX outside calls */
    uint64_t cpu_start;         /* thread CPU time when the call started */
    uint64_t wall_start;        /* wall clock when the call started */
    uint64_t wall_limit;        /* wall clock at which the call is stopped whatever its CPU time */
    uint64_t cpu_check_at;      /* wall clock before which the CPU deadline cannot pass: no need to read it */
    /* The seat's own clock (os.clock, sb_osclock): the time of this game's
     * calls so far, measured inside them only, never the time of another
     * sandbox's calls or of the host between calls. */
    uint64_t own_ns;            /* the completed calls of this game */
    uint64_t clock_start;       /* in a call where clock_on: thread CPU time counted as the call's start */
    int clock_on;               /* the current call has it */
    int clock_exact;            /* os.clock was read this game: calls read the CPU clock as they start */
    uint64_t units;             /* work units charged so far (all calls) */
    uint64_t units_start;       /* units when the current call started */
    uint64_t units_last;        /* units the last call used */
    int work_expired;           /* the expiry came from the work budget */
    int cap_first;              /* the call reached the memory cap before any deadline */
    int want_gc;                /* near the cap: collect fully at the next safe point */
    /* The last resort (see sb_wd_handler): every block the state owns is in
     * the sandbox's region, so that a state that cannot be stopped can be
     * abandoned and its memory freed without Lua's help. */
    char *region, *region_top, *region_end; /* reserved; blocks below top */
    void *free_big[SB_NBIN];    /* free large blocks, by power of two */
    void *free_small[SB_NCLASS]; /* free arena blocks, one list per size class */
    char *bump, *bump_end;      /* the rest of the newest chunk */
    size_t arena_bytes;         /* bytes of chunks */
    volatile sig_atomic_t in_alloc; /* in malloc/free or other host code: no kill now */
    volatile sig_atomic_t in_libc;  /* in a libc call that takes a lock (mktime, strftime): no kill now */
    volatile sig_atomic_t kill_armed; /* the last resort may jump to kill_jmp (see sb_kill_after_ns) */
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
extern const char sb_key_timeout_msg; /* prebuilt string raised on time-out */
extern const char sb_key_preload;     /* host-registered loaders, agent-invisible */
extern const char sb_key_template;    /* the globals each game's are copied from */
extern const char sb_key_regkeys;     /* the registry's keys when the sandbox was made */
extern const char sb_key_chunks;      /* main chunks kept for later games */
extern const char sb_key_shared;      /* shared instances of our stateless modules (sb_require.c) */

/* Main chunks kept across games (our modules', the agent file's): loaded
 * once per sandbox and run again in each game with the game's globals as
 * their _ENV. No agent code can reach a kept function (require returns what
 * it returned, never the function), and a function is immutable; what it
 * makes when it runs is the game's. Their _ENV is the game's globals: a
 * function is kept while the globals it was loaded with are the game's,
 * and the renewal (sb_fresh_env) sets every kept function's _ENV to the
 * new globals. sb_chunk_get pops the key on top and pushes the function
 * kept under it (returns 1), or pushes nothing (returns 0). sb_chunk_keep keeps the
 * function below the key on top under that key, and pops the key; before
 * is what the sandbox held before the function was loaded (its memory is
 * counted in kept_bytes). */
int sb_chunk_get(lua_State *L);
void sb_chunk_keep(lua_State *L, size_t before);

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

static inline aw_sandbox *sb_of(lua_State *L)
{
    void *ud = NULL;
    lua_getallocf(L, &ud);
    return ud;
}

static inline uintptr_t *thread_flags(lua_State *L)
{
    return (uintptr_t *)lua_getextraspace(L);
}

extern _Thread_local aw_sandbox *volatile sb_wd_running;

/* Setting a library's fields: each r->func (nil where NULL) under r->name
 * in the table on top. */
static inline void sb_set_funcs(lua_State *L, const luaL_Reg *r)
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
static inline void sb_wrap_field(lua_State *L, const char *name, lua_CFunction f)
{
    lua_getfield(L, -1, name);
    lua_pushcclosure(L, f, 1);
    lua_setfield(L, -2, name);
}

/* The openers: each part opens its own library into the globals, with its
 * own luaL_Reg, stack balanced; sandbox.c's allow list (sb_libs) calls them
 * in order and says which names stay. */
void sb_open_base(lua_State *L);      /* sb_base.c */
void sb_open_coroutine(lua_State *L); /* sb_base.c */
void sb_open_table(lua_State *L);     /* sb_tablib.c */
void sb_open_string(lua_State *L);    /* sb_strlib.c */
void sb_open_utf8(lua_State *L);      /* sb_strlib.c */
void sb_open_math(lua_State *L);      /* sb_mathlib.c */
void sb_open_os(lua_State *L);        /* sb_os.c */
void sb_open_package(lua_State *L);   /* sb_require.c */

/* What one part hands the others (sandbox.c hands them nothing: it calls
 * the openers and the parts' services, never the other way round). */
/* sb_alloc.c */
void *sb_alloc(void *ud, void *ptr, size_t osize, size_t nsize);
int sb_heap_init(aw_sandbox *sb);
void sb_heap_release(aw_sandbox *sb);
void sb_heap_unmap(aw_sandbox *sb);
/* sb_chunk.c: the text the sandbox compiles; the chunks kept (above) */
int sb_load_text(lua_State *L, aw_sandbox *sb, const char *s, size_t len, const char *name);
/* sb_base.c */
void sb_copy_line(char *dst, size_t cap, const char *s, size_t len);
/* sb_addr.c: objects shown by number, never by address. */
void sb_ids_open(lua_State *L);
const char *sb_tolstring(lua_State *L, int idx, size_t *len);
void sb_push_pointer(lua_State *L, int idx);
int sb_tostring(lua_State *L);
/* sb_proxy.c: a game's library tables (and its shared modules' tables)
 * start as proxies of their templates, filled the first time anything
 * could tell (see there). sb_proxy_metatable pushes a proxy metatable for
 * the template at tmpl whose __index is the table at index (the template
 * itself, or a view of it); sb_proxy_fix fills the proxy at idx (if it is
 * one) and takes its metatable away; sb_proxy_open makes the registry's
 * entry that names the game's `string` (its filling moves the strings'
 * methods to it), under the key sb_proxy_push_string_key pushes (the
 * maker, sandbox.c, sets it for each game). The base
 * functions that see a table raw: */
void sb_proxy_metatable(lua_State *L, int tmpl, int index);
void sb_proxy_globals_metatable(lua_State *L, int tmpl);
/* The chunk name of the maker of a game's environment (sandbox.c): the
 * host's code, which the profile (sb_profile.c) leaves out. */
#define SB_MAKER_NAME "=sandbox-maker"
void sb_proxy_fix(lua_State *L, int idx);
void sb_proxy_open(lua_State *L);
void sb_proxy_push_string_key(lua_State *L);
int sb_next(lua_State *L);
int sb_pairs(lua_State *L);
int sb_rawget(lua_State *L);
int sb_rawset(lua_State *L);
int sb_rawlen(lua_State *L);
int sb_getmetatable(lua_State *L);
/* sb_budget.c */
int sb_over_work(aw_sandbox *sb);
int sb_past_deadline(aw_sandbox *sb);
uint64_t sb_cpu_ns(void);
uint64_t sb_wall_bound_ns(const aw_sandbox *sb);
void sb_budget_set(aw_sandbox *sb);
int sb_raise_timeout(lua_State *L, aw_sandbox *sb);
int sb_wd_arm(aw_sandbox *sb);
/* The common path of sandbox.c's sb_protected (a sandbox neither dead,
 * nor unguarded, nor in a call): fault's kind and message cleared, the
 * call's fields, fn(ud) pushed (msgh below it when not NULL), the clocks
 * and the watch, the hook, a full collection near the cap, lua_pcall
 * under the last resort's jump, the call's end (fault->elapsed_ns and
 * wall_ns). Returns 0 when the call ran
 * and did not expire (the stack as it was); SB_NOSTACK when there was no
 * room to push the call (nothing ran); SB_KILLED when the last resort
 * jumped out (the state must be abandoned); otherwise lua_pcall's status,
 * with SB_EXPIRED when the call ran out of time (the stack is then left
 * for the caller to reset to sb->call_base). */
#define SB_KILLED (-1)
#define SB_NOSTACK (-2)
#define SB_EXPIRED 0x100
int sb_call(aw_sandbox *sb, lua_CFunction fn, lua_CFunction msgh, void *ud, int nres, aw_fault *fault);
void sb_own_clock_reset(aw_sandbox *sb);
int sb_osclock(lua_State *L);
void sb_charge(lua_State *L, aw_sandbox *sb, uint64_t n);
void sb_check(lua_State *L, aw_sandbox *sb);
void sb_hook(lua_State *L, lua_Debug *ar);
void sb_rearm(aw_sandbox *sb);
void sb_wd_disarm(void);
void sb_wd_handler(int sig, siginfo_t *si, void *uctx);
int sb_charged(lua_State *L); /* a stock function (the upvalue), charged for what it returns */
/* sb_profile.c: one sample of the running function (limits.profile set). */
void sb_profile_sample(aw_sandbox *sb, lua_State *L);
/* sb_lpeg.c */
int sb_lpeg_gc(lua_State *L);
int sb_open_lpeg(lua_State *L);
/* sb_pattern.c: find, match, gmatch, gsub */
extern const luaL_Reg sb_string_patterns[];
/* sb_require.c */
int sb_require(lua_State *L);
/* sb_numeral.c: tonumber and the string metatable's arithmetic */
int sb_tonumber(lua_State *L);
int sb_string_arith(lua_State *L);

#endif
