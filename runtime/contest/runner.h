/* runner: drives a contest's workers on a libuv loop. Each worker is a
 * separate program image (worker.h) fed one unit at a time; the runner
 * collects each unit's game lines and hands them over whole, once the unit
 * is played, so that a unit is either in the results or not at all. A
 * worker that dies is replaced and its unit played again from its seeds
 * (three tries); Ctrl-C (SIGINT/SIGTERM) stops the workers and returns, the
 * units under way being left for the next run. Uses schedule, libuv.
 *
 * Ownership: everything in aw_runner is borrowed. */
#ifndef AW_RUNNER_H
#define AW_RUNNER_H

#include <stdbool.h>
#include <stddef.h>

#include "schedule.h"

typedef struct aw_runner {
    const aw_schedule *sched;
    const bool *todo;               /* [sched->nunits]: the units to play */
    char *const *worker_argv;       /* the worker's program and arguments, NULL-terminated */
    int jobs;                       /* workers */
    /* A unit was played: lines are its games.tsv lines, in game order.
     * Returns 0, or a negative value to stop the contest (having said why
     * in error). */
    int (*on_unit)(void *ud, int unit, const char *lines, size_t len);
    /* About every second while games run. May be NULL. */
    void (*on_tick)(void *ud);
    void *ud;
    bool warned;                    /* the workers' warnings were printed by an earlier run */
    char error[512];                /* why the contest stopped, when it failed */
} aw_runner;

enum { AW_RUNNER_DONE = 0, AW_RUNNER_INTERRUPTED = 1, AW_RUNNER_FAILED = 2 };

int aw_runner_run(aw_runner *r);

#endif
