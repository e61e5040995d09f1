/* pool: a fixed number of forked worker processes, each sending records of
 * one fixed size back over its own pipe, read here as they come. `play
 * --games --jobs` plays its games on it (match.c).
 *
 * A worker is forked with the caller's memory as it is (the seats, the
 * options), runs `work` and exits; it dies with the parent (a second
 * Ctrl-C ends it at once). Here, `take` gets every whole record in the
 * order that worker sent it (records of different workers interleave) and
 * says which one is the worker's last; `tick` runs after every wait (at
 * least twice a second). When *stop is set, every worker gets one SIGINT:
 * what it does then is `work`'s business.
 *
 * Uses core (util: errors, allocation) and POSIX (fork, pipe, poll,
 * waitpid). No other thread may fork while it runs. Ownership: nothing
 * stays allocated after aw_pool_run returns. */
#ifndef AW_POOL_H
#define AW_POOL_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

#define AW_POOL_MAX_JOBS 64 /* workers read at once (the first open ones; the others wait their turn) */

typedef struct aw_pool_opts {
    int jobs;        /* 1 or more */
    size_t rec_size; /* every record's size in bytes */
    /* In the child of worker `id` (0..jobs-1): its whole life, sending
     * records with aw_write_all(fd, rec, rec_size) (util.h), its last one
     * an end record. The child exits when it returns. */
    void (*work)(void *ud, int id, int fd);
    /* Here: one whole record of worker `id`. Returns true when it is that
     * worker's end record (nothing more is read from it). */
    bool (*take)(void *ud, int id, const void *rec);
    /* Here, after every wait. May be NULL. */
    void (*tick)(void *ud);
    volatile int *stop; /* may be NULL */
    void *ud;
} aw_pool_opts;

enum {
    AW_POOL_DONE = 0,      /* every worker sent its end record */
    AW_POOL_DIED = 1,      /* one or more ended without it (their records so far were taken) */
    AW_POOL_NO_START = -1, /* not every worker could be started: none ran (err says why) */
};

/* Runs the workers until each has sent its end record or ended, then
 * waits for them all. Returns AW_POOL_DONE, AW_POOL_DIED or
 * AW_POOL_NO_START. */
int aw_pool_run(const aw_pool_opts *o, aw_error *err);

#endif
