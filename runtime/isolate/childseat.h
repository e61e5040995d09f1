/* childseat: a seat whose agent runs in a child process, for contests and
 * `play --isolate`. The child is forked before the engine deals the roles
 * (so its copy of the host's memory holds no secret of that game): at the
 * start of every game, or with opts.persistent once for many games. It
 * closes every descriptor but its pipes, confines itself (resource
 * limits, no new privileges, a hand-written seccomp-BPF allow-list) and only
 * then starts the agent. From there host and child exchange compact binary
 * frames over two pipes, one each way (childframe.h; a pipe's round trip
 * costs less than half a Unix socket's): one ask per request (the agent's
 * view, only what changed since the last one), one answer per request in
 * one write (the inner seat's fault, the text or the target), so the agent
 * sees exactly what it would see in process. Notifications (INITIALIZE,
 * DAILY_INITIALIZE, DAILY_FINISH) are taken at once (request returns 0)
 * and their frames go with the seat's next request in one write; the
 * child answers them all in one write, and their outcomes (a fault, the
 * CPU time) reach the driver through the seat's late op (seat.h). A
 * socket, only when opts.output is set, carries what the agent prints.
 *
 * The host times every request and gives the child three times the budget
 * of CPU time (30x, at least 3 s, of wall-clock time); on a
 * time-out, a broken or unexpected byte stream, or the child's death it kills
 * the child (SIGKILL), reaps it, reports the fault (AW_FAULT_TIMEOUT /
 * AW_FAULT_REPLY / AW_FAULT_LOST), and the agent is out for the rest of that
 * game: every later request gets the rules' substitute at once. The next
 * game forks a fresh child. A crash of Lua (or of anything in the child)
 * takes down only that agent.
 *
 * Uses childframe, confine, seat, view, settings, util and Linux (fork,
 * pipe2, socketpair, poll). See docs/isolation.md.
 *
 * Ownership: aw_childseat_new takes ownership of the inner seat that `make`
 * returns and returns a seat owned by the caller (seat->ops->free), which
 * kills and reaps any child still running. opts->output is borrowed and
 * must outlive the seat. */
#ifndef AW_CHILDSEAT_H
#define AW_CHILDSEAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "agentlimits.h"
#include "seat.h"

/* Creates the inner seat (e.g. aw_luaseat_new), in the host, before any
 * child exists. Whatever it prints during requests must go to `output`
 * (NULL when the caller wants no output); in the child that stream is
 * connected to the host. The inner seat's begin and request must do no file
 * or network I/O: in the child they run under the filter. */
typedef aw_seat *(*aw_childseat_make)(void *ud, FILE *output, aw_error *err);

typedef struct aw_childseat_opts {
    /* The agent's limits (agentlimits.h), of which the child seat acts on
     * budget_ms (the inner seat's budget per call; the child gets twice
     * this per request; 0: the game's time limit, 1000 ms for NAME),
     * memory_bytes (the agent's memory cap, 0: 64 MiB; the child's address
     * space may grow by this plus 256 MiB) and read_dir (a folder the agent
     * may read files beneath, its modules, enforced with Landlock; NULL, or
     * a kernel without Landlock: no file can be opened; copied). The inner
     * seat has its own copy for the rest (work_budget). */
    aw_limits limits;
    FILE *output;           /* where the host copies what the agent prints, or NULL */
    /* How the child attaches parsed forms to talks (the game's talk hooks,
     * as in aw_game_opts, or for a Lua seat those of
     * aw_luaseat_talks_deferred, which parses when the agent reads); none:
     * talks carry none. */
    aw_talk_hooks talk;
    /* Runs in the child before it confines itself, for what must start
     * while threads still can: aw_luaseat_child_prepare for Lua seats (the
     * sandbox's watchdog thread, so that confined calls need no system call
     * of their own). Returns 1 when it started the Lua sandbox's watchdog
     * thread (confine.h's aw_confine_opts.watchdog_thread), 0 otherwise.
     * NULL: nothing (a Lua seat then falls back to per-thread timers). */
    int (*child_prepare)(void);
    /* Tests only. Runs in the child, confined, before each request (with
     * the ask's sequence number) reaches the inner seat; it may write raw
     * bytes or frames (childframe.h) to fd, the answer pipe, itself and
     * return 1 to skip the inner seat (the child then writes no answer of
     * its own). */
    int (*child_hook)(void *ud, int request, unsigned seq, int fd);
    void *hook_ud;
    /* Keep the child across games (contests): begin forks only when no
     * child runs (the first game, or after the child was lost), and each
     * game's INITIALIZE starts a fresh agent instance inside it, as an
     * official client does on one connection. The agent's name is asked
     * once per child. */
    bool persistent;
    /* With persistent: one agent instance for every game the child plays
     * (the regulation's sets), started at its first INITIALIZE;
     * aw_childseat_ready(fresh) starts the next one. */
    bool keep_instance;
    /* Send each notification on its own and wait for its answer, as
     * before notifications went with the next request (for comparisons:
     * tests and bench/isolate_bench). */
    bool wait_notifications;
} aw_childseat_opts;

aw_seat *aw_childseat_new(aw_childseat_make make, void *make_ud, const aw_childseat_opts *opts, aw_error *err);

/* Makes sure a child runs (forking one and asking its name when none does,
 * or always when fresh is set), so that drivers can start children between
 * games, before they learn the next game's seed. Returns 0, or -1 with *f
 * filled when the agent could not start (the next begin tries again). */
int aw_childseat_ready(aw_seat *s, bool fresh, aw_seat_fault *f);

/* The running child's process id, or 0 (for tests and diagnostics). */
pid_t aw_childseat_pid(const aw_seat *s);

/* The CPU time the agent spent on the seat's last request: as the child
 * reported it in its answer frame (its agent thread's CPU clock around the
 * call), or, when the host killed the child over time, the child's CPU time
 * since the request as the host read it before the kill. Returns false
 * when the last request did not run the agent (the agent was out of the
 * game, the request could not be sent, the child died). Valid until the
 * next request. */
bool aw_childseat_call_cpu(const aw_seat *s, uint64_t *ns);

#endif
