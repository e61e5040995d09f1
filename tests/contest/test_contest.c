/* The contest's schedule and results format: fairness by construction, the
 * same schedule from the same seed, games.tsv lines that survive a round
 * trip and refuse damage, the Wilson interval and the time quantiles. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "match.h"
#include "results.h"
#include "schedule.h"
#include "test.h"

static void opts_for(aw_schedule_opts *o, aw_contest_format f, int nentries, int p1, int p2)
{
    memset(o, 0, sizeof *o);
    o->format = f;
    o->nentries = nentries;
    o->players[o->nplayers++] = p1;
    if (p2)
        o->players[o->nplayers++] = p2;
    o->games_per_entry = 200;
    o->sets = 4;
    o->set_games = 25;
    o->seed = 12345;
    aw_error err;
    for (int i = 0; i < o->nplayers; i++)
        if (o->players[i] >= 3 && o->players[i] <= AW_MAX_PLAYERS) /* (the refusal tests ask for more) */
            aw_default_roles(o->players[i], o->role_count[o->players[i]], &err);
}

/* Seats per entry, role shares against expectation, distinct entries per
 * game when there are enough. */
static void check_fair(const aw_schedule *s, double tolerance)
{
    int n = s->opts.nentries;
    long *seats = calloc((size_t)n, sizeof *seats);
    long *roles = calloc((size_t)n * AW_NROLES, sizeof *roles);
    double *expect = calloc((size_t)n * AW_NROLES, sizeof *expect);
    for (int u = 0; u < s->nunits; u++) {
        const aw_sched_unit *un = &s->units[u];
        int p = un->players;
        for (int g = 0; g < un->ngames; g++) {
            int count[AW_NROLES] = {0};
            for (int a = 1; a <= p; a++) {
                int e = un->entry[a];
                CHECK(e >= 0 && e < n);
                seats[e]++;
                roles[e * AW_NROLES + un->games[g].role[a]]++;
                count[un->games[g].role[a]]++;
                for (int r = 0; r < AW_NROLES; r++)
                    expect[e * AW_NROLES + r] += (double)s->opts.role_count[p][r] / p;
            }
            /* The deal is the preset's role table. */
            for (int r = 0; r < AW_NROLES; r++)
                CHECK_INT(count[r], s->opts.role_count[p][r]);
        }
        if (n >= p)
            for (int a = 1; a <= p; a++)
                for (int b = 1; b < a; b++)
                    CHECK_MSG(un->entry[a] != un->entry[b], "unit %d holds entry %d twice", u, un->entry[a]);
    }
    long lo = seats[0], hi = seats[0];
    double worst = 0;
    for (int e = 0; e < n; e++) {
        if (seats[e] < lo)
            lo = seats[e];
        if (seats[e] > hi)
            hi = seats[e];
        for (int r = 0; r < AW_NROLES; r++) {
            double d = fabs(roles[e * AW_NROLES + r] - expect[e * AW_NROLES + r]) / (double)seats[e];
            if (d > worst)
                worst = d;
        }
    }
    /* Seats differ by at most one per player count (units are whole games
     * or whole sets). */
    long slack = s->opts.format == AW_FORMAT_SEED2015 ? s->opts.nplayers : s->opts.set_games * s->opts.nplayers;
    CHECK_MSG(hi - lo <= slack, "seats per entry from %ld to %ld", lo, hi);
    CHECK_MSG(worst <= tolerance, "a role share off by %.4f", worst);
    free(seats);
    free(roles);
    free(expect);
}

static void test_schedules(void)
{
    aw_schedule_opts o;
    aw_schedule s, t;
    aw_error err;
    /* seed 003: 30 entries, 15 players. */
    opts_for(&o, AW_FORMAT_SEED2015, 30, 15, 0);
    CHECK_INT(aw_schedule_build(&s, &o, &err), 0);
    CHECK_INT(s.nunits, 400); /* 30 x 200 / 15 */
    CHECK_INT(s.max_copies, 1);
    check_fair(&s, 0.01);
    /* The same seed, the same schedule; another seed, another one. */
    CHECK_INT(aw_schedule_build(&t, &o, &err), 0);
    bool same = true;
    for (int u = 0; u < s.nunits; u++)
        same &= memcmp(s.units[u].entry, t.units[u].entry, sizeof s.units[u].entry) == 0 &&
                memcmp(s.units[u].games[0].role, t.units[u].games[0].role, sizeof s.units[u].games[0].role) == 0 &&
                s.units[u].games[0].seed == t.units[u].games[0].seed;
    CHECK(same);
    aw_schedule_free(&t);
    o.seed++;
    CHECK_INT(aw_schedule_build(&t, &o, &err), 0);
    CHECK(memcmp(s.units[0].entry, t.units[0].entry, sizeof s.units[0].entry) != 0);
    aw_schedule_free(&t);
    aw_schedule_free(&s);

    /* Fewer entries than seats: entries repeat, at most ceil(15/6) times. */
    opts_for(&o, AW_FORMAT_SEED2015, 6, 15, 0);
    CHECK_INT(aw_schedule_build(&s, &o, &err), 0);
    CHECK_INT(s.max_copies, 3);
    for (int u = 0; u < s.nunits; u++) {
        int held[6] = {0};
        for (int a = 1; a <= 15; a++)
            CHECK(++held[s.units[u].entry[a]] <= 3);
    }
    check_fair(&s, 0.02);
    aw_schedule_free(&s);

    /* 20 entries and 15 seats do not divide: still distinct in each game. */
    opts_for(&o, AW_FORMAT_SEED2015, 20, 5, 15);
    CHECK_INT(aw_schedule_build(&s, &o, &err), 0);
    check_fair(&s, 0.02);
    /* The game indexes run on across units. */
    for (int u = 1; u < s.nunits; u++)
        CHECK_INT(s.units[u].first, s.units[u - 1].first + s.units[u - 1].ngames);
    aw_schedule_free(&s);

    /* The regulation: sets with fixed seats, both sizes. */
    opts_for(&o, AW_FORMAT_REGULATION, 15, 5, 15);
    CHECK_INT(aw_schedule_build(&s, &o, &err), 0);
    CHECK_INT(s.nunits, 8);
    CHECK_INT(s.ngames, 200);
    check_fair(&s, 0.03);
    aw_schedule_free(&s);

    /* Impossible requests are refused. */
    opts_for(&o, AW_FORMAT_SEED2015, 0, 15, 0);
    CHECK(aw_schedule_build(&s, &o, &err) < 0);
    opts_for(&o, AW_FORMAT_SEED2015, 5, 19, 0);
    CHECK(aw_schedule_build(&s, &o, &err) < 0);
}

static void test_records(void)
{
    aw_game_record r, q;
    memset(&r, 0, sizeof r);
    r.index = 17;
    r.unit = 3;
    r.game = 2;
    r.seed = 18446744073709551615ull;
    r.players = 5;
    aw_role roles[] = {AW_ROLE_NONE, AW_SEER, AW_WEREWOLF, AW_VILLAGER, AW_POSSESSED, AW_VILLAGER};
    for (int a = 1; a <= 5; a++) {
        r.entry[a] = a % 3;
        r.role[a] = roles[a];
        r.calls[a] = 40 + a;
        r.times[a][aw_time_bucket(120000)] = 30;
        r.times[a][aw_time_bucket(500)] = (uint32_t)a;
    }
    r.role[0] = AW_ROLE_NONE;
    r.faults[2][AW_FAULT_TIMEOUT] = 4;
    r.faults[5][AW_FAULT_LOST] = 9;
    r.winner = AW_TEAM_WEREWOLF;
    r.days = 3;
    snprintf(r.log, sizeof r.log, "logs/000017.log");
    aw_buf b;
    aw_buf_init(&b);
    aw_record_format(&r, &b);
    CHECK(b.len > 0 && b.data[b.len - 1] == '\n');
    aw_error err;
    CHECK_INT(aw_record_parse(b.data, b.len - 1, 3, &q, &err), 0);
    CHECK(memcmp(&r, &q, sizeof r) == 0);
    /* Entry numbers beyond the contest, a line cut short, a field too
     * many, a bad role: refused, never read past. */
    CHECK(aw_record_parse(b.data, b.len - 1, 2, &q, &err) < 0);
    /* (A cut inside the last field can still be a valid, shorter line: the
     * runner drops any line without its newline.) */
    size_t last_tab = b.len - 1;
    while (b.data[last_tab] != '\t')
        last_tab--;
    for (size_t cut = 0; cut <= last_tab; cut++)
        if (aw_record_parse(b.data, cut, 3, &q, &err) == 0)
            CHECK_MSG(0, "a line cut at %zu parsed", cut);
    aw_buf c;
    aw_buf_init(&c);
    aw_buf_add(&c, b.data, b.len - 1);
    aw_buf_adds(&c, "\textra");
    CHECK(aw_record_parse(c.data, c.len, 3, &q, &err) < 0);
    aw_buf_clear(&c);
    aw_buf_adds(&c, "1\t0\t0\t5\t3\t0,0,0\tSEER,WOLF,VILLAGER\tNONE\t1\t1,1,1\t0.0.0.0.0,0.0.0.0.0,0.0.0.0.0\tx\t-,-,-");
    CHECK(aw_record_parse(c.data, c.len, 3, &q, &err) < 0);
    aw_buf_free(&c);
    aw_buf_free(&b);
}

static void test_numbers(void)
{
    double lo, hi;
    aw_wilson(50, 100, &lo, &hi); /* 0.5 ± 0.0962 (Wilson, z = 1.96) */
    CHECK(fabs(lo - 0.4038) < 1e-3 && fabs(hi - 0.5962) < 1e-3);
    aw_wilson(0, 10, &lo, &hi);
    CHECK(lo == 0 && fabs(hi - 0.2775) < 1e-3);
    aw_wilson(0, 0, &lo, &hi);
    CHECK(lo == 0 && hi == 1);
    uint64_t t[AW_TIME_BUCKETS] = {0};
    CHECK(aw_time_quantile(t, 0.5) == 0);
    t[aw_time_bucket(100000)] = 98; /* 100 µs */
    t[aw_time_bucket(50000000)] = 2; /* 50 ms */
    double med = aw_time_quantile(t, 0.5), p99 = aw_time_quantile(t, 0.99);
    CHECK_MSG(med > 85 && med < 120, "median %.1f", med);
    CHECK_MSG(p99 > 42000 && p99 < 60000, "p99 %.1f", p99);
}

int main(void)
{
    test_schedules();
    test_records();
    test_numbers();
    return test_done();
}
