/* worker: the process that plays a contest's games. It is started by the
 * runner (a fresh program image: it never holds the master seed), starts a
 * confined child per entry and copy before it learns any game, then plays
 * the units it is sent on stdin, one line each, and answers each game with
 * its games.tsv line and each unit with a done line on stdout. Each game's
 * log (the official CSV, gzip-compressed: logs/N.log.gz) is written under the
 * contest's folder before its line is sent.
 *
 * The lines (text, one per line):
 *   runner → worker  U unit first players ngames entries seed:roles …
 *                    (entries: per seat, comma-separated; roles: one digit
 *                    per seat, aw_role)
 *   worker → runner  R <games.tsv line>      a game's result
 *                    D unit                  the unit is played
 *                    E message               the worker cannot go on
 *                    W message               a warning for the organiser
 * Uses game, log (gzlog), luahost (the Lua seat), isolate (child seats),
 * results, agent (the limits value and the seats). */
#ifndef AW_WORKER_H
#define AW_WORKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "agent.h"

typedef struct aw_worker_opts {
    const char *dir;               /* the contest's folder (logs go to dir/logs) */
    int nentries;
    const char *const *entries;    /* [nentries]: each entry's main .lua file */
    const char *const *read_dirs;  /* [nentries]: the folder each entry may read */
    const char *const *names;      /* [nentries]: for the fault notes */
    int copies;                    /* children per entry (the most seats an entry holds in one game) */
    aw_limits limits;              /* each agent's budget, memory and work (agentlimits.h); every
                                      agent is isolated, reading its entry's read_dirs[e], whatever
                                      limits.isolate and limits.read_dir say */
    bool keep_instance;            /* regulation: one instance per unit */
    const char *preset;            /* the settings preset, with sets[0..nsets) applied */
    const char *const *sets;
    int nsets;
} aw_worker_opts;

/* Runs the worker until in ends; returns the process exit status. */
int aw_contest_worker(const aw_worker_opts *o, FILE *in, FILE *out);

#endif
