/* sandbox: one isolated Lua 5.4 state per agent, with a memory cap enforced in
 * its allocator, a time budget per call (of the calling thread's CPU time,
 * with a wall-clock bound at 10x) enforced by a watchdog and an
 * instruction-count hook (which pcall cannot swallow), bounded C library calls, and only the
 * libraries an agent may use: no files, network, threads or processes.
 * `require` serves only LPeg and the project's embedded lua/ modules (and,
 * when a module directory is given, plain Lua files from it).
 *
 * Uses Lua 5.4, LPeg, luamods (the embedded Lua library) and util.
 *
 * Ownership: aw_sandbox_new returns a sandbox owned by the caller, freed with
 * aw_sandbox_free, which also closes its lua_State. The lua_State returned by
 * aw_sandbox_state is borrowed; never lua_close it. */
#ifndef AW_SANDBOX_H
#define AW_SANDBOX_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

#include <lua.h>

#include "util.h"

typedef struct aw_sandbox aw_sandbox;

/* Compiled modules kept from one sandbox to the next: the bytecode of each
 * file of a module folder that a sandbox compiled, with the text it came
 * from, so that a later sandbox requiring the same file with the same text
 * loads that bytecode (ours, never an agent's) instead of compiling again.
 * Owned by the caller (one per agent), freed with aw_modcache_free once no
 * sandbox that uses it (aw_sandbox_limits.module_cache) is left. Not
 * thread-safe: one thread at a time. */
typedef struct aw_modcache aw_modcache;
aw_modcache *aw_modcache_new(void);
void aw_modcache_free(aw_modcache *c);

typedef struct aw_sandbox_limits {
    int budget_ms;          /* CPU time per call (the calling thread's); default 100. Wall-clock
                               time per call is bounded at 10x that, at least 1 s (docs/sandbox.md) */
    size_t memory_bytes;    /* allocator cap; default 64 MiB (the sandbox reserves twice that of
                               address space, committed only as used: docs/sandbox.md) */
    uint64_t seed;          /* seeds the agent's math.random */
    size_t output_bytes;    /* cap on the agent's print() log; default 64 KiB */
    const char *module_dir; /* folder an agent may require plain .lua modules from, or NULL */
    aw_modcache *module_cache; /* compiled modules of module_dir kept across sandboxes, or NULL */
    uint64_t work_budget;   /* 0 (default): time only. Otherwise each call may also spend at most
                               this many work units (VM instructions plus a cost for library work,
                               see docs/sandbox.md), a count that does not depend on the machine's
                               speed; budget_ms still applies as a safety net. */
    int unguarded;          /* benchmarks only (bench/overhead_bench): no budget at all (no watchdog,
                               no hook, no clock) and the C library's allocator with no cap, so that
                               what the guards cost can be measured against it. Never for agents: a
                               loop runs forever, an allocation takes all memory. */
    aw_profile *profile;    /* if set (not owned), calls sample where the agent's Lua runs into it,
                               every SB_HOOK_COUNT (1000) VM instructions: 20-25 % slower (a count
                               hook makes Lua check it at every instruction) */
} aw_sandbox_limits;

/* Fills l with the defaults above (seed 0, no module folder). */
void aw_sandbox_limits_default(aw_sandbox_limits *l);
/* The defaults with what an agent's limits (agentlimits.h's aw_limits)
 * set: budget_ms when > 0, memory_bytes when not 0. The one conversion of
 * a seat's and lint's. */
void aw_sandbox_limits_agent(aw_sandbox_limits *l, int budget_ms, size_t memory_bytes);

/* Why a protected call failed: an aw_fault_kind (util.h), never
 * AW_FAULT_LOST here. */
typedef struct aw_fault {
    aw_fault_kind kind;
    char msg[512];       /* one line, safe to print: what went wrong, with file:line where known */
    uint64_t elapsed_ns; /* CPU time the call took (the calling thread's): what the budget counts; at
                            most wall_ns, and wall_ns for calls under 0.25 ms (docs/sandbox.md) */
    uint64_t wall_ns;    /* wall-clock time it took */
} aw_fault;


/* Creates a sandbox. Returns NULL (and fills err) only when the host itself
 * cannot allocate. */
aw_sandbox *aw_sandbox_new(const aw_sandbox_limits *limits, aw_error *err);
void aw_sandbox_free(aw_sandbox *sb);
lua_State *aw_sandbox_state(aw_sandbox *sb);
/* A game's library tables stand empty, with a hidden metatable, until
 * something could tell (docs/sandbox.md, "One sandbox, many games"): host
 * code that lists one with lua_next fills the table at idx first with
 * this (a no-op for any other value). Runs in a call (aw_sandbox_run): it
 * allocates. */
void aw_sandbox_fill(lua_State *L, int idx);

/* Compiles text (binary chunks are refused) and runs it under the budget with
 * no arguments; on success its first result is left on the stack (nil if it
 * returned nothing) and 0 is returned. On failure nothing is left on the stack,
 * *fault says why, and a negative value is returned. */
int aw_sandbox_load(aw_sandbox *sb, const char *src, size_t len, const char *chunkname, aw_fault *fault);

/* aw_sandbox_load, and when code is not NULL the compiled chunk is also
 * appended to it as Lua bytecode (with debug information) — only when the
 * chunk compiled and ran: on failure code is left as it was. The bytecode is
 * the host's own compile of a text, so later sandboxes may run it with
 * aw_sandbox_load_code instead of compiling the text again. */
int aw_sandbox_load_keep(aw_sandbox *sb, const char *src, size_t len, const char *chunkname, aw_buf *code,
                         aw_fault *fault);

/* Host code inside aw_sandbox_run: appends the Lua function on top of the
 * stack (left there) to out as bytecode, with debug information (messages
 * keep file:line); the last resort waits until it is done. Only for
 * functions the host compiled from text. */
void aw_sandbox_dump(lua_State *L, aw_buf *out);

/* Runs bytecode that aw_sandbox_load_keep made (never bytes from an agent:
 * agents can only load text) as aw_sandbox_load runs a text. */
int aw_sandbox_load_code(aw_sandbox *sb, const char *code, size_t len, const char *chunkname, aw_fault *fault);

/* aw_sandbox_load_code, with the loaded chunk kept in the sandbox under key
 * (not NULL): a later call with the same key, in this game or a later one
 * (aw_sandbox_renew), runs the kept function again instead of loading the
 * bytecode. The caller promises that a key names one code (say, a content
 * hash of it); NULL keeps nothing. */
int aw_sandbox_load_code_kept(aw_sandbox *sb, const char *code, size_t len, const char *chunkname, const char *key,
                              aw_fault *fault);

/* Makes sb ready for a new game, as a new sandbox would be but cheaper:
 * the agent's environment is made again from the sandbox's template (new
 * globals, new library tables (filled from the template when first changed
 * or listed), a new package.loaded,
 * math.random seeded with seed); what the last game made is garbage
 * (collected at once when it is more than 256 KiB). What a game's agent code can reach is the game's environment
 * and what it made; once the host released its references into the
 * sandbox (aw_sandbox_unref), none of that is reachable, and what stays
 * (the template, kept chunks, the host's loaders) is never handed to agent
 * code or cannot change (see docs/sandbox.md, "One sandbox, many games").
 * The output is cleared and the peak memory starts again from the current
 * use. Returns 0, or a negative value with *fault filled: the sandbox must
 * then be freed. Not for a dead sandbox (one whose call was abandoned). */
int aw_sandbox_renew(aw_sandbox *sb, uint64_t seed, aw_fault *fault);

/* Runs fn(L) as a protected call with the time budget armed and ud as a light
 * userdata at stack index 1. fn may build argument tables, call into agent
 * code with lua_call and read results; every Lua error, time-out or memory
 * error inside is caught. fn's results are discarded; the stack is left as it
 * was. Returns 0, or a negative value with *fault filled. */
int aw_sandbox_run(aw_sandbox *sb, lua_CFunction fn, void *ud, aw_fault *fault);

/* aw_sandbox_run with msgh as the call's message handler (lua_pcall's): it
 * sees every error raised inside (not memory errors) where it was raised,
 * so fn can call agent code with lua_call and still have, say, a traceback
 * of the agent's frames added, without a protected call of its own per
 * call into the agent. */
int aw_sandbox_run_handled(aw_sandbox *sb, lua_CFunction fn, lua_CFunction msgh, void *ud, aw_fault *fault);

/* The last resort: a call still running a whole budget (of CPU time) past
 * its deadline, or twice its wall-clock bound (20x the budget, at least 2 s)
 * after its start, is stuck where nothing can stop it (inside Lua's garbage
 * collector, or a C function the sandbox failed to bound). The watchdog then abandons it —
 * jumps out and frees the state's memory without Lua — and the call fails
 * with AW_FAULT_TIMEOUT and a message ending in "the agent was killed". The
 * agent is gone: every later load/run fails at once, and aw_sandbox_state
 * returns a new, empty state (the old lua_State pointer is dangling). Host
 * code running inside aw_sandbox_run at that moment is abandoned too, so it
 * must not hold resources across calls into the agent (it must not anyway:
 * errors unwind it with longjmp). */

/* Embedding: the watchdog's signal. At the deadline of a budgeted call the
 * calling thread gets a signal (from the sandbox's watchdog thread, or
 * where no thread can be started from per-thread POSIX timers; see
 * docs/sandbox.md); the handler only asks the running Lua thread to stop.
 * The signal never reaches a thread outside a call.
 * The signal is chosen once per process, when the first call is budgeted:
 * by default the first real-time signal from SIGRTMIN+4 up whose
 * disposition is the default one (a signal the program already handles is
 * never taken). A program that needs that signal for itself calls, before
 * any sandbox runs:
 *   aw_sandbox_set_watchdog_signal(signo, &err)
 * with signo a free real-time signal of its choice, 0 for no watchdog (the
 * count-hook fallback: coarser bounds, no last resort), or -1 for the
 * default choice. It fails (AW_ESTATE) once the choice is made, and
 * (AW_EINVAL) for a signal that is not real-time or already has a handler.
 * The environment variable AIWOLF_SANDBOX_NO_WATCHDOG=1 also turns it off.
 * aw_sandbox_watchdog_signal() makes the choice if it is not made yet and
 * returns the signal in use, or 0 when there is no watchdog.
 * A thread that runs sandboxes must not block the signal (one that blocks
 * it at its first call gets the fallback); other threads (a libuv thread
 * pool) may block it or not. A thread that exits leaves nothing behind; a
 * forked child gets its own watchdog at its first call. */
int aw_sandbox_set_watchdog_signal(int signo, aw_error *err);
int aw_sandbox_watchdog_signal(void);

/* Starts the watchdog now rather than at the process's first call: for a
 * process about to confine itself (an isolated child, runtime/isolate),
 * where no thread can be started afterwards. Chooses the signal (as
 * aw_sandbox_watchdog_signal) and the process's mode, starting the watchdog
 * thread unless AIWOLF_SANDBOX_WATCHDOG=timers asks for the per-thread
 * timers. Returns 1 when the watchdog thread runs (it then needs only
 * futex, clock_gettime, getpid and tgkill on this process), 0 when the
 * process uses the timers or has no watchdog. Calls made later, confined,
 * use the thread with no system call of their own. */
int aw_sandbox_watchdog_start(void);

/* The process's watchdog mode, for tests and diagnostics: "thread",
 * "timers", "none" (no signal: the count-hook fallback), or "undecided"
 * (before the first call or aw_sandbox_watchdog_start). */
const char *aw_sandbox_watchdog_mode(void);

/* Registers a C module the agent may `require` (for example the protocol
 * library's C core). Must be called before any agent code runs. */
int aw_sandbox_preload(aw_sandbox *sb, const char *name, lua_CFunction open, aw_error *err);

/* What the agent printed so far (bounded; older output is kept, newer output
 * past the cap is dropped and counted). Cleared by aw_sandbox_clear_output. */
const char *aw_sandbox_output(aw_sandbox *sb, size_t *len);
void aw_sandbox_clear_output(aw_sandbox *sb);

/* Pops the value on top of the sandbox's stack (for example what
 * aw_sandbox_load left there) and keeps it in the registry: host code inside
 * aw_sandbox_run gets it back with lua_rawgeti(L, LUA_REGISTRYINDEX, ref).
 * Returns the reference (> 0), or a negative value with *fault filled when
 * the agent's memory is exhausted (the value is popped either way).
 * aw_sandbox_unref releases it. */
int aw_sandbox_ref(aw_sandbox *sb, aw_fault *fault);
void aw_sandbox_unref(aw_sandbox *sb, int ref);
/* A reference kept for the next value (a renewal's: no protected call, no
 * allocation): aw_sandbox_blank_ref lets go of what ref (> 0, from
 * aw_sandbox_ref) holds, leaving false in its place; aw_sandbox_reref pops
 * the value on top of the stack into it. Neither can fail. */
void aw_sandbox_blank_ref(aw_sandbox *sb, int ref);
void aw_sandbox_reref(aw_sandbox *sb, int ref);

/* Work units the last call used (counted in both modes; see docs/sandbox.md). */
uint64_t aw_sandbox_work(const aw_sandbox *sb);

/* Bytes of output dropped (past output_bytes) since the last clear. */
size_t aw_sandbox_output_dropped(const aw_sandbox *sb);

/* Bytes currently allocated by the agent's state, and the most it ever held. */
size_t aw_sandbox_memory(const aw_sandbox *sb);
size_t aw_sandbox_memory_peak(const aw_sandbox *sb);
/* Bytes the agent's state allocated since the sandbox was made: every new
 * block and every growth of one, freed or not (for benchmarks). */
uint64_t aw_sandbox_allocated(const aw_sandbox *sb);

/* Helpers for the host code that runs inside aw_sandbox_run, to read an
 * agent's reply without running agent code: they use type checks and raw
 * access only (no tostring, __len, __index, __eq).
 *
 * aw_sandbox_check_string: the value at idx must be a Lua string (numbers are
 * not converted) of at most maxlen bytes with no control bytes (so one line).
 * On success *s (borrowed: valid while the value stays on the stack) and *len
 * are set and 0 is returned; otherwise a negative value is returned and, when
 * fault is non-NULL, fault->kind is AW_FAULT_REPLY and fault->msg says why.
 * s and len may be NULL.
 *
 * aw_sandbox_check_integer: the value at idx must be a number with an exact
 * integer value (3 or 3.0; not "3") in [lo, hi]; same conventions. */
int aw_sandbox_check_string(lua_State *L, int idx, size_t maxlen, const char **s, size_t *len, aw_fault *fault);
int aw_sandbox_check_integer(lua_State *L, int idx, lua_Integer lo, lua_Integer hi, lua_Integer *out,
                             aw_fault *fault);

/* Raises a Lua error from host code inside aw_sandbox_run that the run then
 * reports as AW_FAULT_REPLY (the agent answered, but not with a valid reply)
 * with this message. Does not return. */
int aw_sandbox_reply_error(lua_State *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
