/* writers: a report's output formats as a table, as Lua's luaL_Reg names
 * its functions: each row is a format's name, the file it goes to and one
 * function that writes it. `play`'s summary (match.h: aw_tally_writers:
 * text, json, csv) and the contest's report files (contest/report.h:
 * aw_contest_writers: report.md, results.csv, results.json, report.html) are
 * such tables; a new format is one function and one row, and the command
 * finds it by name (--summary NAME:FILE or FILE.EXT for play; every row,
 * for a contest's folder).
 *
 * Every writer gets the same report: the statistics model (stats.h), the
 * entries' names and what its own stack adds (ctx: play's aw_tally_report,
 * the contest's aw_contest_info).
 *
 * Uses core only. Ownership: tables are static; the report's pointers are
 * the caller's. */
#ifndef AW_WRITERS_H
#define AW_WRITERS_H

#include <stdio.h>

#include "stats.h"

typedef struct aw_report {
    const aw_stats *stats;
    const char *const *names; /* [stats->n] */
    const void *ctx;          /* the stack's own (see above) */
} aw_report;

typedef struct aw_report_writer {
    const char *name; /* "text", "json", "csv", "md", "html" */
    /* Where it goes: a file name in the contest's folder ("report.md") or
     * the extension of play's --summary FILE (".json"); NULL: standard
     * output only. */
    const char *file;
    /* Writes the report; 0, or -1 when a write failed. */
    int (*write)(const aw_report *r, FILE *out);
} aw_report_writer;

/* The row called name in a table ended by a row with a NULL name; NULL
 * when there is none. */
const aw_report_writer *aw_report_writer_find(const aw_report_writer *table, const char *name);
/* The row a file spec names: "NAME:PATH" for a row with a file extension,
 * or "PATH.EXT" for the row with that extension; *path: PATH. NULL when
 * none does or PATH is empty. */
const aw_report_writer *aw_report_writer_spec(const aw_report_writer *table, const char *spec, const char **path);

#endif
