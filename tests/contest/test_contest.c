/* The contest's schedule and results format: fairness by construction, the
 * same schedule from the same seed, games.tsv lines that survive a round
 * trip and refuse damage, the Wilson interval and the time quantiles. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "match.h"
#include "reports.h"
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
        r.cpu[a][aw_time_bucket(90000)] = 29;
        r.cpu_max_us[a] = 91 + (uint32_t)a;
    }
    r.cpu[4][0] = 0; /* a seat with no CPU reading */
    memset(r.cpu[4], 0, sizeof r.cpu[4]);
    r.cpu_max_us[4] = 0;
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
    /* An abandoned game: ABANDONED in the winner's column, read back */
    r.winner = AW_TEAM_NONE;
    r.abandoned = true;
    aw_buf_clear(&b);
    aw_record_format(&r, &b);
    CHECK(strstr(b.data, "\tABANDONED\t3\t") != NULL);
    CHECK_INT(aw_record_parse(b.data, b.len - 1, 3, &q, &err), 0);
    CHECK(memcmp(&r, &q, sizeof r) == 0);
    r.abandoned = false;
    r.winner = AW_TEAM_WEREWOLF;
    aw_buf_clear(&b);
    aw_record_format(&r, &b);
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

/* A game of 5 seats: entries per seat, the winner, faults of one seat. */
static void add_game(aw_contest_stats *st, const int *entry, aw_team winner, int faulty_seat)
{
    static const int role_count[AW_NROLES] = {0};
    aw_game_record *r = aw_xcalloc(1, sizeof *r);
    r->players = 5;
    aw_role roles[] = {AW_ROLE_NONE, AW_SEER, AW_WEREWOLF, AW_VILLAGER, AW_POSSESSED, AW_VILLAGER};
    for (int a = 1; a <= 5; a++) {
        r->entry[a] = entry[a - 1];
        r->role[a] = roles[a];
        r->calls[a] = 10;
    }
    r->winner = winner;
    if (faulty_seat)
        r->faults[faulty_seat][AW_FAULT_ERROR] = 10;
    aw_contest_stats_add(st, r, role_count);
    free(r);
}

/* Games and seats, the fault policy, shared ranks, what the report says. */
static void test_ranking(void)
{
    aw_fault_policy p;
    aw_error err;
    CHECK_INT(aw_fault_policy_parse(AW_FAULT_POLICY_DEFAULT, &p, &err), 0);
    CHECK(p.thresholds && fabs(p.max_calls - 0.05) < 1e-12 && fabs(p.max_games - 0.5) < 1e-12);
    CHECK_INT(aw_fault_policy_parse("games=0.2", &p, &err), 0);
    CHECK(p.max_calls == 1 && fabs(p.max_games - 0.2) < 1e-12);
    char buf[64];
    aw_fault_policy_format(&p, buf, sizeof buf);
    CHECK_STR(buf, "calls=100%,games=20%");
    CHECK_INT(aw_fault_policy_parse("none", &p, &err), 0);
    CHECK(!p.thresholds);
    const char *badp[] = {"", "calls", "calls=", "calls=101%", "calls=-1%", "calls=5%,calls=6%", "seats=5%",
                          "calls=5%,games=50%,x=1", "calls=5x"};
    for (size_t i = 0; i < sizeof badp / sizeof *badp; i++)
        CHECK_MSG(aw_fault_policy_parse(badp[i], &p, &err) < 0, "'%s' parsed", badp[i]);

    /* Four entries at five seats: entry 0 holds two seats of every game. */
    aw_contest_stats st;
    aw_contest_stats_init(&st, 5);
    const int g1[] = {0, 0, 1, 2, 3}, g2[] = {0, 1, 0, 2, 3}, g3[] = {0, 4, 1, 2, 0};
    add_game(&st, g1, AW_TEAM_VILLAGER, 5); /* seats 1, 3, 5 win (seer, villagers); entry 3 (seat 5) faults */
    add_game(&st, g2, AW_TEAM_WEREWOLF, 0); /* seats 2 and 4 win */
    add_game(&st, g3, AW_TEAM_VILLAGER, 0);
    /* zed 3 of 6 seats, amy 3/3, bob 1/3, cat 1/2, dan 0/1 */
    CHECK_INT(st.e[0].games, 3);
    CHECK_INT(st.e[0].seats, 6);
    CHECK_INT(st.e[0].wins, 3);
    CHECK_INT(st.e[1].wins, 3);
    CHECK_INT(st.e[2].wins, 1);
    CHECK_INT(st.e[0].wr.games, 3);
    CHECK_INT(st.e[1].games, 3);
    CHECK_INT(st.e[1].seats, 3);
    CHECK_INT(st.e[4].games, 1);
    CHECK_INT(st.e[3].faulty_games, 1);
    CHECK_INT(st.meet[0 * 5 + 1], 3); /* games together, not pairs of seats */
    /* entry 3: 10 faulty calls of 20, in 1 game of 2: not ranked by the
     * default policy (calls), ranked by games=60% alone */
    const char *names[] = {"zed", "amy", "bob", "cat", "dan"};
    const char *paths[] = {"z", "a", "b", "c", "d"};
    aw_contest_info ci;
    memset(&ci, 0, sizeof ci);
    int players[] = {5};
    ci.format = "seed2015";
    ci.players = players;
    ci.nplayers = 1;
    ci.names = names;
    ci.paths = paths;
    int order[5], rank[5];
    int nok = aw_contest_rank(&st, &ci, order, rank);
    CHECK_INT(nok, 4);
    char why[200];
    CHECK_INT(order[4], 3);
    CHECK_INT(rank[4], 0);
    CHECK_INT(order[0], 1); /* amy, zed, bob, dan */
    CHECK_INT(order[1], 0);
    CHECK_INT(order[2], 2);
    CHECK_INT(order[3], 4);
    for (int k = 1; k < nok; k++) {
        const aw_entry_stats *x = &st.e[order[k - 1]], *y = &st.e[order[k]];
        CHECK((double)x->wins / x->seats >= (double)y->wins / y->seats);
        bool tie = x->wins * y->seats == y->wins * x->seats;
        CHECK(tie ? rank[k] == rank[k - 1] : rank[k] == k + 1);
        if (tie)
            CHECK(strcmp(names[order[k - 1]], names[order[k]]) < 0);
    }
    aw_fault_policy games_only;
    CHECK_INT(aw_fault_policy_parse("games=60%", &games_only, &err), 0);
    ci.policy = &games_only;
    CHECK_INT(aw_contest_rank(&st, &ci, order, rank), 5);
    ci.policy = NULL;
    /* The report: the tie, the entry apart with its reason. */
    char *md = NULL;
    size_t mdlen = 0;
    FILE *f = open_memstream(&md, &mdlen);
    aw_report rep = {.stats = &st, .names = ci.names, .ctx = &ci};
    CHECK_INT(aw_report_writer_find(aw_contest_writers, "md")->write(&rep, f), 0);
    fclose(f);
    CHECK(strstr(md, "Not ranked:") && strstr(md, "| cat | 10 of its 20 calls faulted"));
    CHECK(strstr(md, "| 1 | amy | 3 | 3 | 3 |"));
    CHECK(strstr(md, "no further tie-break"));
    free(md);
    aw_contest_stats_free(&st);

    /* A tie: two entries with the same rate share the rank, the next one
     * skips; an entry that answered no call is never ranked, whatever the
     * policy. */
    aw_contest_stats t;
    aw_contest_stats_init(&t, 4);
    const int h1[] = {0, 1, 2, 3, 3}, h2[] = {1, 0, 3, 2, 3};
    add_game(&t, h1, AW_TEAM_VILLAGER, 0); /* seats 1, 3, 5 win: entries 0, 2, 3 */
    add_game(&t, h2, AW_TEAM_VILLAGER, 0); /* entries 1, 3, 3 */
    t.e[3].faults[AW_FAULT_LOST] = t.e[3].calls; /* as if none of its calls was answered */
    aw_fault_policy none;
    aw_fault_policy_parse("none", &none, &err);
    ci.policy = &none;
    nok = aw_contest_rank(&t, &ci, order, rank);
    CHECK_INT(nok, 3);
    CHECK_INT(order[3], 3);
    CHECK(aw_contest_eligible(&t, 3, &none, why, sizeof why) == false && strstr(why, "does not load"));
    /* amy, bob and zed 1 of 2 each: all share rank 1, listed by name (cat,
     * 3 of 4, is not ranked) */
    CHECK_INT(rank[0], 1);
    CHECK_INT(rank[1], 1);
    CHECK_INT(rank[2], 1);
    CHECK_INT(order[0], 1);
    CHECK_INT(order[1], 2);
    CHECK_INT(order[2], 0);
    aw_buf json;
    aw_buf_init(&json);
    aw_contest_write_json(&t, &ci, &json);
    aw_buf_addc(&json, 0);
    CHECK(strstr(json.data, "\"rank\": 1, \"rank_label\": \"1=\", \"name\": \"amy\""));
    CHECK(strstr(json.data, "\"not_ranked\": [\n    {\"why\": \"does not load"));
    aw_buf_free(&json);
    aw_contest_stats_free(&t);
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

/* A name in report.md's tables: no cell break, no HTML, no raw control. */
static void test_md_text(void)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    aw_contest_md_text(f, "<!--a|b&#x202e;\x1b[2J-->");
    fclose(f);
    CHECK_STR(buf, "\\<!--a\\|b\\&#x202e;\\e[2J-->");
    free(buf);
}

int main(void)
{
    test_schedules();
    test_records();
    test_ranking();
    test_numbers();
    test_md_text();
    return test_done();
}
