/* results: contest game lines and the report (see results.h). */
#include "results.h"


#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    aw_buf_printf(out, "\t%s\t%d\t", r->abandoned ? "ABANDONED" : team_word(r->winner), r->days);
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
    r->abandoned = false;
    if (fl[7] == 4 && memcmp(f[7], "NONE", 4) == 0)
        r->winner = AW_TEAM_NONE;
    else if (fl[7] == 9 && memcmp(f[7], "ABANDONED", 9) == 0)
        r->winner = AW_TEAM_NONE, r->abandoned = true;
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
                      .abandoned = r->abandoned, .faults = (const int(*)[AW_NFAULTS])r->faults, .calls = r->calls,
                      .times = (const uint32_t(*)[AW_TIME_BUCKETS])r->times,
                      .cpu = (const uint32_t(*)[AW_TIME_BUCKETS])r->cpu, .cpu_max_us = r->cpu_max_us,
                      .role_count = role_count};
    aw_stats_add(s, &g);
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

const aw_fault_policy *aw_contest_policy(const aw_contest_info *ci)
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
    const aw_fault_policy *p = aw_contest_policy(ci);
    int nok = 0;
    for (int i = 0; i < s->n; i++) {
        order[i] = i;
        ok[i] = aw_contest_eligible(s, i, p, NULL, 0);
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
