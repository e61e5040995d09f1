/* stats: the reports' statistics model (see stats.h). */
#include "stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void aw_stats_init(aw_stats *s, int n, int mode)
{
    memset(s, 0, sizeof *s);
    s->n = n;
    s->mode = mode;
    if (mode == AW_STATS_BY_ENTRY) {
        s->e = aw_xcalloc((size_t)n + 1, sizeof *s->e);
        s->nrows = s->caprows = n;
        for (int i = 0; i < n; i++)
            s->e[i].entry = i;
    }
    s->meet = aw_xcalloc((size_t)n * (size_t)n + 1, sizeof *s->meet);
    s->role_expect = aw_xcalloc((size_t)n * AW_NROLES + 1, sizeof *s->role_expect);
}

void aw_stats_free(aw_stats *s)
{
    free(s->e);
    free(s->meet);
    free(s->role_expect);
    memset(s, 0, sizeof *s);
}

/* The row of an entry in a version (by version: made when first seen; rows
 * stay sorted by entry, versions in the order they appeared). */
static int row_index(aw_stats *s, int entry, const char *version, bool make)
{
    if (s->mode == AW_STATS_BY_ENTRY)
        return entry;
    char v[sizeof s->e[0].version];
    snprintf(v, sizeof v, "%s", version ? version : "");
    int at = s->nrows;
    for (int i = 0; i < s->nrows; i++) {
        if (s->e[i].entry == entry && strcmp(s->e[i].version, v) == 0)
            return i;
        if (s->e[i].entry > entry && at == s->nrows)
            at = i;
    }
    if (!make)
        return -1;
    if (s->nrows == s->caprows) {
        s->caprows = s->caprows ? s->caprows * 2 : 8;
        s->e = aw_xrealloc(s->e, (size_t)s->caprows * sizeof *s->e);
    }
    memmove(s->e + at + 1, s->e + at, (size_t)(s->nrows - at) * sizeof *s->e);
    s->nrows++;
    aw_stat_row *r = &s->e[at];
    memset(r, 0, sizeof *r);
    r->entry = entry;
    memcpy(r->version, v, sizeof v);
    return at;
}

void aw_stats_add(aw_stats *s, const aw_stat_game *g)
{
    int n = g->players;
    s->games++;
    s->fault_calls += g->fault_calls;
    if (g->winner >= 0 && g->winner < 3)
        s->team_wins[g->winner]++;
    else
        s->no_winner++;
    if (g->abandoned) {
        /* Not played out: no win or loss for anyone, so in no win rate. */
        s->abandoned++;
        return;
    }
    /* Each seat's row (made first: making one moves the others). */
    int row[AW_MAX_PLAYERS + 1];
    for (int a = 1; a <= n; a++) {
        int e = g->entry[a];
        if (e >= 0 && e < s->n)
            row_index(s, e, g->version ? g->version[a] : NULL, true);
    }
    for (int a = 1; a <= n; a++) {
        int e = g->entry[a];
        row[a] = e >= 0 && e < s->n ? row_index(s, e, g->version ? g->version[a] : NULL, false) : -1;
    }
    /* Per row and per entry in this game: its first seat, which holds the
     * row's seats, wins and whether one of its calls faulted. */
    int rfirst[AW_MAX_PLAYERS + 1], efirst[AW_MAX_PLAYERS + 1];
    int seats[AW_MAX_PLAYERS + 1] = {0}, wins[AW_MAX_PLAYERS + 1] = {0};
    bool faulty[AW_MAX_PLAYERS + 1] = {0};
    for (int a = 1; a <= n; a++) {
        aw_role role = g->role[a];
        aw_team team = aw_role_team(role);
        bool won = g->winner != AW_TEAM_NONE && team == g->winner;
        s->role_games[role]++;
        s->role_wins[role] += won;
        rfirst[a] = efirst[a] = 0;
        if (row[a] < 0)
            continue;
        for (int b = 1; b <= a && !rfirst[a]; b++)
            if (row[b] == row[a])
                rfirst[a] = b;
        for (int b = 1; b <= a && !efirst[a]; b++)
            if (g->entry[b] == g->entry[a])
                efirst[a] = b;
        int f = rfirst[a];
        aw_stat_row *r = &s->e[row[a]];
        seats[f]++;
        wins[f] += won;
        r->seats++;
        r->wins += won;
        r->role_games[role]++;
        r->role_wins[role] += won;
        if (team >= 0 && team < 3) {
            r->team_games[team]++;
            r->team_wins[team] += won;
        }
        r->pl_games[n]++;
        r->pl_wins[n] += won;
        for (int k = 1; k < AW_NFAULTS && g->faults; k++) {
            r->faults[k] += g->faults[a][k];
            faulty[f] |= g->faults[a][k] > 0;
        }
        if (g->calls)
            r->calls += g->calls[a];
        for (int b = 0; b < AW_TIME_BUCKETS; b++) {
            if (g->times)
                r->times[b] += g->times[a][b];
            if (g->cpu)
                r->cpu[b] += g->cpu[a][b];
        }
        if (g->cpu_max_us && g->cpu_max_us[a] > r->cpu_max_us)
            r->cpu_max_us = g->cpu_max_us[a];
        for (int k = 0; k < AW_NROLES && g->role_count; k++)
            s->role_expect[g->entry[a] * AW_NROLES + k] += (double)g->role_count[k] / n;
    }
    /* Once per row and game: games, the per-game win rate (the seats of one
     * entry in one game are not independent); once per entry: meetings. */
    for (int a = 1; a <= n; a++) {
        if (row[a] < 0)
            continue;
        if (rfirst[a] == a) {
            aw_stat_row *r = &s->e[row[a]];
            r->games++;
            r->faulty_games += faulty[a];
            aw_winrate_add(&r->wr, wins[a], seats[a]);
        }
        if (efirst[a] == a)
            for (int b = 1; b < a; b++)
                if (row[b] >= 0 && efirst[b] == b) {
                    s->meet[g->entry[a] * s->n + g->entry[b]]++;
                    s->meet[g->entry[b] * s->n + g->entry[a]]++;
                }
    }
}

void aw_stats_entry(const aw_stats *s, int entry, long *seats, long *wins)
{
    *seats = *wins = 0;
    for (int i = 0; i < s->nrows; i++)
        if (s->e[i].entry == entry) {
            *seats += s->e[i].seats;
            *wins += s->e[i].wins;
        }
}

void aw_wilson(long w, long n, double *lo, double *hi)
{
    aw_wilson_z(n > 0 ? (double)w / (double)n : 0, (double)n, 1.959963984540054, lo, hi);
}

int aw_time_bucket(uint64_t ns)
{
    double us = (double)ns / 1000.0;
    if (us < 1.0)
        return 0;
    int b = 1 + (int)floor(4.0 * log2(us));
    return b < AW_TIME_BUCKETS ? b : AW_TIME_BUCKETS - 1;
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
