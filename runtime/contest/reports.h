/* reports: a contest's report files as a table of writers (writers.h):
 *   md    report.md     the ranking, the entries not ranked and why, win
 *                       rates by role, seating, the rating, the provenance
 *   csv   results.csv   a row per entry
 *   json  results.json  everything, for tools and the page
 *   html  report.html   the page, with results.json inside
 * Each row is given an aw_report on the contest's statistics (results.h)
 * with the contest's aw_contest_info as its ctx. A new file is one function
 * and one row here.
 *
 * Uses results, rating_report, provenance, report_html, jsonw. Ownership: the caller's. */
#ifndef AW_REPORTS_H
#define AW_REPORTS_H

#include <stdbool.h>
#include <stdio.h>

#include "results.h"
#include "writers.h"

extern const aw_report_writer aw_contest_writers[];

/* results.json into out (what the "json" and "html" rows write). */
void aw_contest_write_json(const aw_contest_stats *s, const aw_contest_info *ci, aw_buf *out);
/* Text in a Markdown table cell of a report that also goes to terminals:
 * control bytes and the like escaped (aw_buf_add_term), | as \|. */
void aw_contest_md_text(FILE *out, const char *s);
/* A Markdown table's role columns, the roles marked in used[] (after its
 * first column's header), and its separator line. */
void aw_contest_md_role_columns(FILE *out, const bool used[AW_NROLES]);

/* Writes every row's file into dir (a write that fails is said on
 * standard error), and report.md to md_too as well when it is not NULL.
 * Returns 0, or -1 when a file could not be written. */
int aw_contest_write_reports(const char *dir, const aw_contest_stats *s, const aw_contest_info *ci, FILE *md_too);

#endif
