/* match: many games between the same seats (see match.h). */
#include "match.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonw.h"
#include "pool.h"
#include "rng.h"

void aw_tally_init(aw_tally *t, int nentries)
{
    memset(t, 0, sizeof *t);
    aw_stats_init(&t->st, nentries, AW_STATS_BY_VERSION);
}

void aw_tally_free(aw_tally *t)
{
    aw_stats_free(&t->st);
}

void aw_tally_add(aw_tally *t, const aw_game_result *res, int players, const int *entry_of,
                  const char *const *version_of)
{
    aw_stat_game g = {.players = players, .entry = entry_of, .role = res->role, .winner = res->winner,
                      .fault_calls = res->faults, .faults = (const int(*)[AW_NFAULTS])res->seat_faults,
                      .version = version_of};
    aw_stats_add(&t->st, &g);
}

void aw_wilson(long w, long n, double *lo, double *hi)
{
    if (n <= 0) {
        *lo = 0;
        *hi = 1;
        return;
    }
    const double z = 1.959963984540054;
    double p = (double)w / (double)n, nn = (double)n;
    double den = 1 + z * z / nn;
    double centre = (p + z * z / (2 * nn)) / den;
    double half = z * sqrt(p * (1 - p) / nn + z * z / (4 * nn * nn)) / den;
    *lo = centre - half < 0 ? 0 : centre - half;
    *hi = centre + half > 1 ? 1 : centre + half;
}

static double pct(long w, long n)
{
    return n ? 100.0 * (double)w / (double)n : 0.0;
}

/* Whether an entry played in more than one version (--watch). */
static bool versions_differ(const aw_tally *t)
{
    for (int i = 1; i < t->st.nrows; i++)
        if (t->st.e[i].entry == t->st.e[i - 1].entry)
            return true;
    return false;
}

#define LABEL_MAX 60

/* A row's name: the agent's file (its end, when long) and, when versions
 * differ, @ and the version. */
static void row_label(const aw_stat_row *r, const char *const *names, bool with_version, char *buf, size_t n)
{
    char v[16] = "";
    if (with_version && r->version[0])
        snprintf(v, sizeof v, "@%.8s", r->version);
    aw_term_text safe = aw_term(names[r->entry]); /* an entry's name may hold anything: escaped */
    const char *name = safe.s;
    size_t room = LABEL_MAX - strlen(v), len = strlen(name);
    if (len > room)
        snprintf(buf, n, "...%.*s%.15s", (int)(room - 3), name + len - (room - 3), v);
    else
        snprintf(buf, n, "%.*s%.15s", (int)len, name, v);
}

static int label_width(const aw_tally *t, const char *const *names, bool with_version)
{
    int w = 24;
    for (int i = 0; i < t->st.nrows; i++) {
        char label[LABEL_MAX + 8];
        row_label(&t->st.e[i], names, with_version, label, sizeof label);
        if ((int)strlen(label) > w)
            w = (int)strlen(label);
    }
    return w;
}

/* The head-to-head difference (entry 0 minus entry 1) and its 95 %
 * interval (normal approximation over the pairs). */
static void pair_interval(const aw_tally *t, double *mean, double *half)
{
    double n = (double)t->pairs;
    *mean = t->pairs ? t->pair_sum / n : 0;
    double var = t->pairs > 1 ? (t->pair_sumsq - n * *mean * *mean) / (n - 1) : 0;
    *half = t->pairs > 1 ? 1.959963984540054 * sqrt(var > 0 ? var : 0) / sqrt(n) : 1;
}

/* The summary people read (the "text" row). */
static int tally_text(const aw_report *rep, FILE *out)
{
    const aw_tally_report *tr = rep->ctx;
    const aw_tally *t = tr->t;
    const aw_settings *set = tr->set;
    uint64_t first_seed = tr->first_seed;
    const char *const *entry_names = rep->names;
    long played = t->st.games;
    double secs = t->secs;
    uint64_t last_seed = first_seed + (uint64_t)(t->pairs ? (played + 1) / 2 : played) - 1;
    /* "1 game", "seed S" for one seed; a rate under 10 games/s with two
     * significant digits (0.5, 0.0012), never a 0.0 for games that were played */
    double rate = secs > 0 ? played / secs : 0.0;
    char seeds[64];
    if (last_seed == first_seed)
        snprintf(seeds, sizeof seeds, "seed %llu", (unsigned long long)first_seed);
    else
        snprintf(seeds, sizeof seeds, "seeds %llu..%llu", (unsigned long long)first_seed, (unsigned long long)last_seed);
    fprintf(out, "%ld game%s of %d players (preset %s, %s) in %.2f s: ", played, played == 1 ? "" : "s",
            set->players, set->preset, seeds, secs);
    fprintf(out, rate >= 10 ? "%.1f games/s\n" : "%.2g games/s\n", rate);
    fprintf(out, "\n%-10s %8s %7s\n", "team", "wins", "rate");
    for (int tm = 0; tm < 2; tm++)
        fprintf(out, "%-10s %8ld %6.1f%%\n", aw_team_name((aw_team)tm), t->st.team_wins[tm],
                pct(t->st.team_wins[tm], played));
    if (t->st.no_winner)
        fprintf(out, "%-10s %8ld %6.1f%%  (the day limit, max_days, ended them)\n", "no winner", t->st.no_winner,
                100.0 * t->st.no_winner / played);
    fprintf(out, "\n%-10s %8s %8s %7s\n", "role", "played", "won", "rate");
    for (int r = 0; r < AW_NROLES; r++)
        if (t->st.role_games[r])
            fprintf(out, "%-10s %8ld %8ld %6.1f%%\n", aw_role_name((aw_role)r), t->st.role_games[r], t->st.role_wins[r],
                    100.0 * t->st.role_wins[r] / t->st.role_games[r]);
    bool with_version = versions_differ(t);
    int lw = label_width(t, entry_names, with_version);
    fprintf(out, "\n%-*s %8s %8s %7s  %-15s  %s\n", lw, with_version ? "agent@version" : "agent", "played", "won",
            "rate", "95% interval", "faults: error/timeout/memory/reply/lost");
    for (int i = 0; i < t->st.nrows; i++) {
        const aw_stat_row *r = &t->st.e[i];
        char label[LABEL_MAX + 8], ci[32];
        row_label(r, entry_names, with_version, label, sizeof label);
        double lo, hi;
        aw_winrate_interval(&r->wr, &lo, &hi);
        snprintf(ci, sizeof ci, "%.1f-%.1f%%", 100 * lo, 100 * hi);
        fprintf(out, "%-*s %8ld %8ld %6.1f%%  %-15s  %ld/%ld/%ld/%ld/%ld\n", lw, label, r->seats, r->wins,
                pct(r->wins, r->seats), ci, r->faults[AW_FAULT_ERROR], r->faults[AW_FAULT_TIMEOUT],
                r->faults[AW_FAULT_MEMORY], r->faults[AW_FAULT_REPLY], r->faults[AW_FAULT_LOST]);
    }
    /* Win rate by role, per row: only the roles of this game. */
    fprintf(out, "\n%-*s", lw, "win rate by role");
    for (int r = 0; r < AW_NROLES; r++)
        if (t->st.role_games[r])
            fprintf(out, " %10s", aw_role_name((aw_role)r));
    fputc('\n', out);
    for (int i = 0; i < t->st.nrows; i++) {
        const aw_stat_row *r = &t->st.e[i];
        char label[LABEL_MAX + 8];
        row_label(r, entry_names, with_version, label, sizeof label);
        fprintf(out, "%-*s", lw, label);
        for (int k = 0; k < AW_NROLES; k++) {
            if (!t->st.role_games[k])
                continue;
            if (r->role_games[k])
                fprintf(out, " %9.1f%%", pct(r->role_wins[k], r->role_games[k]));
            else
                fprintf(out, " %10s", "-");
        }
        fputc('\n', out);
    }
    if (t->pairs) {
        double mean, half;
        pair_interval(t, &mean, &half);
        fprintf(out,
                "\nhead to head over %ld mirrored pairs of games: %s wins %+.1f points (95%% interval %+.1f to "
                "%+.1f) against %s%s\n",
                t->pairs, entry_names[0], 100 * mean, 100 * (mean - half), 100 * (mean + half), entry_names[1],
                mean - half > 0   ? ": better"
                : mean + half < 0 ? ": worse"
                                  : ": no clear difference yet");
    }
    fprintf(out, "\nagent faults (errors, time-outs, bad replies): %ld\n", t->st.fault_calls);
    return ferror(out) ? -1 : 0;
}

/* The summary for tools as one JSON object (the "json" row). */
static int tally_json(const aw_report *rep, FILE *out)
{
    const aw_tally_report *tr = rep->ctx;
    const aw_tally *t = tr->t;
    const aw_settings *set = tr->set;
    uint64_t first_seed = tr->first_seed;
    const char *const *entry_names = rep->names;
    aw_buf b;
    aw_buf_init(&b);
    char seed[24];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)first_seed);
    aw_json_kint(&b, "{", "games", t->st.games);
    aw_json_kint(&b, ", ", "players", set->players);
    aw_json_kstr(&b, ", ", "preset", set->preset);
    aw_json_kstr(&b, ", ", "first_seed", seed);
    aw_json_knum(&b, ", ", "seconds", t->secs, 3);
    aw_json_kint(&b, ", \"wins\": {", "VILLAGER", t->st.team_wins[0]);
    aw_json_kint(&b, ", ", "WEREWOLF", t->st.team_wins[1]);
    aw_json_kint(&b, ", ", "none", t->st.no_winner);
    aw_json_kint(&b, "}, ", "faults", t->st.fault_calls);
    aw_buf_adds(&b, ",\n \"agents\": [");
    for (int i = 0; i < t->st.nrows; i++) {
        const aw_stat_row *r = &t->st.e[i];
        double lo, hi;
        aw_winrate_interval(&r->wr, &lo, &hi);
        aw_json_kstr(&b, i ? ",\n  {" : "\n  {", "agent", entry_names[r->entry]);
        aw_json_kstr(&b, ", ", "version", r->version);
        aw_json_kint(&b, ", ", "games", r->seats);
        aw_json_kint(&b, ", ", "wins", r->wins);
        aw_json_knum(&b, ", ", "win_rate", r->seats ? (double)r->wins / (double)r->seats : 0.0, 6);
        aw_json_knum(&b, ", ", "ci_low", lo, 6);
        aw_json_knum(&b, ", ", "ci_high", hi, 6);
        aw_buf_adds(&b, ", \"by_role\": {");
        bool comma = false;
        for (int k = 0; k < AW_NROLES; k++)
            if (r->role_games[k]) {
                aw_json_key(&b, comma ? ", " : NULL, aw_role_name((aw_role)k));
                aw_json_kint(&b, "{", "games", r->role_games[k]);
                aw_json_kint(&b, ", ", "wins", r->role_wins[k]);
                aw_buf_addc(&b, '}');
                comma = true;
            }
        aw_json_kint(&b, "}, \"faults\": {", "error", r->faults[AW_FAULT_ERROR]);
        aw_json_kint(&b, ", ", "timeout", r->faults[AW_FAULT_TIMEOUT]);
        aw_json_kint(&b, ", ", "memory", r->faults[AW_FAULT_MEMORY]);
        aw_json_kint(&b, ", ", "reply", r->faults[AW_FAULT_REPLY]);
        aw_json_kint(&b, ", ", "lost", r->faults[AW_FAULT_LOST]);
        aw_buf_adds(&b, "}}");
    }
    aw_buf_adds(&b, "\n ]");
    if (t->pairs) {
        double mean, half;
        pair_interval(t, &mean, &half);
        aw_json_kint(&b, ",\n \"head_to_head\": {", "pairs", t->pairs);
        aw_json_knum(&b, ", ", "difference", mean, 6);
        aw_json_knum(&b, ", ", "ci_low", mean - half, 6);
        aw_json_knum(&b, ", ", "ci_high", mean + half, 6);
        aw_buf_addc(&b, '}');
    }
    aw_buf_adds(&b, "\n}\n");
    fwrite(b.data, 1, b.len, out);
    aw_buf_free(&b);
    return ferror(out) ? -1 : 0;
}

/* The rows for tools as CSV: a header and a row per entry and version
 * (the "csv" row). */
static int tally_csv(const aw_report *rep, FILE *out)
{
    const aw_tally *t = ((const aw_tally_report *)rep->ctx)->t;
    const char *const *entry_names = rep->names;
    fprintf(out, "agent,version,games,wins,win_rate,ci_low,ci_high");
    for (int k = 0; k < AW_NROLES; k++)
        fprintf(out, ",%s_games,%s_wins", aw_role_name((aw_role)k), aw_role_name((aw_role)k));
    fprintf(out, ",faults_error,faults_timeout,faults_memory,faults_reply,faults_lost\n");
    for (int i = 0; i < t->st.nrows; i++) {
        const aw_stat_row *r = &t->st.e[i];
        double lo, hi;
        aw_winrate_interval(&r->wr, &lo, &hi);
        aw_csv_field(out, entry_names[r->entry]);
        fprintf(out, ",%s,%ld,%ld,%.6f,%.6f,%.6f", r->version, r->seats, r->wins,
                r->seats ? (double)r->wins / (double)r->seats : 0.0, lo, hi);
        for (int k = 0; k < AW_NROLES; k++)
            fprintf(out, ",%ld,%ld", r->role_games[k], r->role_wins[k]);
        fprintf(out, ",%ld,%ld,%ld,%ld,%ld\n", r->faults[AW_FAULT_ERROR], r->faults[AW_FAULT_TIMEOUT],
                r->faults[AW_FAULT_MEMORY], r->faults[AW_FAULT_REPLY], r->faults[AW_FAULT_LOST]);
    }
    return ferror(out) ? -1 : 0;
}

const aw_report_writer aw_tally_writers[] = {
    {"text", NULL, tally_text},
    {"json", ".json", tally_json},
    {"csv", ".csv", tally_csv},
    {NULL, NULL, NULL},
};

int aw_tally_write(const aw_report_writer *w, const aw_tally *t, FILE *out, const aw_settings *set,
                   uint64_t first_seed, const char *const *entry_names)
{
    aw_tally_report tr = {.t = t, .set = set, .first_seed = first_seed};
    aw_report rep = {.stats = &t->st, .names = entry_names, .ctx = &tr};
    return w->write(&rep, out);
}

void aw_tally_print(const aw_tally *t, FILE *out, const aw_settings *set, uint64_t first_seed,
                    const char *const *entry_names)
{
    aw_tally_write(&aw_tally_writers[0], t, out, set, first_seed, entry_names);
}

/* The game's call hook during a match: passes every call on to the
 * caller's hook and reports each entry's first fault in each version
 * (through a worker's pipe when fwd is set). */
typedef struct match_calls {
    const aw_match_opts *o;
    aw_seat **seats;
    const int *entry_of;
    long gno;
    int fwd;          /* a worker's pipe, or -1 */
    char (*seen)[24]; /* "entry:version" keys already reported */
    int nseen, capseen;
} match_calls;

/* What a worker sends back: a game's result, a first fault, its end. */
typedef struct wrec {
    char type; /* 'R', 'F', 'E' */
    long gno;
    aw_game_result res;
    char versions[AW_MAX_PLAYERS + 1][20];
    int entry, agent, status, output_errors;
    aw_req_kind kind;
    aw_seat_fault fault;
    char msg[256];
} wrec;

/* The parent's side of a run on worker processes (pool.h). */
typedef struct match_pool {
    const aw_match_opts *o;
    aw_seat **seats;
    aw_tally *t;
    aw_error *err;
    int status;
    wrec **pending; /* results waiting for an earlier game's: slot i is game next + i */
    long next, cap;
    long pair[4];
    match_calls mc; /* the first faults already passed on */
    uint64_t t0, last_progress;
    double secs0;
} match_pool;

static bool seen_before(match_calls *mc, int entry, const char *v)
{
    char key[24];
    snprintf(key, sizeof key, "%d:%.16s", entry, v ? v : "");
    for (int i = 0; i < mc->nseen; i++)
        if (strcmp(mc->seen[i], key) == 0)
            return true;
    if (mc->nseen == mc->capseen) {
        mc->capseen = mc->capseen ? mc->capseen * 2 : 8;
        mc->seen = aw_xrealloc(mc->seen, (size_t)mc->capseen * sizeof *mc->seen);
    }
    memcpy(mc->seen[mc->nseen++], key, sizeof key);
    return false;
}

static int write_rec(int fd, const wrec *r)
{
    return aw_pool_send(fd, r, sizeof *r);
}

static void match_fault(match_calls *mc, int agent, aw_req_kind kind, const aw_seat_fault *f);

static void match_call(void *ud, int agent, aw_req_kind kind, uint64_t ns, const aw_seat_fault *f)
{
    match_calls *mc = ud;
    if (mc->o->game.call)
        mc->o->game.call(mc->o->game.call_ud, agent, kind, ns, f);
    match_fault(mc, agent, kind, f);
}

/* A notification's outcome that came later (game.h's late). */
static void match_late(void *ud, int agent, const aw_seat_late *l)
{
    match_calls *mc = ud;
    if (mc->o->game.late)
        mc->o->game.late(mc->o->game.late_ud, agent, l);
    if (l->fault.kind != AW_FAULT_NONE)
        match_fault(mc, agent, l->kind, &l->fault);
}

/* The first fault of each entry's version, for first_fault. */
static void match_fault(match_calls *mc, int agent, aw_req_kind kind, const aw_seat_fault *f)
{
    if (!f || !mc->o->first_fault || agent < 1 || agent > AW_MAX_PLAYERS)
        return;
    aw_seat *s = mc->seats[agent];
    const char *v = s->ops->version ? s->ops->version(s) : NULL;
    if (seen_before(mc, mc->entry_of[agent], v))
        return;
    if (mc->fwd >= 0) {
        wrec *r = aw_xcalloc(1, sizeof *r);
        r->type = 'F';
        r->gno = mc->gno;
        r->entry = mc->entry_of[agent];
        r->agent = agent;
        r->kind = kind;
        r->fault = *f;
        snprintf(r->versions[0], sizeof r->versions[0], "%s", v ? v : "");
        write_rec(mc->fwd, r);
        free(r);
        return;
    }
    mc->o->first_fault(mc->o->ud, mc->gno, mc->entry_of[agent], v, agent, kind, f);
}

#define NUMBERS_STREAM 0x6e756d62657273ull /* "numbers": far from the seats' streams 1..18 */

void aw_match_numbers(uint64_t seed, int players, int n[AW_MAX_PLAYERS + 1])
{
    aw_rng r;
    aw_rng_seed(&r, aw_rng_derive(seed, NUMBERS_STREAM));
    n[0] = 0;
    for (int a = 1; a <= players; a++)
        n[a] = a;
    aw_rng_shuffle(&r, n + 1, players);
}

/* Game gno as played: its seed, its seats, entries and deal by agent
 * number (the caller's, put through the game's numbers). */
typedef struct seating {
    uint64_t seed;
    bool mirrored;
    aw_seat *seats[AW_MAX_PLAYERS + 1];
    int entry_of[AW_MAX_PLAYERS + 1];
    aw_role deal[AW_MAX_PLAYERS + 1];
} seating;

static void seat_game(const aw_match_opts *o, aw_seat **seats, long gno, seating *st)
{
    int n = o->game.settings->players;
    /* Head to head: pairs of games on one seed, the second mirrored. */
    st->mirrored = o->mirror && gno % 2 == 1;
    st->seed = o->game.seed + (uint64_t)(o->mirror ? gno / 2 : gno);
    aw_seat **from = st->mirrored ? o->mirror : seats;
    const int *eof = st->mirrored ? o->mirror_entry_of : o->entry_of;
    int num[AW_MAX_PLAYERS + 1];
    if (o->draw_numbers) {
        aw_match_numbers(st->seed, n, num);
    } else {
        for (int a = 0; a <= n; a++)
            num[a] = a;
    }
    memset(st->seats, 0, sizeof st->seats);
    for (int a = 0; a <= AW_MAX_PLAYERS; a++)
        st->deal[a] = AW_ROLE_NONE;
    for (int a = 1; a <= n; a++) {
        st->seats[a] = from ? from[num[a]] : NULL;
        st->entry_of[a] = eof[num[a]];
        if (o->game.deal)
            st->deal[a] = o->game.deal[num[a]];
    }
}

/* Counts game gno's result (in game order). */
static void account(const aw_match_opts *o, aw_tally *t, long gno, const aw_game_result *res,
                    const char *const *versions, long pair[4])
{
    seating st;
    seat_game(o, NULL, gno, &st);
    bool mirrored = st.mirrored;
    const int *eof = st.entry_of;
    int n = o->game.settings->players;
    aw_tally_add(t, res, n, eof, versions);
    if (!o->mirror)
        return;
    /* Entry 0's win rate minus entry 1's, over the pair. */
    for (int a = 1; a <= n; a++) {
        bool won = aw_role_team(res->role[a]) == res->winner;
        pair[eof[a] == 0 ? 0 : 1]++;
        pair[eof[a] == 0 ? 2 : 3] += won;
    }
    if (mirrored) {
        double d = (double)pair[2] / (double)(pair[0] ? pair[0] : 1) - (double)pair[3] / (double)(pair[1] ? pair[1] : 1);
        t->pairs++;
        t->pair_sum += d;
        t->pair_sumsq += d * d;
        pair[0] = pair[1] = pair[2] = pair[3] = 0;
    }
}

/* Plays game gno: 1 when done (*res filled), 0 when `before` stopped the
 * match, -1 when the game could not start. */
static int play_one(const aw_match_opts *o, aw_seat **seats, match_calls *mc, long gno, aw_game_result *res,
                    const char **versions, int *output_errors, aw_error *err)
{
    aw_game_opts go = o->game;
    seating st;
    seat_game(o, seats, gno, &st);
    aw_seat **gseats = st.seats;
    go.seed = st.seed;
    if (o->game.deal)
        go.deal = st.deal;
    mc->seats = gseats;
    mc->entry_of = st.entry_of;
    mc->gno = gno;
    go.call = match_call;
    go.call_ud = mc;
    go.late = match_late;
    go.late_ud = mc;
    go.game_no = (int)gno;
    go.log = NULL;
    if (o->before && o->before(o->ud, gno, go.seed, &go.log) < 0)
        return 0;
    int prc = aw_game_play(&go, gseats, res, err);
    mc->seats = NULL; /* st's: gone with this call */
    mc->entry_of = NULL;
    if (o->after && o->after(o->ud, gno, go.log) < 0)
        (*output_errors)++;
    if (prc < 0)
        return -1;
    for (int a = 1; a <= go.settings->players; a++)
        versions[a] = gseats[a]->ops->version ? gseats[a]->ops->version(gseats[a]) : NULL;
    return 1;
}

static int run_here(const aw_match_opts *o, aw_seat **seats, aw_tally *t, aw_error *err)
{
    match_calls mc = {.o = o, .fwd = -1};
    uint64_t t0 = aw_now_ns(), last_progress = t0;
    double secs0 = t->secs;
    int status = AW_MATCH_DONE;
    long pair[4] = {0, 0, 0, 0};
    for (long gno = 0; gno < o->games; gno++) {
        if (o->stop && *o->stop) {
            status = AW_MATCH_INTERRUPTED;
            break;
        }
        aw_game_result res;
        const char *versions[AW_MAX_PLAYERS + 1] = {0};
        int rc = play_one(o, seats, &mc, gno, &res, versions, &t->output_errors, err);
        if (rc <= 0) {
            status = rc == 0 ? AW_MATCH_STOPPED : AW_MATCH_FAILED;
            break;
        }
        account(o, t, gno, &res, versions, pair);
        uint64_t now = aw_now_ns();
        t->secs = secs0 + (now - t0) / 1e9;
        if (o->progress && now - last_progress > 2000000000ull) {
            last_progress = now;
            o->progress(o->ud, t, o->games);
        }
    }
    t->secs = secs0 + (aw_now_ns() - t0) / 1e9;
    free(mc.seen);
    return status;
}

/* In a worker, Ctrl-C (from the terminal, or passed on by the parent) only
 * asks it to stop after its game, however often it comes; the parent
 * decides when to give up. */
static volatile int *worker_stop;
static void on_worker_int(int sig)
{
    (void)sig;
    if (worker_stop)
        *worker_stop = 1;
}

/* A worker's whole life (the pool's work): every jobs-th game (pair, head
 * to head) from `first`, a record for each, then the end record. */
static void worker(void *ud, int id, int fd)
{
    const match_pool *mp = ud;
    const aw_match_opts *o = mp->o;
    match_calls mc = {.o = o, .fwd = fd};
    worker_stop = o->stop;
    signal(SIGINT, worker_stop ? on_worker_int : SIG_IGN);
    wrec *r = aw_xcalloc(1, sizeof *r);
    int status = AW_MATCH_DONE, output_errors = 0;
    aw_error err;
    memset(&err, 0, sizeof err);
    long step = o->mirror ? 2 : 1;
    for (long g0 = (long)id * step; g0 < o->games && status == AW_MATCH_DONE; g0 += (long)o->jobs * step) {
        for (long gno = g0; gno < g0 + step && gno < o->games; gno++) {
            if (gno == g0 && o->stop && *o->stop) {
                status = AW_MATCH_INTERRUPTED;
                break;
            }
            memset(r, 0, sizeof *r);
            const char *versions[AW_MAX_PLAYERS + 1] = {0};
            int rc = play_one(o, mp->seats, &mc, gno, &r->res, versions, &output_errors, &err);
            if (rc <= 0) {
                status = rc == 0 ? AW_MATCH_STOPPED : AW_MATCH_FAILED;
                break;
            }
            r->type = 'R';
            r->gno = gno;
            for (int a = 1; a <= AW_MAX_PLAYERS; a++)
                snprintf(r->versions[a], sizeof r->versions[a], "%s", versions[a] ? versions[a] : "");
            if (write_rec(fd, r) < 0) {
                status = AW_MATCH_FAILED;
                break;
            }
        }
    }
    memset(r, 0, sizeof *r);
    r->type = 'E';
    r->status = status;
    r->output_errors = output_errors;
    snprintf(r->msg, sizeof r->msg, "%.250s", err.msg);
    write_rec(fd, r);
    free(r);
    free(mc.seen);
}

/* A worker's record here (the pool's take): a first fault is passed on, a
 * game's result waits until every earlier game's has come, the end record
 * ends the worker. */
static bool take(void *ud, int id, const void *rec)
{
    (void)id;
    match_pool *mp = ud;
    const aw_match_opts *o = mp->o;
    const wrec *r = rec;
    if (r->type == 'F') {
        if (o->first_fault && !seen_before(&mp->mc, r->entry, r->versions[0]))
            o->first_fault(o->ud, r->gno, r->entry, r->versions[0][0] ? r->versions[0] : NULL, r->agent, r->kind,
                           &r->fault);
    } else if (r->type == 'E') {
        mp->t->output_errors += r->output_errors;
        if (r->status == AW_MATCH_FAILED) {
            aw_fail(mp->err, AW_EINVAL, "%s", r->msg);
            mp->status = AW_MATCH_FAILED;
        } else if (r->status == AW_MATCH_STOPPED && mp->status == AW_MATCH_DONE) {
            mp->status = AW_MATCH_STOPPED;
        } else if (r->status == AW_MATCH_INTERRUPTED && mp->status == AW_MATCH_DONE) {
            mp->status = AW_MATCH_INTERRUPTED;
        }
        return true;
    } else if (r->type == 'R' && r->gno >= mp->next) {
        while (r->gno - mp->next >= mp->cap) {
            mp->pending = aw_xrealloc(mp->pending, (size_t)mp->cap * 2 * sizeof *mp->pending);
            memset(mp->pending + mp->cap, 0, (size_t)mp->cap * sizeof *mp->pending);
            mp->cap *= 2;
        }
        wrec *k = aw_xmalloc(sizeof *k);
        *k = *r;
        /* The window starts at `next`: slot (gno - next). */
        mp->pending[r->gno - mp->next] = k;
        while (mp->pending[0]) {
            const char *versions[AW_MAX_PLAYERS + 1];
            for (int a = 0; a <= AW_MAX_PLAYERS; a++)
                versions[a] = mp->pending[0]->versions[a][0] ? mp->pending[0]->versions[a] : NULL;
            account(o, mp->t, mp->next, &mp->pending[0]->res, versions, mp->pair);
            free(mp->pending[0]);
            memmove(mp->pending, mp->pending + 1, (size_t)(mp->cap - 1) * sizeof *mp->pending);
            mp->pending[mp->cap - 1] = NULL;
            mp->next++;
        }
    }
    return false;
}

/* After every wait (the pool's tick): the time so far, and progress. */
static void tick(void *ud)
{
    match_pool *mp = ud;
    uint64_t now = aw_now_ns();
    mp->t->secs = mp->secs0 + (now - mp->t0) / 1e9;
    if (mp->o->progress && now - mp->last_progress > 2000000000ull) {
        mp->last_progress = now;
        mp->o->progress(mp->o->ud, mp->t, mp->o->games);
    }
}

static int run_workers(const aw_match_opts *o, aw_seat **seats, aw_tally *t, aw_error *err)
{
    match_pool mp = {.o = o, .seats = seats, .t = t, .err = err, .status = AW_MATCH_DONE, .cap = 64,
                     .mc = {.o = o, .fwd = -1}};
    mp.t0 = mp.last_progress = aw_now_ns();
    mp.secs0 = t->secs;
    mp.pending = aw_xcalloc((size_t)mp.cap, sizeof *mp.pending);
    aw_pool_opts po = {.jobs = o->jobs, .rec_size = sizeof(wrec), .work = worker, .take = take, .tick = tick,
                       .stop = o->stop, .ud = &mp};
    int prc = aw_pool_run(&po, err);
    int status = prc == AW_POOL_NO_START ? AW_MATCH_FAILED : mp.status;
    /* After an interruption or a failure, later games may have come before
     * earlier ones: count them too, in order. */
    for (long i = 0; i < mp.cap; i++)
        if (mp.pending[i]) {
            const char *versions[AW_MAX_PLAYERS + 1];
            for (int a = 0; a <= AW_MAX_PLAYERS; a++)
                versions[a] = mp.pending[i]->versions[a][0] ? mp.pending[i]->versions[a] : NULL;
            account(o, t, mp.next + i, &mp.pending[i]->res, versions, mp.pair);
            free(mp.pending[i]);
        }
    if (prc == AW_POOL_DIED && status == AW_MATCH_DONE) {
        aw_fail(err, AW_EIO, "a worker process died; the summary counts the games it finished");
        status = AW_MATCH_FAILED;
    }
    if (o->stop && *o->stop && status == AW_MATCH_DONE && mp.next < o->games)
        status = AW_MATCH_INTERRUPTED;
    t->secs = mp.secs0 + (aw_now_ns() - mp.t0) / 1e9;
    free(mp.pending);
    free(mp.mc.seen);
    return status;
}

int aw_match_run(const aw_match_opts *o, aw_seat **seats, aw_tally *t, aw_error *err)
{
    if (o->jobs > 1 && o->games > 1)
        return run_workers(o, seats, t, err);
    return run_here(o, seats, t, err);
}
