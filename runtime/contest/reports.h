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
 * Uses results, rating_report, report_html. Ownership: the caller's. */
#ifndef AW_REPORTS_H
#define AW_REPORTS_H

#include <stdio.h>

#include "results.h"
#include "writers.h"

extern const aw_report_writer aw_contest_writers[];

/* Writes every row's file into dir (a write that fails is said on
 * standard error), and report.md to md_too as well when it is not NULL.
 * Returns 0, or -1 when a file could not be written. */
int aw_contest_write_reports(const char *dir, const aw_contest_stats *s, const aw_contest_info *ci, FILE *md_too);

#endif
