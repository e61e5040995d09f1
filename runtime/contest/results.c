/* results: contest game lines and the report (see results.h). */
#include "results.h"

#include "jsonw.h"
#include "rating_report.h"
#include "provenance.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const fault_names[AW_NFAULTS] = {"none", "error", "timeout", "memory", "reply", "lost"};

static const char *team_word(aw_team t)
{
    return t == AW_TEAM_NONE ? "NONE" : aw_team_name(t);
}

/* A histogram as bucket:count;… ("-" when empty). */
static void format_hist(aw_buf *out, const uint32_t *h)
{
    bool any = false;
    for (int b = 0; b < AW_TIME_BUCKETS; b++)
        if (h[b]) {
            aw_buf_printf(out, "%s%d:%u", any ? ";" : "", b, h[b]);
            any = true;
        }
    if (!any)
        aw_buf_addc(out, '-');
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
        format_hist(out, r->times[a]);
        aw_buf_printf(out, "/%u/", r->cpu_max_us[a]);
        format_hist(out, r->cpu[a]);
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

/* bucket:count;… or "-" into h. */
static int parse_hist(const char *s, size_t n, uint32_t *h)
{
    if (n == 1 && s[0] == '-')
        return 0;
    const char *k[AW_TIME_BUCKETS];
    size_t kl[AW_TIME_BUCKETS];
    int nb = split(s, n, ';', AW_TIME_BUCKETS, k, kl);
    if (nb < 0)
        return -1;
    for (int i = 0; i < nb; i++) {
        const char *colon = memchr(k[i], ':', kl[i]);
        long long b, cnt;
        if (!colon || num(k[i], (size_t)(colon - k[i]), 0, AW_TIME_BUCKETS - 1, &b) < 0 ||
            num(colon + 1, kl[i] - (size_t)(colon - k[i]) - 1, 0, 1ll << 31, &cnt) < 0)
            return -1;
        h[b] += (uint32_t)cnt;
    }
    return 0;
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
        /* wall[/cpu_max/cpu] */
        const char *t[3];
        size_t tl[3];
        int nt = split(part[a - 1], plen[a - 1], '/', 3, t, tl);
        if ((nt != 1 && nt != 3) || parse_hist(t[0], tl[0], r->times[a]) < 0 ||
            (nt == 3 && (num(t[1], tl[1], 0, UINT32_MAX, &v) < 0 || parse_hist(t[2], tl[2], r->cpu[a]) < 0)))
            return aw_fail(err, AW_EINVAL, "bad times");
        if (nt == 3)
            r->cpu_max_us[a] = (uint32_t)v;
    }
    return 0;
}

/* ---- statistics ---------------------------------------------------------- */

void aw_contest_stats_init(aw_contest_stats *s, int n)
{
    aw_stats_init(s, n, AW_STATS_BY_ENTRY);
}

void aw_contest_stats_free(aw_contest_stats *s)
{
    aw_stats_free(s);
}

void aw_contest_stats_add(aw_contest_stats *s, const aw_game_record *r, const int role_count[AW_NROLES])
{
    aw_stat_game g = {.players = r->players, .entry = r->entry, .role = r->role, .winner = r->winner,
                      .faults = (const int(*)[AW_NFAULTS])r->faults, .calls = r->calls,
                      .times = (const uint32_t(*)[AW_TIME_BUCKETS])r->times,
                      .cpu = (const uint32_t(*)[AW_TIME_BUCKETS])r->cpu, .cpu_max_us = r->cpu_max_us,
                      .role_count = role_count};
    aw_stats_add(s, &g);
}

static double rate(long w, long n)
{
    return n ? (double)w / (double)n : 0;
}

/* ---- the fault policy and the ranking ---------------------------------- */

/* "5%" or "0.05" into 0..1. */
static int parse_share(const char *s, size_t n, double *v)
{
    char buf[32];
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = 0;
    bool pct = buf[n - 1] == '%';
    if (pct)
        buf[n - 1] = 0;
    char *e;
    double x = strtod(buf, &e);
    if (e == buf || *e || !(x >= 0))
        return -1;
    if (pct)
        x /= 100;
    if (x > 1)
        return -1;
    *v = x;
    return 0;
}

int aw_fault_policy_parse(const char *text, aw_fault_policy *p, aw_error *err)
{
    memset(p, 0, sizeof *p);
    if (strcmp(text, "none") == 0)
        return 0;
    p->thresholds = true;
    p->max_calls = p->max_games = 1;
    const char *part[3];
    size_t plen[3];
    int k = split(text, strlen(text), ',', 2, part, plen);
    if (k < 1)
        return aw_fail(err, AW_EINVAL, "--fault-policy is calls=P%%,games=Q%% or none (not '%.60s')", text);
    bool seen[2] = {false, false};
    for (int i = 0; i < k; i++) {
        const char *eq = memchr(part[i], '=', plen[i]);
        size_t kl = eq ? (size_t)(eq - part[i]) : 0;
        int which = eq && kl == 5 && memcmp(part[i], "calls", 5) == 0   ? 0
                    : eq && kl == 5 && memcmp(part[i], "games", 5) == 0 ? 1
                                                                       : -1;
        double v;
        if (which < 0 || seen[which] || parse_share(eq + 1, plen[i] - kl - 1, &v) < 0)
            return aw_fail(err, AW_EINVAL,
                           "--fault-policy is calls=P%%,games=Q%% (shares from 0 to 100 %%) or none (not '%.60s')",
                           text);
        seen[which] = true;
        *(which ? &p->max_games : &p->max_calls) = v;
    }
    return 0;
}

void aw_fault_policy_format(const aw_fault_policy *p, char *buf, size_t n)
{
    if (!p->thresholds)
        snprintf(buf, n, "none");
    else
        snprintf(buf, n, "calls=%g%%,games=%g%%", p->max_calls * 100, p->max_games * 100);
}

static const aw_fault_policy *policy_of(const aw_contest_info *ci)
{
    static aw_fault_policy def;
    static bool have;
    if (ci && ci->policy)
        return ci->policy;
    if (!have) {
        aw_error err;
        aw_fault_policy_parse(AW_FAULT_POLICY_DEFAULT, &def, &err);
        have = true;
    }
    return &def;
}

static long fault_total(const aw_entry_stats *e)
{
    long t = 0;
    for (int k = 1; k < AW_NFAULTS; k++)
        t += e->faults[k];
    return t;
}

bool aw_contest_eligible(const aw_contest_stats *s, int i, const aw_fault_policy *p, char *why, size_t n)
{
    const aw_entry_stats *e = &s->e[i];
    long faults = fault_total(e);
    if (n)
        why[0] = 0;
    if (e->calls > 0 && faults >= e->calls) {
        if (e->faults[AW_FAULT_LOST] >= e->calls)
            snprintf(why, n, "does not load or cannot start: none of its %ld calls was answered", e->calls);
        else
            snprintf(why, n, "none of its %ld calls was answered", e->calls);
        return false;
    }
    if (!p || !p->thresholds)
        return true;
    if (e->calls > 0 && (double)faults > p->max_calls * (double)e->calls) {
        snprintf(why, n, "%ld of its %ld calls faulted (%.1f %%; the policy allows %g %%)", faults, e->calls,
                 100.0 * (double)faults / (double)e->calls, p->max_calls * 100);
        return false;
    }
    if (e->games > 0 && (double)e->faulty_games > p->max_games * (double)e->games) {
        snprintf(why, n, "faults in %ld of its %ld games (%.0f %%; the policy allows %g %%)", e->faulty_games,
                 e->games, 100.0 * (double)e->faulty_games / (double)e->games, p->max_games * 100);
        return false;
    }
    return true;
}

/* Win rates compared exactly: a/b against c/d (0 seats: a rate of 0). */
static int cmp_rate(long a, long b, long c, long d)
{
    if (!b)
        a = 0, b = 1;
    if (!d)
        c = 0, d = 1;
    long double x = (long double)a * d, y = (long double)c * b;
    return x > y ? 1 : x < y ? -1 : 0;
}

static const aw_contest_info *rank_ci;
static const aw_contest_stats *rank_s;
static const bool *rank_ok;
static int rank_cmp(const void *a, const void *b)
{
    int i = *(const int *)a, j = *(const int *)b;
    if (rank_ok[i] != rank_ok[j])
        return rank_ok[i] ? -1 : 1;
    const aw_entry_stats *x = &rank_s->e[i], *y = &rank_s->e[j];
    int r = rank_ok[i] ? cmp_rate(x->wins, x->seats, y->wins, y->seats) : 0;
    if (r)
        return -r;
    int c = strcmp(rank_ci->names[i], rank_ci->names[j]);
    return c ? c : i - j;
}

int aw_contest_rank(const aw_contest_stats *s, const aw_contest_info *ci, int *order, int *rank)
{
    bool *ok = aw_xcalloc((size_t)s->n + 1, sizeof *ok);
    const aw_fault_policy *p = policy_of(ci);
    int nok = 0;
    for (int i = 0; i < s->n; i++) {
        char why[8];
        order[i] = i;
        ok[i] = aw_contest_eligible(s, i, p, why, sizeof why);
        nok += ok[i];
    }
    rank_ci = ci;
    rank_s = s;
    rank_ok = ok;
    qsort(order, (size_t)s->n, sizeof *order, rank_cmp);
    if (rank)
        for (int k = 0; k < s->n; k++) {
            const aw_entry_stats *x = &s->e[order[k]];
            if (k >= nok)
                rank[k] = 0;
            else if (k > 0 && cmp_rate(x->wins, x->seats, s->e[order[k - 1]].wins, s->e[order[k - 1]].seats) == 0)
                rank[k] = rank[k - 1];
            else
                rank[k] = k + 1;
        }
    free(ok);
    return nok;
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
    int *rank = aw_xcalloc((size_t)s->n, sizeof *rank);
    int nok = aw_contest_rank(s, ci, order, rank);
    const aw_fault_policy *pol = policy_of(ci);
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
    fprintf(out, ", %d ms and %d MiB per call", ci->budget_ms, ci->memory_mb);
    if (ci->work)
        fprintf(out, ", %llu work units per call", (unsigned long long)ci->work);
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
    free(order);
    free(rank);
}

void aw_contest_write_csv(const aw_contest_stats *s, const aw_contest_info *ci, FILE *out)
{
    int *order = aw_xcalloc((size_t)s->n, sizeof *order);
    int *rank = aw_xcalloc((size_t)s->n, sizeof *rank);
    int nok = aw_contest_rank(s, ci, order, rank);
    const aw_fault_policy *pol = policy_of(ci);
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
    free(order);
    free(rank);
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
    int *order = aw_xcalloc((size_t)s->n, sizeof *order);
    int *rank = aw_xcalloc((size_t)s->n, sizeof *rank);
    int nok = aw_contest_rank(s, ci, order, rank);
    const aw_fault_policy *pol = policy_of(ci);
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
    aw_json_kint(b, ", ", "budget_ms", ci->budget_ms);
    aw_json_kint(b, ", ", "memory_mb", ci->memory_mb);
    aw_buf_printf(b, ", \"work\": %llu", (unsigned long long)ci->work);
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
    free(order);
    free(rank);
}
