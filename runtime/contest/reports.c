/* reports: the contest's report files (see reports.h). */
#include "reports.h"

#include <limits.h>
#include <stdlib.h>

#include <math.h>
#include <string.h>

#include "jsonw.h"
#include "provenance.h"
#include "rating_report.h"
#include "report_html.h"

static const char *const fault_names[AW_NFAULTS] = {"none", "error", "timeout", "memory", "reply", "lost"};

static double rate(long w, long n)
{
    return n ? (double)w / (double)n : 0;
}

/* The rank order every writer shows (aw_contest_rank) and the policy. */
typedef struct ranking {
    int *order, *rank;
    int nok;
    const aw_fault_policy *pol;
} ranking;

static void ranking_of(const aw_contest_stats *s, const aw_contest_info *ci, ranking *k)
{
    k->order = aw_xcalloc((size_t)s->n, sizeof *k->order);
    k->rank = aw_xcalloc((size_t)s->n, sizeof *k->rank);
    k->nok = aw_contest_rank(s, ci, k->order, k->rank);
    k->pol = aw_contest_policy(ci);
}

static void ranking_free(ranking *k)
{
    free(k->order);
    free(k->rank);
}

/* "4" or "4=" (a rank shared with another entry). */
static void rank_label(const int *rank, int k, int nok, char *buf, size_t n)
{
    bool tied = (k > 0 && rank[k - 1] == rank[k]) || (k + 1 < nok && rank[k + 1] == rank[k]);
    snprintf(buf, n, "%d%s", rank[k], tied ? "=" : "");
}

/* The entry's figures the writers share. */
typedef struct figures {
    double rate, lo, hi;
    double cpu_med, cpu_p99, wall_med, wall_p99;
} figures;

static void figures_of(const aw_entry_stats *e, figures *f)
{
    f->rate = rate(e->wins, e->seats);
    aw_winrate_interval(&e->wr, &f->lo, &f->hi);
    f->cpu_med = aw_time_quantile(e->cpu, 0.5);
    f->cpu_p99 = aw_time_quantile(e->cpu, 0.99);
    f->wall_med = aw_time_quantile(e->times, 0.5);
    f->wall_p99 = aw_time_quantile(e->times, 0.99);
}

#define RANKING_RULE                                                                                               \
    "ranked by win rate (points / seats); equal win rates share a rank (marked =) and are listed by name, with no " \
    "further tie-break"
#define INTERVAL_RULE                                                                                              \
    "95 % interval per game (an entry's seats in one game are one result: Wilson's interval at the effective "     \
    "number of seats of the cluster-robust ratio estimator, with Student's t)"

/* Seating fairness as measured: seats per entry, the largest gap between an
 * entry's share of a role and the share its seats lead one to expect, and
 * how often pairs of entries met. */
typedef struct fairness {
    long seats_min, seats_max;
    double role_dev;
    long meet_min, meet_max;
} fairness;

static void measure(const aw_contest_stats *s, fairness *f)
{
    memset(f, 0, sizeof *f);
    for (int i = 0; i < s->n; i++) {
        const aw_entry_stats *e = &s->e[i];
        if (i == 0 || e->seats < f->seats_min)
            f->seats_min = e->seats;
        if (e->seats > f->seats_max)
            f->seats_max = e->seats;
        for (int r = 0; r < AW_NROLES && e->seats; r++) {
            double d = fabs((double)e->role_games[r] - s->role_expect[i * AW_NROLES + r]) / (double)e->seats;
            if (d > f->role_dev)
                f->role_dev = d;
        }
        for (int j = 0; j < s->n; j++) {
            if (j == i)
                continue;
            long m = s->meet[i * s->n + j];
            if ((i == 0 && j == 1) || m < f->meet_min)
                f->meet_min = m;
            if (m > f->meet_max)
                f->meet_max = m;
        }
    }
}

static void fmt_players(const aw_contest_info *ci, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = 0;
    for (int i = 0; i < ci->nplayers && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%d", i ? "," : "", ci->players[i]);
}

/* Markdown table cells must not hold | or line breaks, nor HTML a viewer
 * would render ("<!--" hid the rest of the report, "&#x202e;" turned it
 * right to left): |, < and & come backslash-escaped. The report goes to
 * terminals too: control bytes and the like come escaped (util.h). */
void aw_contest_md_text(FILE *out, const char *s)
{
    aw_buf b;
    aw_buf_init(&b);
    aw_buf_add_term(&b, s, strlen(s));
    for (size_t i = 0; i < b.len; i++) {
        if (b.data[i] == '|' || b.data[i] == '<' || b.data[i] == '&')
            fputc('\\', out);
        fputc(b.data[i], out);
    }
    aw_buf_free(&b);
}

void aw_contest_md_role_columns(FILE *out, const bool used[AW_NROLES])
{
    for (int r = 0; r < AW_NROLES; r++)
        if (used[r])
            fprintf(out, " %s |", aw_role_name((aw_role)r));
    fprintf(out, "\n|---|");
    for (int r = 0; r < AW_NROLES; r++)
        if (used[r])
            fprintf(out, "---:|");
    fprintf(out, "\n");
}

/* report.md (the "md" row). */
static int contest_md(const aw_report *rep, FILE *out)
{
    const aw_contest_stats *s = rep->stats;
    const aw_contest_info *ci = rep->ctx;
    ranking rk;
    ranking_of(s, ci, &rk);
    int *order = rk.order, *rank = rk.rank, nok = rk.nok;
    const aw_fault_policy *pol = rk.pol;
    char pl[64], pol_text[64];
    fmt_players(ci, pl, sizeof pl);
    aw_fault_policy_format(pol, pol_text, sizeof pol_text);
    fairness f;
    measure(s, &f);
    fprintf(out, "# Contest results\n\n");
    fprintf(out, "Format %s, %s players, seed %llu, %ld of %ld games", ci->format, pl, (unsigned long long)ci->seed,
            s->games, ci->games_total);
    if (ci->nshards > 1)
        fprintf(out, " (shard %d/%d)", ci->shard, ci->nshards);
    fprintf(out, ", %d ms and %d MiB per call", ci->limits.budget_ms, aw_limits_memory_mib(&ci->limits));
    if (ci->limits.work_budget)
        fprintf(out, ", %llu work units per call", (unsigned long long)ci->limits.work_budget);
    fprintf(out, ".\n\n");
    fprintf(out, "| # | entry | games | seats | points | win rate | 95 %% interval | villager team | werewolf team |");
    for (int i = 0; i < ci->nplayers; i++)
        fprintf(out, " %dp |", ci->players[i]);
    fprintf(out, " faults (error/timeout/memory/reply/lost) | games with faults | CPU µs per call (median / p99 / "
                 "max) | wall µs per call (median / p99) |\n");
    fprintf(out, "|---:|---|---:|---:|---:|---:|---|---:|---:|");
    for (int i = 0; i < ci->nplayers; i++)
        fprintf(out, "---:|");
    fprintf(out, "---|---:|---:|---:|\n");
    for (int k = 0; k < nok; k++) {
        int i = order[k];
        const aw_entry_stats *e = &s->e[i];
        figures g;
        figures_of(e, &g);
        char rl[16];
        rank_label(rank, k, nok, rl, sizeof rl);
        fprintf(out, "| %s | ", rl);
        aw_contest_md_text(out, ci->names[i]);
        fprintf(out, " | %ld | %ld | %ld | %.3f | %.3f–%.3f | %.3f | %.3f |", e->games, e->seats, e->wins, g.rate, g.lo,
                g.hi, rate(e->team_wins[0], e->team_games[0]), rate(e->team_wins[1], e->team_games[1]));
        for (int p = 0; p < ci->nplayers; p++)
            fprintf(out, " %.3f |", rate(e->pl_wins[ci->players[p]], e->pl_games[ci->players[p]]));
        fprintf(out, " %ld/%ld/%ld/%ld/%ld | %ld | %.0f / %.0f / %u | %.0f / %.0f |\n", e->faults[1], e->faults[2],
                e->faults[3], e->faults[4], e->faults[5], e->faulty_games, g.cpu_med, g.cpu_p99, e->cpu_max_us,
                g.wall_med, g.wall_p99);
    }
    fprintf(out, "\nRanking: %s. Points are seats on the winning team; games are the games an entry played in, "
                 "seats the seats it held. The %s. CPU time is the entry's own (what the budget counts); wall time "
                 "runs from request to answer and grows with the machine's load. Fault policy: %s",
            RANKING_RULE, INTERVAL_RULE, pol_text);
    if (pol->thresholds)
        fprintf(out, " (an entry is not ranked when more than %g %% of its calls or more than %g %% of its games "
                     "had faults, or when it answered no call)",
                pol->max_calls * 100, pol->max_games * 100);
    else
        fprintf(out, " (only an entry that answered no call is not ranked)");
    fprintf(out, ".\n");
    if (nok < s->n) {
        fprintf(out, "\nNot ranked:\n\n| entry | why | games | seats | points | calls | faults "
                     "(error/timeout/memory/reply/lost) | games with faults | CPU µs per call (median / p99 / max) |\n"
                     "|---|---|---:|---:|---:|---:|---|---:|---:|\n");
        for (int k = nok; k < s->n; k++) {
            int i = order[k];
            const aw_entry_stats *e = &s->e[i];
            figures g;
            figures_of(e, &g);
            char why[200];
            aw_contest_eligible(s, i, pol, why, sizeof why);
            fprintf(out, "| ");
            aw_contest_md_text(out, ci->names[i]);
            fprintf(out, " | %s | %ld | %ld | %ld | %ld | %ld/%ld/%ld/%ld/%ld | %ld | %.0f / %.0f / %u |\n", why,
                    e->games, e->seats, e->wins, e->calls, e->faults[1], e->faults[2], e->faults[3], e->faults[4],
                    e->faults[5], e->faulty_games, g.cpu_med, g.cpu_p99, e->cpu_max_us);
        }
    }
    fprintf(out, "\nWin rate by role (wins / seats, seats in brackets):\n\n| entry |");
    bool used[AW_NROLES] = {0};
    for (int i = 0; i < s->n; i++)
        for (int r = 0; r < AW_NROLES; r++)
            used[r] |= s->e[i].role_games[r] > 0;
    aw_contest_md_role_columns(out, used);
    for (int k = 0; k < s->n; k++) {
        int i = order[k];
        fprintf(out, "| ");
        aw_contest_md_text(out, ci->names[i]);
        fprintf(out, "%s |", k >= nok ? " (not ranked)" : "");
        for (int r = 0; r < AW_NROLES; r++)
            if (used[r])
                fprintf(out, " %.3f (%ld) |", rate(s->e[i].role_wins[r], s->e[i].role_games[r]),
                        s->e[i].role_games[r]);
        fprintf(out, "\n");
    }
    fprintf(out,
            "\nSeating: %ld–%ld seats per entry; every entry's share of each role within %.3f of the share its "
            "seats lead one to expect; pairs of entries met in %ld–%ld games.\n",
            f.seats_min, f.seats_max, f.role_dev, f.meet_min, f.meet_max);
    aw_rating_write_md(ci->rating, ci, out);
    if (ci->prov)
        aw_provenance_md(ci->prov, ci, out);
    ranking_free(&rk);
    return ferror(out) ? -1 : 0;
}

/* results.csv (the "csv" row). */
static int contest_csv(const aw_report *rep, FILE *out)
{
    const aw_contest_stats *s = rep->stats;
    const aw_contest_info *ci = rep->ctx;
    ranking rk;
    ranking_of(s, ci, &rk);
    int *order = rk.order, *rank = rk.rank, nok = rk.nok;
    const aw_fault_policy *pol = rk.pol;
    fprintf(out, "rank,tied,entry,path,games,seats,points,win_rate,ci_low,ci_high,villager_seats,villager_wins,"
                 "werewolf_seats,werewolf_wins");
    for (int r = 0; r < AW_NROLES; r++)
        fprintf(out, ",%s_seats,%s_wins", aw_role_name((aw_role)r), aw_role_name((aw_role)r));
    for (int p = 0; p < ci->nplayers; p++)
        fprintf(out, ",seats_%dp,wins_%dp", ci->players[p], ci->players[p]);
    fprintf(out, ",faults_error,faults_timeout,faults_memory,faults_reply,faults_lost,faulty_games,calls,"
                 "not_ranked_because");
    aw_rating_write_csv_header(out);
    /* the measurements last: every column before them is the same on a rerun with --work */
    fprintf(out, ",cpu_us_median,cpu_us_p99,cpu_us_max,wall_us_median,wall_us_p99\n");
    for (int k = 0; k < s->n; k++) {
        int i = order[k];
        const aw_entry_stats *e = &s->e[i];
        figures g;
        figures_of(e, &g);
        char why[200] = "";
        if (k < nok) {
            char rl[16];
            rank_label(rank, k, nok, rl, sizeof rl);
            fprintf(out, "%d,%d,", rank[k], rl[strlen(rl) - 1] == '=');
        } else {
            aw_contest_eligible(s, i, pol, why, sizeof why);
            fprintf(out, ",,");
        }
        aw_csv_field(out, ci->names[i]);
        fputc(',', out);
        aw_csv_field(out, ci->paths[i]);
        fprintf(out, ",%ld,%ld,%ld,%.6f,%.6f,%.6f,%ld,%ld,%ld,%ld", e->games, e->seats, e->wins, g.rate, g.lo, g.hi,
                e->team_games[0], e->team_wins[0], e->team_games[1], e->team_wins[1]);
        for (int r = 0; r < AW_NROLES; r++)
            fprintf(out, ",%ld,%ld", e->role_games[r], e->role_wins[r]);
        for (int p = 0; p < ci->nplayers; p++)
            fprintf(out, ",%ld,%ld", e->pl_games[ci->players[p]], e->pl_wins[ci->players[p]]);
        fprintf(out, ",%ld,%ld,%ld,%ld,%ld,%ld,%ld,", e->faults[1], e->faults[2], e->faults[3], e->faults[4],
                e->faults[5], e->faulty_games, e->calls);
        aw_csv_field(out, why);
        aw_rating_write_csv_row(ci->rating, i, out);
        fprintf(out, ",%.1f,%.1f,%u,%.1f,%.1f\n", g.cpu_med, g.cpu_p99, e->cpu_max_us, g.wall_med, g.wall_p99);
    }
    ranking_free(&rk);
    return ferror(out) ? -1 : 0;
}

/* A {"seats": g, "wins": w} member. */
static void json_gw(aw_buf *b, const char *key, long g, long w, bool comma)
{
    aw_json_key(b, comma ? ", " : NULL, key);
    aw_json_kint(b, "{", "seats", g);
    aw_json_kint(b, ", ", "wins", w);
    aw_buf_addc(b, '}');
}

/* One entry's figures in results.json, from its name to its times. */
static void json_entry(aw_buf *b, const aw_contest_stats *s, const aw_contest_info *ci, int i)
{
    const aw_entry_stats *e = &s->e[i];
    figures g;
    figures_of(e, &g);
    aw_json_kstr(b, NULL, "name", ci->names[i]);
    aw_json_kstr(b, ", ", "path", ci->paths[i]);
    aw_json_kint(b, ", ", "games", e->games);
    aw_json_kint(b, ", ", "seats", e->seats);
    aw_json_kint(b, ", ", "points", e->wins);
    aw_json_knum(b, ", ", "win_rate", g.rate, 6);
    aw_json_knum(b, ", ", "ci_low", g.lo, 6);
    aw_json_knum(b, ", ", "ci_high", g.hi, 6);
    aw_buf_adds(b, ",\n     \"by_role\": {");
    bool comma = false;
    for (int r = 0; r < AW_NROLES; r++)
        if (e->role_games[r]) {
            json_gw(b, aw_role_name((aw_role)r), e->role_games[r], e->role_wins[r], comma);
            comma = true;
        }
    aw_buf_adds(b, "},\n     \"by_team\": {");
    comma = false;
    for (int t = 0; t < 3; t++)
        if (e->team_games[t]) {
            json_gw(b, aw_team_name((aw_team)t), e->team_games[t], e->team_wins[t], comma);
            comma = true;
        }
    aw_buf_adds(b, "},\n     \"by_players\": {");
    comma = false;
    for (int p = 0; p <= AW_MAX_PLAYERS; p++)
        if (e->pl_games[p]) {
            char key[8];
            snprintf(key, sizeof key, "%d", p);
            json_gw(b, key, e->pl_games[p], e->pl_wins[p], comma);
            comma = true;
        }
    aw_buf_adds(b, "},\n     \"faults\": {");
    for (int k2 = 1; k2 < AW_NFAULTS; k2++)
        aw_json_kint(b, k2 > 1 ? ", " : NULL, fault_names[k2], e->faults[k2]);
    aw_json_kint(b, "}, ", "faulty_games", e->faulty_games);
    aw_json_kint(b, ", ", "calls", e->calls);
    aw_json_knum(b, ",\n     \"time\": {", "cpu_us_median", g.cpu_med, 1);
    aw_json_knum(b, ", ", "cpu_us_p99", g.cpu_p99, 1);
    aw_json_kint(b, ", ", "cpu_us_max", e->cpu_max_us);
    aw_json_knum(b, ", ", "wall_us_median", g.wall_med, 1);
    aw_json_knum(b, ", ", "wall_us_p99", g.wall_p99, 1);
    aw_buf_adds(b, "}}");
}

void aw_contest_write_json(const aw_contest_stats *s, const aw_contest_info *ci, aw_buf *b)
{
    ranking rk;
    ranking_of(s, ci, &rk);
    int *order = rk.order, *rank = rk.rank, nok = rk.nok;
    const aw_fault_policy *pol = rk.pol;
    char pol_text[64];
    aw_fault_policy_format(pol, pol_text, sizeof pol_text);
    fairness f;
    measure(s, &f);
    aw_buf_adds(b, "{\n  \"format\": \"aiwolf-contest-results\",\n  \"version\": 2,\n  \"contest\": {");
    aw_json_kstr(b, NULL, "format", ci->format);
    aw_buf_adds(b, ", \"players\": [");
    for (int i = 0; i < ci->nplayers; i++)
        aw_buf_printf(b, "%s%d", i ? ", " : "", ci->players[i]);
    char seed[24], shard[24];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)ci->seed);
    snprintf(shard, sizeof shard, "%d/%d", ci->shard, ci->nshards);
    aw_json_kstr(b, "], ", "seed", seed);
    aw_json_kint(b, ", ", "games_total", ci->games_total);
    aw_json_kint(b, ", ", "games_done", s->games);
    aw_json_kint(b, ", ", "budget_ms", ci->limits.budget_ms);
    aw_json_kint(b, ", ", "memory_mb", aw_limits_memory_mib(&ci->limits));
    aw_buf_printf(b, ", \"work\": %llu", (unsigned long long)ci->limits.work_budget);
    aw_json_kstr(b, ", ", "shard", shard);
    aw_json_kint(b, ", \"fairness\": {", "seats_per_entry_min", f.seats_min);
    aw_json_kint(b, ", ", "seats_per_entry_max", f.seats_max);
    aw_json_knum(b, ", ", "role_share_max_dev", f.role_dev, 4);
    aw_json_kint(b, ", ", "meetings_min", f.meet_min);
    aw_json_kint(b, ", ", "meetings_max", f.meet_max);
    aw_json_kstr(b, "},\n   ", "fault_policy", pol_text);
    aw_json_kstr(b, ", ", "ranking", RANKING_RULE);
    aw_json_kstr(b, ", ", "interval", INTERVAL_RULE);
    aw_buf_adds(b, "},\n  ");
    if (ci->prov) {
        aw_provenance_json(ci->prov, ci, b);
        aw_buf_adds(b, ",\n  ");
    }
    aw_buf_adds(b, "\"entries\": [");
    for (int k = 0; k < nok; k++) {
        char rl[16];
        rank_label(rank, k, nok, rl, sizeof rl);
        aw_json_kint(b, k ? ",\n    {" : "\n    {", "rank", rank[k]);
        aw_json_kstr(b, ", ", "rank_label", rl);
        aw_buf_adds(b, ", ");
        json_entry(b, s, ci, order[k]);
    }
    aw_buf_adds(b, "\n  ],\n  \"not_ranked\": [");
    for (int k = nok; k < s->n; k++) {
        char why[200];
        aw_contest_eligible(s, order[k], pol, why, sizeof why);
        aw_json_kstr(b, k > nok ? ",\n    {" : "\n    {", "why", why);
        aw_buf_adds(b, ", ");
        json_entry(b, s, ci, order[k]);
    }
    aw_buf_adds(b, "\n  ]");
    aw_rating_write_json(ci->rating, ci, b);
    aw_buf_adds(b, "\n}\n");
    ranking_free(&rk);
}


static int contest_json(const aw_report *r, FILE *out)
{
    aw_buf json;
    aw_buf_init(&json);
    aw_contest_write_json(r->stats, r->ctx, &json);
    fwrite(json.data, 1, json.len, out);
    aw_buf_free(&json);
    return ferror(out) ? -1 : 0;
}

static int contest_html(const aw_report *r, FILE *out)
{
    aw_buf json;
    aw_buf_init(&json);
    aw_contest_write_json(r->stats, r->ctx, &json);
    int rc = aw_contest_write_html(out, json.data, json.len);
    aw_buf_free(&json);
    return rc;
}

const aw_report_writer aw_contest_writers[] = {
    {"md", "report.md", contest_md},
    {"csv", "results.csv", contest_csv},
    {"json", "results.json", contest_json},
    {"html", "report.html", contest_html},
    {NULL, NULL, NULL},
};

int aw_contest_write_reports(const char *dir, const aw_contest_stats *s, const aw_contest_info *ci, FILE *md_too)
{
    aw_report rep = {.stats = s, .names = ci->names, .ctx = ci};
    int rc = 0;
    for (const aw_report_writer *w = aw_contest_writers; w->name; w++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, w->file);
        FILE *f = fopen(path, "we");
        if (!f) {
            rc = -1;
            continue;
        }
        int wr = w->write(&rep, f);
        if (fclose(f) != 0 || wr < 0) {
            fprintf(stderr, "aiwolf contest: writing %s failed\n", path);
            rc = -1;
        }
    }
    if (md_too)
        aw_report_writer_find(aw_contest_writers, "md")->write(&rep, md_too);
    return rc;
}
