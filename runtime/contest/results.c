/* results: contest game lines and the report (see results.h). */
#include "results.h"

#include "match.h"
#include "rating_report.h"
#include "provenance.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const fault_names[AW_NFAULTS] = {"none", "error", "timeout", "memory", "reply", "lost"};

int aw_time_bucket(uint64_t ns)
{
    double us = (double)ns / 1000.0;
    if (us < 1.0)
        return 0;
    int b = 1 + (int)floor(4.0 * log2(us));
    return b < AW_TIME_BUCKETS ? b : AW_TIME_BUCKETS - 1;
}

static const char *team_word(aw_team t)
{
    return t == AW_TEAM_NONE ? "NONE" : aw_team_name(t);
}

void aw_record_format(const aw_game_record *r, aw_buf *out)
{
    aw_buf_printf(out, "%ld\t%d\t%d\t%llu\t%d\t", r->index, r->unit, r->game, (unsigned long long)r->seed,
                  r->players);
    for (int a = 1; a <= r->players; a++)
        aw_buf_printf(out, "%s%d", a > 1 ? "," : "", r->entry[a]);
    aw_buf_addc(out, '\t');
    for (int a = 1; a <= r->players; a++)
        aw_buf_printf(out, "%s%s", a > 1 ? "," : "", aw_role_name(r->role[a]));
    aw_buf_printf(out, "\t%s\t%d\t", team_word(r->winner), r->days);
    for (int a = 1; a <= r->players; a++)
        aw_buf_printf(out, "%s%d", a > 1 ? "," : "", r->calls[a]);
    aw_buf_addc(out, '\t');
    for (int a = 1; a <= r->players; a++)
        aw_buf_printf(out, "%s%d.%d.%d.%d.%d", a > 1 ? "," : "", r->faults[a][1], r->faults[a][2], r->faults[a][3],
                      r->faults[a][4], r->faults[a][5]);
    aw_buf_printf(out, "\t%s\t", r->log);
    for (int a = 1; a <= r->players; a++) {
        if (a > 1)
            aw_buf_addc(out, ',');
        bool any = false;
        for (int b = 0; b < AW_TIME_BUCKETS; b++)
            if (r->times[a][b]) {
                aw_buf_printf(out, "%s%d:%u", any ? ";" : "", b, r->times[a][b]);
                any = true;
            }
        if (!any)
            aw_buf_addc(out, '-');
    }
    aw_buf_addc(out, '\n');
}

/* ---- parsing ------------------------------------------------------------- */

typedef struct cursor {
    const char *p, *end;
} cursor;

/* The next tab-separated field. */
static int field(cursor *c, const char **s, size_t *n)
{
    if (c->p > c->end)
        return -1;
    const char *t = memchr(c->p, '\t', (size_t)(c->end - c->p));
    const char *e = t ? t : c->end;
    *s = c->p;
    *n = (size_t)(e - c->p);
    c->p = e + 1;
    return 0;
}

static int num(const char *s, size_t n, long long lo, long long hi, long long *v)
{
    /* Decimal digits, an optional '-' first (by hand: a million-game
     * games.tsv holds tens of millions of numbers). */
    if (n == 0 || n > 20)
        return -1;
    bool neg = s[0] == '-';
    size_t i = neg;
    if (i == n)
        return -1;
    unsigned long long u = 0;
    for (; i < n; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (d > 9 || u > (ULLONG_MAX - d) / 10)
            return -1;
        u = u * 10 + d;
    }
    if (u > (unsigned long long)LLONG_MAX)
        return -1;
    long long x = neg ? -(long long)u : (long long)u;
    if (x < lo || (hi >= 0 && x > hi))
        return -1;
    *v = x;
    return 0;
}

/* Splits s[0..n) at sep into at most max parts; returns the count or -1. */
static int split(const char *s, size_t n, char sep, int max, const char **part, size_t *plen)
{
    int k = 0;
    const char *p = s, *end = s + n;
    for (;;) {
        const char *q = memchr(p, sep, (size_t)(end - p));
        const char *e = q ? q : end;
        if (k == max)
            return -1;
        part[k] = p;
        plen[k++] = (size_t)(e - p);
        if (!q)
            return k;
        p = q + 1;
    }
}

int aw_record_parse(const char *line, size_t len, int nentries, aw_game_record *r, aw_error *err)
{
    memset(r, 0, sizeof *r);
    cursor c = {line, line + len};
    const char *f[13];
    size_t fl[13];
    for (int i = 0; i < 13; i++)
        if (field(&c, &f[i], &fl[i]) < 0)
            return aw_fail(err, AW_EINVAL, "a game line needs 13 fields, this one has %d", i);
    if (c.p <= c.end)
        return aw_fail(err, AW_EINVAL, "a game line has 13 fields, this one has more");
    long long v;
    if (num(f[0], fl[0], 0, -1, &v) < 0)
        return aw_fail(err, AW_EINVAL, "bad game index");
    r->index = (long)v;
    if (num(f[1], fl[1], 0, 1 << 30, &v) < 0)
        return aw_fail(err, AW_EINVAL, "bad unit");
    r->unit = (int)v;
    if (num(f[2], fl[2], 0, 1 << 20, &v) < 0)
        return aw_fail(err, AW_EINVAL, "bad game number");
    r->game = (int)v;
    {
        char buf[24];
        if (fl[3] == 0 || fl[3] > 20)
            return aw_fail(err, AW_EINVAL, "bad seed");
        memcpy(buf, f[3], fl[3]);
        buf[fl[3]] = 0;
        char *e;
        if (buf[0] < '0' || buf[0] > '9')
            return aw_fail(err, AW_EINVAL, "bad seed");
        r->seed = strtoull(buf, &e, 10);
        if (*e)
            return aw_fail(err, AW_EINVAL, "bad seed");
    }
    if (num(f[4], fl[4], 3, AW_MAX_PLAYERS, &v) < 0)
        return aw_fail(err, AW_EINVAL, "bad player count");
    int n = r->players = (int)v;
    const char *part[AW_MAX_PLAYERS + 1];
    size_t plen[AW_MAX_PLAYERS + 1];
    if (split(f[5], fl[5], ',', n, part, plen) != n)
        return aw_fail(err, AW_EINVAL, "the entries are not one per seat");
    for (int a = 1; a <= n; a++) {
        if (num(part[a - 1], plen[a - 1], 0, nentries - 1, &v) < 0)
            return aw_fail(err, AW_EINVAL, "bad entry number (this contest has %d entries)", nentries);
        r->entry[a] = (int)v;
    }
    if (split(f[6], fl[6], ',', n, part, plen) != n)
        return aw_fail(err, AW_EINVAL, "the roles are not one per seat");
    for (int a = 1; a <= n; a++) {
        char buf[16];
        if (plen[a - 1] >= sizeof buf)
            return aw_fail(err, AW_EINVAL, "bad role");
        memcpy(buf, part[a - 1], plen[a - 1]);
        buf[plen[a - 1]] = 0;
        r->role[a] = aw_role_parse(buf);
        if (r->role[a] == AW_ROLE_NONE)
            return aw_fail(err, AW_EINVAL, "bad role '%s'", buf);
    }
    r->role[0] = AW_ROLE_NONE;
    if (fl[7] == 4 && memcmp(f[7], "NONE", 4) == 0)
        r->winner = AW_TEAM_NONE;
    else if (fl[7] == 8 && memcmp(f[7], "VILLAGER", 8) == 0)
        r->winner = AW_TEAM_VILLAGER;
    else if (fl[7] == 8 && memcmp(f[7], "WEREWOLF", 8) == 0)
        r->winner = AW_TEAM_WEREWOLF;
    else if (fl[7] == 6 && memcmp(f[7], "OTHERS", 6) == 0)
        r->winner = AW_TEAM_OTHERS;
    else
        return aw_fail(err, AW_EINVAL, "bad winner");
    if (num(f[8], fl[8], 0, 1 << 20, &v) < 0)
        return aw_fail(err, AW_EINVAL, "bad day");
    r->days = (int)v;
    if (split(f[9], fl[9], ',', n, part, plen) != n)
        return aw_fail(err, AW_EINVAL, "the calls are not one per seat");
    for (int a = 1; a <= n; a++) {
        if (num(part[a - 1], plen[a - 1], 0, 1 << 30, &v) < 0)
            return aw_fail(err, AW_EINVAL, "bad call count");
        r->calls[a] = (int)v;
    }
    if (split(f[10], fl[10], ',', n, part, plen) != n)
        return aw_fail(err, AW_EINVAL, "the faults are not one per seat");
    for (int a = 1; a <= n; a++) {
        const char *k[5];
        size_t kl[5];
        if (split(part[a - 1], plen[a - 1], '.', 5, k, kl) != 5)
            return aw_fail(err, AW_EINVAL, "bad fault counts");
        for (int i = 0; i < 5; i++) {
            if (num(k[i], kl[i], 0, 1 << 30, &v) < 0)
                return aw_fail(err, AW_EINVAL, "bad fault count");
            r->faults[a][i + 1] = (int)v;
        }
    }
    if (fl[11] == 0 || fl[11] >= sizeof r->log || memchr(f[11], '\0', fl[11]))
        return aw_fail(err, AW_EINVAL, "bad log path");
    memcpy(r->log, f[11], fl[11]);
    if (split(f[12], fl[12], ',', n, part, plen) != n)
        return aw_fail(err, AW_EINVAL, "the times are not one per seat");
    for (int a = 1; a <= n; a++) {
        if (plen[a - 1] == 1 && part[a - 1][0] == '-')
            continue;
        const char *k[AW_TIME_BUCKETS];
        size_t kl[AW_TIME_BUCKETS];
        int nb = split(part[a - 1], plen[a - 1], ';', AW_TIME_BUCKETS, k, kl);
        if (nb < 0)
            return aw_fail(err, AW_EINVAL, "bad times");
        for (int i = 0; i < nb; i++) {
            const char *colon = memchr(k[i], ':', kl[i]);
            long long b, cnt;
            if (!colon || num(k[i], (size_t)(colon - k[i]), 0, AW_TIME_BUCKETS - 1, &b) < 0 ||
                num(colon + 1, kl[i] - (size_t)(colon - k[i]) - 1, 0, 1ll << 31, &cnt) < 0)
                return aw_fail(err, AW_EINVAL, "bad times");
            r->times[a][b] += (uint32_t)cnt;
        }
    }
    return 0;
}

/* ---- statistics ---------------------------------------------------------- */

void aw_contest_stats_init(aw_contest_stats *s, int n)
{
    memset(s, 0, sizeof *s);
    s->n = n;
    s->e = aw_xcalloc((size_t)n, sizeof *s->e);
    s->meet = aw_xcalloc((size_t)n * (size_t)n, sizeof *s->meet);
    s->role_expect = aw_xcalloc((size_t)n * AW_NROLES, sizeof *s->role_expect);
}

void aw_contest_stats_free(aw_contest_stats *s)
{
    free(s->e);
    free(s->meet);
    free(s->role_expect);
    memset(s, 0, sizeof *s);
}

void aw_contest_stats_add(aw_contest_stats *s, const aw_game_record *r, const int role_count[AW_NROLES])
{
    s->games++;
    for (int a = 1; a <= r->players; a++) {
        aw_entry_stats *e = &s->e[r->entry[a]];
        aw_role role = r->role[a];
        aw_team team = aw_role_team(role);
        bool won = r->winner != AW_TEAM_NONE && team == r->winner;
        e->games++;
        e->wins += won;
        e->role_games[role]++;
        e->role_wins[role] += won;
        if (team >= 0 && team < 3) {
            e->team_games[team]++;
            e->team_wins[team] += won;
        }
        e->pl_games[r->players]++;
        e->pl_wins[r->players] += won;
        for (int k = 1; k < AW_NFAULTS; k++)
            e->faults[k] += r->faults[a][k];
        e->calls += r->calls[a];
        for (int b = 0; b < AW_TIME_BUCKETS; b++)
            e->times[b] += r->times[a][b];
        for (int k = 0; k < AW_NROLES; k++)
            s->role_expect[r->entry[a] * AW_NROLES + k] += (double)role_count[k] / r->players;
        for (int b = 1; b < a; b++)
            if (r->entry[b] != r->entry[a]) {
                s->meet[r->entry[a] * s->n + r->entry[b]]++;
                s->meet[r->entry[b] * s->n + r->entry[a]]++;
            }
    }
}

double aw_time_quantile(const uint64_t *t, double q)
{
    uint64_t total = 0;
    for (int b = 0; b < AW_TIME_BUCKETS; b++)
        total += t[b];
    if (!total)
        return 0;
    double want = q * (double)total;
    uint64_t cum = 0;
    for (int b = 0; b < AW_TIME_BUCKETS; b++) {
        cum += t[b];
        if ((double)cum >= want && t[b])
            return b == 0 ? 0.5 : pow(2.0, ((double)b - 1 + 0.5) / 4.0); /* the bucket's middle */
    }
    return pow(2.0, (AW_TIME_BUCKETS - 1.5) / 4.0);
}

static double rate(long w, long n)
{
    return n ? (double)w / (double)n : 0;
}

static const aw_contest_info *rank_ci;
static const aw_contest_stats *rank_s;
static int rank_cmp(const void *a, const void *b)
{
    int i = *(const int *)a, j = *(const int *)b;
    const aw_entry_stats *x = &rank_s->e[i], *y = &rank_s->e[j];
    double rx = rate(x->wins, x->games), ry = rate(y->wins, y->games);
    if (rx != ry)
        return rx > ry ? -1 : 1;
    if (x->wins != y->wins)
        return x->wins > y->wins ? -1 : 1;
    int c = strcmp(rank_ci->names[i], rank_ci->names[j]);
    return c ? c : i - j;
}

void aw_contest_rank(const aw_contest_stats *s, const aw_contest_info *ci, int *order)
{
    for (int i = 0; i < s->n; i++)
        order[i] = i;
    rank_ci = ci;
    rank_s = s;
    qsort(order, (size_t)s->n, sizeof *order, rank_cmp);
}

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
        if (i == 0 || e->games < f->seats_min)
            f->seats_min = e->games;
        if (e->games > f->seats_max)
            f->seats_max = e->games;
        for (int r = 0; r < AW_NROLES && e->games; r++) {
            double d = fabs((double)e->role_games[r] - s->role_expect[i * AW_NROLES + r]) / (double)e->games;
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

/* Markdown table cells must not hold | or line breaks, and the report goes
 * to terminals too: control bytes and the like come escaped (util.h). */
void aw_contest_md_text(FILE *out, const char *s)
{
    aw_buf b;
    aw_buf_init(&b);
    aw_buf_add_term(&b, s, strlen(s));
    for (size_t i = 0; i < b.len; i++)
        fputs(b.data[i] == '|' ? "\\|" : (char[2]){b.data[i], 0}, out);
    aw_buf_free(&b);
}

void aw_contest_write_md(const aw_contest_stats *s, const aw_contest_info *ci, FILE *out)
{
    int *order = aw_xcalloc((size_t)s->n, sizeof *order);
    aw_contest_rank(s, ci, order);
    char pl[64];
    fmt_players(ci, pl, sizeof pl);
    fairness f;
    measure(s, &f);
    fprintf(out, "# Contest results\n\n");
    fprintf(out, "Format %s, %s players, seed %llu, %ld of %ld games", ci->format, pl, (unsigned long long)ci->seed,
            s->games, ci->games_total);
    if (ci->nshards > 1)
        fprintf(out, " (shard %d/%d)", ci->shard, ci->nshards);
    fprintf(out, ", %d ms and %d MiB per call.\n\n", ci->budget_ms, ci->memory_mb);
    fprintf(out, "| # | entry | games | points | win rate | 95 %% interval | villager team | werewolf team |");
    for (int i = 0; i < ci->nplayers; i++)
        fprintf(out, " %dp |", ci->players[i]);
    fprintf(out, " faults (error/timeout/memory/reply/lost) | µs per call (median / p99) |\n");
    fprintf(out, "|---:|---|---:|---:|---:|---|---:|---:|");
    for (int i = 0; i < ci->nplayers; i++)
        fprintf(out, "---:|");
    fprintf(out, "---|---:|\n");
    for (int k = 0; k < s->n; k++) {
        int i = order[k];
        const aw_entry_stats *e = &s->e[i];
        double lo, hi;
        aw_wilson(e->wins, e->games, &lo, &hi);
        fprintf(out, "| %d | ", k + 1);
        aw_contest_md_text(out, ci->names[i]);
        fprintf(out, " | %ld | %ld | %.3f | %.3f–%.3f | %.3f | %.3f |", e->games, e->wins, rate(e->wins, e->games), lo,
                hi, rate(e->team_wins[0], e->team_games[0]), rate(e->team_wins[1], e->team_games[1]));
        for (int p = 0; p < ci->nplayers; p++)
            fprintf(out, " %.3f |", rate(e->pl_wins[ci->players[p]], e->pl_games[ci->players[p]]));
        fprintf(out, " %ld/%ld/%ld/%ld/%ld | %.0f / %.0f |\n", e->faults[1], e->faults[2], e->faults[3], e->faults[4],
                e->faults[5], aw_time_quantile(e->times, 0.5), aw_time_quantile(e->times, 0.99));
    }
    fprintf(out, "\nWin rate by role:\n\n| entry |");
    bool used[AW_NROLES] = {0};
    for (int i = 0; i < s->n; i++)
        for (int r = 0; r < AW_NROLES; r++)
            used[r] |= s->e[i].role_games[r] > 0;
    for (int r = 0; r < AW_NROLES; r++)
        if (used[r])
            fprintf(out, " %s |", aw_role_name((aw_role)r));
    fprintf(out, "\n|---|");
    for (int r = 0; r < AW_NROLES; r++)
        if (used[r])
            fprintf(out, "---:|");
    fprintf(out, "\n");
    for (int k = 0; k < s->n; k++) {
        int i = order[k];
        fprintf(out, "| ");
        aw_contest_md_text(out, ci->names[i]);
        fprintf(out, " |");
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
    free(order);
}

void aw_contest_write_csv(const aw_contest_stats *s, const aw_contest_info *ci, FILE *out)
{
    int *order = aw_xcalloc((size_t)s->n, sizeof *order);
    aw_contest_rank(s, ci, order);
    fprintf(out, "rank,entry,path,games,points,win_rate,ci_low,ci_high,villager_games,villager_wins,werewolf_games,"
                 "werewolf_wins");
    for (int r = 0; r < AW_NROLES; r++)
        fprintf(out, ",%s_games,%s_wins", aw_role_name((aw_role)r), aw_role_name((aw_role)r));
    for (int p = 0; p < ci->nplayers; p++)
        fprintf(out, ",games_%dp,wins_%dp", ci->players[p], ci->players[p]);
    fprintf(out, ",faults_error,faults_timeout,faults_memory,faults_reply,faults_lost,calls,call_us_median,"
                 "call_us_p99");
    aw_rating_write_csv_header(out);
    fputc('\n', out);
    for (int k = 0; k < s->n; k++) {
        int i = order[k];
        const aw_entry_stats *e = &s->e[i];
        double lo, hi;
        aw_wilson(e->wins, e->games, &lo, &hi);
        fprintf(out, "%d,", k + 1);
        aw_csv_field(out, ci->names[i]);
        fputc(',', out);
        aw_csv_field(out, ci->paths[i]);
        fprintf(out, ",%ld,%ld,%.6f,%.6f,%.6f,%ld,%ld,%ld,%ld", e->games, e->wins, rate(e->wins, e->games), lo, hi,
                e->team_games[0], e->team_wins[0], e->team_games[1], e->team_wins[1]);
        for (int r = 0; r < AW_NROLES; r++)
            fprintf(out, ",%ld,%ld", e->role_games[r], e->role_wins[r]);
        for (int p = 0; p < ci->nplayers; p++)
            fprintf(out, ",%ld,%ld", e->pl_games[ci->players[p]], e->pl_wins[ci->players[p]]);
        fprintf(out, ",%ld,%ld,%ld,%ld,%ld,%ld,%.1f,%.1f", e->faults[1], e->faults[2], e->faults[3], e->faults[4],
                e->faults[5], e->calls, aw_time_quantile(e->times, 0.5), aw_time_quantile(e->times, 0.99));
        aw_rating_write_csv_row(ci->rating, i, out);
        fputc('\n', out);
    }
    free(order);
}

/* (report_html escapes '<' where it puts this JSON into the page.) */
static void json_str(aw_buf *b, const char *s)
{
    aw_buf_add_json(b, s, strlen(s));
}

static void json_gw(aw_buf *b, const char *key, long g, long w, bool comma)
{
    aw_buf_printf(b, "%s", comma ? ", " : "");
    json_str(b, key);
    aw_buf_printf(b, ": {\"games\": %ld, \"wins\": %ld}", g, w);
}

void aw_contest_write_json(const aw_contest_stats *s, const aw_contest_info *ci, aw_buf *b)
{
    int *order = aw_xcalloc((size_t)s->n, sizeof *order);
    aw_contest_rank(s, ci, order);
    fairness f;
    measure(s, &f);
    aw_buf_adds(b, "{\n  \"format\": \"aiwolf-contest-results\",\n  \"version\": 1,\n  \"contest\": {\"format\": ");
    json_str(b, ci->format);
    aw_buf_adds(b, ", \"players\": [");
    for (int i = 0; i < ci->nplayers; i++)
        aw_buf_printf(b, "%s%d", i ? ", " : "", ci->players[i]);
    aw_buf_printf(b,
                  "], \"seed\": \"%llu\", \"games_total\": %ld, \"games_done\": %ld, \"budget_ms\": %d, "
                  "\"memory_mb\": %d, \"shard\": \"%d/%d\", \"fairness\": {\"seats_per_entry_min\": %ld, "
                  "\"seats_per_entry_max\": %ld, \"role_share_max_dev\": %.4f, \"meetings_min\": %ld, "
                  "\"meetings_max\": %ld}},\n  ",
                  (unsigned long long)ci->seed, ci->games_total, s->games, ci->budget_ms, ci->memory_mb, ci->shard,
                  ci->nshards, f.seats_min, f.seats_max, f.role_dev, f.meet_min, f.meet_max);
    if (ci->prov) {
        aw_provenance_json(ci->prov, ci, b);
        aw_buf_adds(b, ",\n  ");
    }
    aw_buf_adds(b, "\"entries\": [");
    for (int k = 0; k < s->n; k++) {
        int i = order[k];
        const aw_entry_stats *e = &s->e[i];
        double lo, hi;
        aw_wilson(e->wins, e->games, &lo, &hi);
        aw_buf_printf(b, "%s\n    {\"rank\": %d, \"name\": ", k ? "," : "", k + 1);
        json_str(b, ci->names[i]);
        aw_buf_adds(b, ", \"path\": ");
        json_str(b, ci->paths[i]);
        aw_buf_printf(b,
                      ", \"games\": %ld, \"points\": %ld, \"win_rate\": %.6f, \"ci_low\": %.6f, \"ci_high\": %.6f,\n"
                      "     \"by_role\": {",
                      e->games, e->wins, rate(e->wins, e->games), lo, hi);
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
            aw_buf_printf(b, "%s\"%s\": %ld", k2 > 1 ? ", " : "", fault_names[k2], e->faults[k2]);
        aw_buf_printf(b, "}, \"calls\": %ld, \"call_us_median\": %.1f, \"call_us_p99\": %.1f}", e->calls,
                      aw_time_quantile(e->times, 0.5), aw_time_quantile(e->times, 0.99));
    }
    aw_buf_adds(b, "\n  ]");
    aw_rating_write_json(ci->rating, ci, b);
    aw_buf_adds(b, "\n}\n");
    free(order);
}
