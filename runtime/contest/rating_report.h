/* rating_report: the rating (rating.h) in the contest's report files —
 * a section of report.md, columns of results.csv, a "rating" object in
 * results.json (which report.html draws). results.c calls these from its
 * writers when aw_contest_info.rating is set. Uses results, rating.
 *
 * results.json "rating": model, games_fitted, games_skipped, clusters,
 * converged, ranking_se, ranking_se_independent, village_win {players:
 * probability}, entries (the rated entries by skill: name, skill_rank,
 * skill, se, ci_low, ci_high, games, p_outranks_next, by_role {ROLE:
 * {skill, se, games}}), and outranks: P(row outranks column) in the order
 * of entries (when at most AW_RATING_MATRIX_MAX entries are rated). */
#ifndef AW_RATING_REPORT_H
#define AW_RATING_REPORT_H

#include <stdio.h>

#include "rating.h"
#include "results.h"

#define AW_RATING_MATRIX_MAX 100 /* results.json; report.md shows at most 20 */

void aw_rating_write_md(const aw_rating *r, const aw_contest_info *ci, FILE *out);
/* The header's extra columns (each starting with a comma), and entry i's. */
void aw_rating_write_csv_header(FILE *out);
void aw_rating_write_csv_row(const aw_rating *r, int i, FILE *out);
/* Appends ",\n  \"rating\": {...}" (nothing without a rating). */
void aw_rating_write_json(const aw_rating *r, const aw_contest_info *ci, aw_buf *b);

#endif
