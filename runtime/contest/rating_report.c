/* rating_report: the rating in report.md, results.csv and results.json
 * (see rating_report.h). */
#include "rating_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jsonw.h"
#include "reports.h"

#define MD_MATRIX_MAX 20
#define Z95 1.959963984540054

static const char *const model_text =
    "logistic team model (Bradley-Terry): the village team wins with probability "
    "sigmoid(baseline[players] + sum of its seats' skills - sum of the werewolf team's); "
    "skills in log-odds per seat, centred on the rated entries' mean; 95 % intervals "
    "clustered by deal (or regulation set); per-role skill shrunk to the entry's skill";

/* The rated entries by skill and each one's place in it (-1: not rated). */
static int rated_order(const aw_rating *r, int **order, int **place)
{
    *order = aw_xcalloc((size_t)r->n + 1, sizeof **order);
    *place = aw_xcalloc((size_t)r->n + 1, sizeof **place);
    int k = aw_rating_order(r, *order);
    for (int i = 0; i < r->n; i++)
        (*place)[i] = -1;
    for (int j = 0; j < k; j++)
        (*place)[(*order)[j]] = j;
    return k;
}

bool aw_rating_fit_report(const aw_rating_data *d, const aw_contest_stats *s, const aw_fault_policy *p, aw_rating *r)
{
    aw_error err;
    bool *include = aw_xcalloc((size_t)s->n, sizeof *include);
    char why[200];
    for (int i = 0; i < s->n; i++)
        include[i] = aw_contest_eligible(s, i, p, why, sizeof why);
    aw_rating_opts o = {.include = include};
    bool ok = aw_rating_fit(d, &o, r, &err) == 0;
    free(include);
    return ok;
}

void aw_rating_write_md(const aw_rating *r, const aw_contest_info *ci, FILE *out)
{
    if (!r || !r->rated)
        return;
    int *order, *place;
    int k = rated_order(r, &order, &place);
    fprintf(out,
            "\n## Skill, apart from the luck of the deal\n\nA logistic team model fitted on %ld games won by the village "
            "or the werewolves (%ld others left out): each entry's skill in log-odds per seat, centred on the average "
            "entry, with its 95 %% interval (clustered by deal); P(outranks next) is the probability that the entry "
            "really is better than the next one down. The ranking above stays the win rate.\n\n",
            r->games_fitted, r->games_skipped);
    fprintf(out, "| # | entry | skill | 95 %% interval | P(outranks next) | games |\n|---:|---|---:|---|---:|---:|\n");
    for (int j = 0; j < k; j++) {
        int i = order[j];
        fprintf(out, "| %d | ", j + 1);
        aw_contest_md_text(out, ci->names[i]);
        fprintf(out, " | %+.3f | %+.3f – %+.3f | ", r->skill[i], r->skill[i] - Z95 * r->se[i],
                r->skill[i] + Z95 * r->se[i]);
        if (j + 1 < k)
            fprintf(out, "%.3f", aw_rating_outranks(r, i, order[j + 1]));
        else
            fprintf(out, "–");
        fprintf(out, " | %ld |\n", r->games[i]);
    }
    fprintf(out,
            "\nThe ranking's standard error (root mean square of the pairs' skill differences): %.4f; %.4f if the "
            "games were independent deals (%d of %d adjacent pairs not separated at 95 %%).\n",
            r->se_diff, r->se_diff_indep, aw_rating_unresolved(r, 0.95, NULL), k > 0 ? k - 1 : 0);
    if (k > 1 && k <= MD_MATRIX_MAX) {
        fprintf(out, "\nP(row outranks column):\n\n| |");
        for (int j = 0; j < k; j++)
            fprintf(out, " %d |", j + 1);
        fprintf(out, "\n|---|");
        for (int j = 0; j < k; j++)
            fprintf(out, "---:|");
        fprintf(out, "\n");
        for (int a = 0; a < k; a++) {
            fprintf(out, "| %d ", a + 1);
            aw_contest_md_text(out, ci->names[order[a]]);
            fprintf(out, " |");
            for (int b = 0; b < k; b++)
                if (a == b)
                    fprintf(out, " |");
                else
                    fprintf(out, " %.2f |", aw_rating_outranks(r, order[a], order[b]));
            fprintf(out, "\n");
        }
    }
    bool used[AW_NROLES] = {0};
    for (int i = 0; i < r->n; i++)
        for (int q = 0; q < AW_NROLES; q++)
            used[q] |= r->rated[i] && r->role_games[i * AW_NROLES + q] > 0;
    fprintf(out, "\nSkill by role (± its standard error; games):\n\n| entry |");
    aw_contest_md_role_columns(out, used);
    for (int j = 0; j < k; j++) {
        int i = order[j];
        fprintf(out, "| ");
        aw_contest_md_text(out, ci->names[i]);
        fprintf(out, " |");
        for (int q = 0; q < AW_NROLES; q++) {
            if (!used[q])
                continue;
            long g = r->role_games[i * AW_NROLES + q];
            if (g)
                fprintf(out, " %+.2f ± %.2f (%ld) |", r->role_skill[i * AW_NROLES + q], r->role_se[i * AW_NROLES + q],
                        g);
            else
                fprintf(out, " – |");
        }
        fprintf(out, "\n");
    }
    free(order);
    free(place);
}

void aw_rating_write_csv_header(FILE *out)
{
    fprintf(out, ",skill_rank,skill,skill_se,skill_low,skill_high,p_outranks_next");
    for (int q = 0; q < AW_NROLES; q++)
        fprintf(out, ",%s_skill,%s_skill_se", aw_role_name((aw_role)q), aw_role_name((aw_role)q));
}

void aw_rating_write_csv_row(const aw_rating *r, int i, FILE *out)
{
    if (!r || !r->rated || !r->rated[i]) {
        fprintf(out, ",,,,,,");
        for (int q = 0; q < AW_NROLES; q++)
            fprintf(out, ",,");
        return;
    }
    int *order, *place;
    int k = rated_order(r, &order, &place);
    int j = place[i];
    fprintf(out, ",%d,%.6f,%.6f,%.6f,%.6f,", j + 1, r->skill[i], r->se[i], r->skill[i] - Z95 * r->se[i],
            r->skill[i] + Z95 * r->se[i]);
    if (j + 1 < k)
        fprintf(out, "%.6f", aw_rating_outranks(r, i, order[j + 1]));
    for (int q = 0; q < AW_NROLES; q++)
        if (r->role_games[i * AW_NROLES + q])
            fprintf(out, ",%.6f,%.6f", r->role_skill[i * AW_NROLES + q], r->role_se[i * AW_NROLES + q]);
        else
            fprintf(out, ",,");
    free(order);
    free(place);
}

void aw_rating_write_json(const aw_rating *r, const aw_contest_info *ci, aw_buf *b)
{
    if (!r || !r->rated)
        return;
    int *order, *place;
    int k = rated_order(r, &order, &place);
    aw_json_kstr(b, ",\n  \"rating\": {", "model", model_text);
    aw_json_kint(b, ", ", "games_fitted", r->games_fitted);
    aw_json_kint(b, ", ", "games_skipped", r->games_skipped);
    aw_json_kint(b, ", ", "clusters", r->clusters);
    aw_json_key(b, ", ", "converged");
    aw_buf_adds(b, r->converged ? "true" : "false");
    aw_json_knum(b, ", ", "ranking_se", r->se_diff, 6);
    aw_json_knum(b, ", ", "ranking_se_independent", r->se_diff_indep, 6);
    aw_json_kint(b, ", ", "unresolved_adjacent", aw_rating_unresolved(r, 0.95, NULL));
    aw_buf_adds(b, ", \"village_win\": {");
    bool comma = false;
    for (int p = 0; p <= AW_MAX_PLAYERS; p++)
        if (r->village_p[p] >= 0) {
            char key[8];
            snprintf(key, sizeof key, "%d", p);
            aw_json_knum(b, comma ? ", " : NULL, key, r->village_p[p], 6);
            comma = true;
        }
    aw_buf_adds(b, "},\n    \"entries\": [");
    for (int j = 0; j < k; j++) {
        int i = order[j];
        aw_json_kstr(b, j ? ",\n      {" : "\n      {", "name", ci->names[i]);
        aw_json_kint(b, ", ", "skill_rank", j + 1);
        aw_json_knum(b, ", ", "skill", r->skill[i], 6);
        aw_json_knum(b, ", ", "se", r->se[i], 6);
        aw_json_knum(b, ", ", "ci_low", r->skill[i] - Z95 * r->se[i], 6);
        aw_json_knum(b, ", ", "ci_high", r->skill[i] + Z95 * r->se[i], 6);
        aw_json_kint(b, ", ", "games", r->games[i]);
        aw_json_key(b, ", ", "p_outranks_next");
        if (j + 1 < k)
            aw_json_num(b, aw_rating_outranks(r, i, order[j + 1]), 6);
        else
            aw_buf_adds(b, "null");
        aw_buf_adds(b, ", \"by_role\": {");
        comma = false;
        for (int q = 0; q < AW_NROLES; q++)
            if (r->role_games[i * AW_NROLES + q]) {
                aw_json_key(b, comma ? ", " : NULL, aw_role_name((aw_role)q));
                aw_json_knum(b, "{", "skill", r->role_skill[i * AW_NROLES + q], 6);
                aw_json_knum(b, ", ", "se", r->role_se[i * AW_NROLES + q], 6);
                aw_json_kint(b, ", ", "games", r->role_games[i * AW_NROLES + q]);
                aw_buf_addc(b, '}');
                comma = true;
            }
        aw_buf_adds(b, "}}");
    }
    aw_buf_adds(b, "\n    ]");
    if (k <= AW_RATING_MATRIX_MAX) {
        aw_buf_adds(b, ",\n    \"outranks\": [");
        for (int a = 0; a < k; a++) {
            aw_buf_adds(b, a ? ",\n      [" : "\n      [");
            for (int c = 0; c < k; c++) {
                if (c)
                    aw_buf_adds(b, ", ");
                aw_json_num(b, aw_rating_outranks(r, order[a], order[c]), 4);
            }
            aw_buf_adds(b, "]");
        }
        aw_buf_adds(b, "\n    ]");
    }
    aw_buf_adds(b, "}");
    free(order);
    free(place);
}
