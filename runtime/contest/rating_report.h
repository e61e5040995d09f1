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
 * of entries (when at most AW_RATING_MATRIX_MAX entries are rated). The
 * fit the report shows leaves out the entries that are not ranked. */
#ifndef AW_RATING_REPORT_H
#define AW_RATING_REPORT_H

#include <stdio.h>

#include "rating.h"
#include "results.h"

#define AW_RATING_MATRIX_MAX 100 /* results.json; report.md shows at most 20 */

/* Fits the rating the report shows on the games so far (d); false when
 * there is nothing to rate (aw_rating_free(r) either way). Entries the fault policy p keeps out of the ranking are
 * not rated either (they stay in the games as players: the model still
 * explains their teams' results). */
bool aw_rating_fit_report(const aw_rating_data *d, const aw_contest_stats *s, const aw_fault_policy *p, aw_rating *r);

void aw_rating_write_md(const aw_rating *r, const aw_contest_info *ci, FILE *out);
/* The header's extra columns (each starting with a comma), and entry i's. */
void aw_rating_write_csv_header(FILE *out);
void aw_rating_write_csv_row(const aw_rating *r, int i, FILE *out);
/* Appends ",\n  \"rating\": {...}" (nothing without a rating). */
void aw_rating_write_json(const aw_rating *r, const aw_contest_info *ci, aw_buf *b);

#endif
