/* confine: the confinement of a child process that runs an agent — the
 * contest's prohibited items (files, network, processes) enforced by the
 * kernel. Uses util and Linux (prctl, setrlimit, Landlock, seccomp). See
 * docs/isolation.md. */
#ifndef AW_CONFINE_H
#define AW_CONFINE_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

/* What else the confined process needs (NULL: nothing). */
typedef struct aw_confine_opts {
    /* The Lua sandbox's watchdog thread already runs in this process
     * (aw_sandbox_watchdog_start): it needs only futex, the clocks, getpid
     * and tgkill on this process, which the filter allows anyway. Without
     * it the sandbox is told to use per-thread POSIX timers
     * (AIWOLF_SANDBOX_WATCHDOG=timers) and the filter allows timer_create,
     * timer_settime, timer_gettime and timer_delete; with it they fail
     * (EPERM). */
    bool watchdog_thread;
    /* aw_confine_fence ran first (it sets these): aw_confine does not fence
     * reads again, and fenced says whether Landlock fences them. */
    bool fence_done;
    bool fenced;
    size_t address_space; /* the process's size then (/proc, which Landlock may fence off) */
} aw_confine_opts;

/* The part of the confinement that must come before the process starts a
 * thread it keeps: no new privileges, and Landlock (when read_dir is given
 * and the kernel has it: files may be opened for reading beneath read_dir
 * only, nothing written, made or removed anywhere). Landlock binds the
 * calling thread and the threads it starts later, never those already
 * running; a seccomp filter can be put on every thread at once, Landlock
 * cannot. Records in *o what aw_confine needs to know. Returns 0, or a
 * negative value with err set. */
int aw_confine_fence(const char *read_dir, aw_confine_opts *o, aw_error *err);

/* Confines the calling process: closes every descriptor but 0-2 and
 * keep[0..nkeep-1] (at most 8), sets the resource limits, no new
 * privileges, Landlock (unless aw_confine_fence did: when read_dir is given
 * and the kernel has it, files may be opened for reading beneath read_dir
 * only) and the seccomp filter on every thread
 * (read only from keep[0] unless Landlock fences reads, write only to
 * keep[]). The address space may grow by memory_bytes (0: 64 MiB) plus
 * 256 MiB. Irreversible: for a forked child (and for tests, which fork
 * first). */
int aw_confine(const int *keep, int nkeep, const char *read_dir, size_t memory_bytes, const aw_confine_opts *o,
               aw_error *err);

/* Whether this kernel has Landlock (read_dir can be honoured). */
bool aw_confine_landlock(void);

/* Whether this is a sanitizer build. The filter is installed either way,
 * but under AddressSanitizer (which reserves terabytes of shadow memory)
 * there is no address-space limit, and a child keeps the host's stderr (and
 * may write to it) so that its reports are seen. */
bool aw_confine_sanitized(void);

#endif
