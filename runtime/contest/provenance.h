/* provenance: what an organiser needs to vouch for a contest's results —
 * the program that played it (its version), each entry's SHA-256, the
 * options, the master seed, when it ran and on how many cores — kept in
 * DIR/provenance.tsv and written into results.json, report.md and
 * report.html.
 *
 * DIR/provenance.tsv, tab-separated, rewritten whole at the end of every
 * session (a run of `aiwolf contest`: the first, and each one that continues
 * an interrupted contest):
 *   aiwolf-contest-provenance  1
 *   entry    SHA256  NAME                   one per entry, in contest.cfg order
 *   session  SHARD  START  END  VERSION  CORES  JOBS  GAMES  STATUS
 * START and END in UTC (2026-11-27T12:00:00Z); GAMES: played in that
 * session; STATUS: complete, interrupted or stopped. A session killed
 * outright (SIGKILL, a power loss) leaves no line.
 *
 * An entry's SHA-256 is what `sha256sum` says of a file entry; of a folder
 * entry, the SHA-256 of the `sha256sum` listing of its regular files by
 * their paths from the folder ("./main.lua"), in byte order of the paths:
 *   (cd ENTRY && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) | sha256sum
 * Uses core (sha256), results (the report's types).
 * Ownership: aw_provenance_free releases what _load and _add_session took. */
#ifndef AW_PROVENANCE_H
#define AW_PROVENANCE_H

#include <stdio.h>

#include "util.h"

typedef struct aw_contest_session {
    char shard[16];          /* "I/N" */
    char start[32], end[32]; /* UTC, ISO 8601 */
    char version[128];       /* the program that played (aiwolf --version) */
    int cores, jobs;         /* the host's cores online, the workers */
    long games;              /* played in this session */
    char status[16];         /* complete, interrupted, stopped */
} aw_contest_session;

typedef struct aw_provenance {
    int nentries;
    char (*sha256)[65];          /* [nentries]: hex, "" when not known */
    aw_contest_session *sessions; /* [nsessions], in the order they ran */
    int nsessions;
    /* The options (the report's own; borrowed). */
    const char *version;         /* the program writing the report */
    const char *preset;
    const char *const *sets;
    int nsets;
    long games_per_entry;
    int sets_per_count, set_games;
} aw_provenance;

/* p empty, for n entries. */
void aw_provenance_init(aw_provenance *p, int nentries);
void aw_provenance_free(aw_provenance *p);

/* Reads DIR/provenance.tsv into p (initialised for the contest's entries):
 * 0 (also when there is none: a contest from before it), a negative value with err when
 * it cannot be read or is not such a file. */
int aw_provenance_load(aw_provenance *p, const char *dir, aw_error *err);
/* Writes p into DIR/provenance.tsv (through a temporary file). names:
 * [nentries]. 0, or a negative value with err. */
int aw_provenance_save(const aw_provenance *p, const char *dir, const char *const *names, aw_error *err);
/* Appends a session (copied). */
void aw_provenance_add_session(aw_provenance *p, const aw_contest_session *s);

/* The SHA-256 of an entry (a file, or a folder: see above) into hex. 0, or
 * a negative value with err when a file cannot be read. */
int aw_entry_sha256(const char *path, char hex[65], aw_error *err);

/* Now, in UTC, as ISO 8601 (2026-11-27T12:00:00Z). */
void aw_utc_now(char out[32]);

/* The provenance as results.json's "provenance" member ("\"provenance\":
 * {...}", no comma) and as report.md's section. seed, format, players,
 * budget, memory and shard come from the report's contest info; names and
 * paths [nentries]. */
struct aw_contest_info;
void aw_provenance_json(const aw_provenance *p, const struct aw_contest_info *ci, aw_buf *b);
void aw_provenance_md(const aw_provenance *p, const struct aw_contest_info *ci, FILE *out);

#endif
