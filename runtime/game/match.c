/* match: many games between the same seats (see match.h). */
#include "match.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void aw_tally_init(aw_tally *t, int nentries)
{
    memset(t, 0, sizeof *t);
    t->nentries = nentries;
    t->entry_games = aw_xcalloc((size_t)nentries, sizeof(int));
    t->entry_wins = aw_xcalloc((size_t)nentries, sizeof(int));
}

void aw_tally_free(aw_tally *t)
{
    free(t->entry_games);
    free(t->entry_wins);
    free(t->rows);
    t->entry_games = t->entry_wins = NULL;
    t->rows = NULL;
    t->nrows = t->caprows = 0;
}

/* The row of an entry in a version, made when first seen; rows stay sorted
 * by entry (versions in the order they appeared). */
static aw_tally_row *row_of(aw_tally *t, int entry, const char *version)
{
    char v[sizeof t->rows[0].version];
    snprintf(v, sizeof v, "%s", version ? version : "");
    int at = t->nrows;
    for (int i = 0; i < t->nrows; i++) {
        if (t->rows[i].entry == entry && strcmp(t->rows[i].version, v) == 0)
            return &t->rows[i];
        if (t->rows[i].entry > entry && at == t->nrows)
            at = i;
    }
    if (t->nrows == t->caprows) {
        t->caprows = t->caprows ? t->caprows * 2 : 8;
        t->rows = aw_xrealloc(t->rows, (size_t)t->caprows * sizeof *t->rows);
    }
    memmove(t->rows + at + 1, t->rows + at, (size_t)(t->nrows - at) * sizeof *t->rows);
    t->nrows++;
    aw_tally_row *r = &t->rows[at];
    memset(r, 0, sizeof *r);
    r->entry = entry;
    memcpy(r->version, v, sizeof v);
    return r;
}

void aw_tally_add(aw_tally *t, const aw_game_result *res, int players, const int *entry_of,
                  const char *const *version_of)
{
    t->played++;
    t->faults += res->faults;
    if (res->winner >= 0 && res->winner < 3)
        t->team_wins[res->winner]++;
    else
        t->draws++;
    for (int a = 1; a <= players; a++) {
        bool won = aw_role_team(res->role[a]) == res->winner;
        t->role_games[res->role[a]]++;
        t->role_wins[res->role[a]] += won;
        int e = entry_of[a];
        if (e >= 0 && e < t->nentries) {
            t->entry_games[e]++;
            t->entry_wins[e] += won;
            aw_tally_row *r = row_of(t, e, version_of ? version_of[a] : NULL);
            r->games++;
            r->wins += won;
            r->role_games[res->role[a]]++;
            r->role_wins[res->role[a]] += won;
            for (int k = 0; k <= AW_FAULT_LOST; k++)
                r->faults[k] += res->seat_faults[a][k];
        }
    }
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
    for (int i = 1; i < t->nrows; i++)
        if (t->rows[i].entry == t->rows[i - 1].entry)
            return true;
    return false;
}

#define LABEL_MAX 60

/* A row's name: the agent's file (its end, when long) and, when versions
 * differ, @ and the version. */
static void row_label(const aw_tally_row *r, const char *const *names, bool with_version, char *buf, size_t n)
{
    char v[16] = "";
    if (with_version && r->version[0])
        snprintf(v, sizeof v, "@%.8s", r->version);
    const char *name = names[r->entry];
    size_t room = LABEL_MAX - strlen(v), len = strlen(name);
    if (len > room)
        snprintf(buf, n, "...%.*s%.15s", (int)(room - 3), name + len - (room - 3), v);
    else
        snprintf(buf, n, "%.*s%.15s", (int)len, name, v);
}

static int label_width(const aw_tally *t, const char *const *names, bool with_version)
{
    int w = 24;
    for (int i = 0; i < t->nrows; i++) {
        char label[LABEL_MAX + 8];
        row_label(&t->rows[i], names, with_version, label, sizeof label);
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

void aw_tally_print(const aw_tally *t, FILE *out, const aw_settings *set, uint64_t first_seed,
                    const char *const *entry_names)
{
    long played = t->played;
    double secs = t->secs;
    uint64_t last_seed = first_seed + (uint64_t)(t->pairs ? (played + 1) / 2 : played) - 1;
    fprintf(out, "%ld games of %d players (preset %s, seeds %llu..%llu) in %.2f s: %.1f games/s\n", played,
            set->players, set->preset, (unsigned long long)first_seed, (unsigned long long)last_seed, secs,
            secs > 0 ? played / secs : 0.0);
    fprintf(out, "\n%-10s %8s %7s\n", "team", "wins", "rate");
    for (int tm = 0; tm < 2; tm++)
        fprintf(out, "%-10s %8d %6.1f%%\n", aw_team_name((aw_team)tm), t->team_wins[tm],
                pct(t->team_wins[tm], played));
    if (t->draws)
        fprintf(out, "%-10s %8ld %6.1f%%  (the day limit, max_days, ended them)\n", "no winner", t->draws,
                100.0 * t->draws / played);
    fprintf(out, "\n%-10s %8s %8s %7s\n", "role", "played", "won", "rate");
    for (int r = 0; r < AW_NROLES; r++)
        if (t->role_games[r])
            fprintf(out, "%-10s %8d %8d %6.1f%%\n", aw_role_name((aw_role)r), t->role_games[r], t->role_wins[r],
                    100.0 * t->role_wins[r] / t->role_games[r]);
    bool with_version = versions_differ(t);
    int lw = label_width(t, entry_names, with_version);
    fprintf(out, "\n%-*s %8s %8s %7s  %-15s  %s\n", lw, with_version ? "agent@version" : "agent", "played", "won",
            "rate", "95% interval", "faults: error/timeout/memory/reply/lost");
    for (int i = 0; i < t->nrows; i++) {
        const aw_tally_row *r = &t->rows[i];
        char label[LABEL_MAX + 8], ci[32];
        row_label(r, entry_names, with_version, label, sizeof label);
        double lo, hi;
        aw_wilson(r->wins, r->games, &lo, &hi);
        snprintf(ci, sizeof ci, "%.1f-%.1f%%", 100 * lo, 100 * hi);
        fprintf(out, "%-*s %8ld %8ld %6.1f%%  %-15s  %ld/%ld/%ld/%ld/%ld\n", lw, label, r->games, r->wins,
                pct(r->wins, r->games), ci, r->faults[AW_FAULT_ERROR], r->faults[AW_FAULT_TIMEOUT],
                r->faults[AW_FAULT_MEMORY], r->faults[AW_FAULT_REPLY], r->faults[AW_FAULT_LOST]);
    }
    /* Win rate by role, per row: only the roles of this game. */
    fprintf(out, "\n%-*s", lw, "win rate by role");
    for (int r = 0; r < AW_NROLES; r++)
        if (t->role_games[r])
            fprintf(out, " %10s", aw_role_name((aw_role)r));
    fputc('\n', out);
    for (int i = 0; i < t->nrows; i++) {
        const aw_tally_row *r = &t->rows[i];
        char label[LABEL_MAX + 8];
        row_label(r, entry_names, with_version, label, sizeof label);
        fprintf(out, "%-*s", lw, label);
        for (int k = 0; k < AW_NROLES; k++) {
            if (!t->role_games[k])
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
    fprintf(out, "\nagent faults (errors, time-outs, bad replies): %ld\n", t->faults);
}

static void json_str(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

void aw_tally_write_json(const aw_tally *t, FILE *out, const aw_settings *set, uint64_t first_seed,
                         const char *const *entry_names)
{
    fprintf(out, "{\"games\": %ld, \"players\": %d, \"preset\": ", t->played, set->players);
    json_str(out, set->preset);
    fprintf(out, ", \"first_seed\": \"%llu\", \"seconds\": %.3f, \"wins\": {\"VILLAGER\": %d, \"WEREWOLF\": %d, "
                 "\"none\": %ld}, \"faults\": %ld,\n \"agents\": [",
            (unsigned long long)first_seed, t->secs, t->team_wins[0], t->team_wins[1], t->draws, t->faults);
    for (int i = 0; i < t->nrows; i++) {
        const aw_tally_row *r = &t->rows[i];
        double lo, hi;
        aw_wilson(r->wins, r->games, &lo, &hi);
        fprintf(out, "%s\n  {\"agent\": ", i ? "," : "");
        json_str(out, entry_names[r->entry]);
        fprintf(out, ", \"version\": ");
        json_str(out, r->version);
        fprintf(out, ", \"games\": %ld, \"wins\": %ld, \"win_rate\": %.6f, \"ci_low\": %.6f, \"ci_high\": %.6f, "
                     "\"by_role\": {",
                r->games, r->wins, r->games ? (double)r->wins / (double)r->games : 0.0, lo, hi);
        bool comma = false;
        for (int k = 0; k < AW_NROLES; k++)
            if (r->role_games[k]) {
                fprintf(out, "%s\"%s\": {\"games\": %ld, \"wins\": %ld}", comma ? ", " : "", aw_role_name((aw_role)k),
                        r->role_games[k], r->role_wins[k]);
                comma = true;
            }
        fprintf(out, "}, \"faults\": {\"error\": %ld, \"timeout\": %ld, \"memory\": %ld, \"reply\": %ld, \"lost\": %ld}}",
                r->faults[AW_FAULT_ERROR], r->faults[AW_FAULT_TIMEOUT], r->faults[AW_FAULT_MEMORY],
                r->faults[AW_FAULT_REPLY], r->faults[AW_FAULT_LOST]);
    }
    fprintf(out, "\n ]");
    if (t->pairs) {
        double mean, half;
        pair_interval(t, &mean, &half);
        fprintf(out, ",\n \"head_to_head\": {\"pairs\": %ld, \"difference\": %.6f, \"ci_low\": %.6f, \"ci_high\": %.6f}",
                t->pairs, mean, mean - half, mean + half);
    }
    fprintf(out, "\n}\n");
}

static void csv_str(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

void aw_tally_write_csv(const aw_tally *t, FILE *out, const char *const *entry_names)
{
    fprintf(out, "agent,version,games,wins,win_rate,ci_low,ci_high");
    for (int k = 0; k < AW_NROLES; k++)
        fprintf(out, ",%s_games,%s_wins", aw_role_name((aw_role)k), aw_role_name((aw_role)k));
    fprintf(out, ",faults_error,faults_timeout,faults_memory,faults_reply,faults_lost\n");
    for (int i = 0; i < t->nrows; i++) {
        const aw_tally_row *r = &t->rows[i];
        double lo, hi;
        aw_wilson(r->wins, r->games, &lo, &hi);
        csv_str(out, entry_names[r->entry]);
        fprintf(out, ",%s,%ld,%ld,%.6f,%.6f,%.6f", r->version, r->games, r->wins,
                r->games ? (double)r->wins / (double)r->games : 0.0, lo, hi);
        for (int k = 0; k < AW_NROLES; k++)
            fprintf(out, ",%ld,%ld", r->role_games[k], r->role_wins[k]);
        fprintf(out, ",%ld,%ld,%ld,%ld,%ld\n", r->faults[AW_FAULT_ERROR], r->faults[AW_FAULT_TIMEOUT],
                r->faults[AW_FAULT_MEMORY], r->faults[AW_FAULT_REPLY], r->faults[AW_FAULT_LOST]);
    }
}

/* The game's call hook during a match: passes every call on to the
 * caller's hook and reports each entry's first fault in each version. */
typedef struct match_calls {
    const aw_match_opts *o;
    aw_seat **seats;
    const int *entry_of;
    long gno;
    char (*seen)[24]; /* "entry:version" keys already reported */
    int nseen, capseen;
} match_calls;

static void match_call(void *ud, int agent, aw_req_kind kind, uint64_t ns, const aw_seat_fault *f)
{
    match_calls *mc = ud;
    if (mc->o->game.call)
        mc->o->game.call(mc->o->game.call_ud, agent, kind, ns, f);
    if (!f || !mc->o->first_fault || agent < 1 || agent > AW_MAX_PLAYERS)
        return;
    aw_seat *s = mc->seats[agent];
    const char *v = s->ops->version ? s->ops->version(s) : NULL;
    char key[24];
    snprintf(key, sizeof key, "%d:%.16s", mc->entry_of[agent], v ? v : "");
    for (int i = 0; i < mc->nseen; i++)
        if (strcmp(mc->seen[i], key) == 0)
            return;
    if (mc->nseen == mc->capseen) {
        mc->capseen = mc->capseen ? mc->capseen * 2 : 8;
        mc->seen = aw_xrealloc(mc->seen, (size_t)mc->capseen * sizeof *mc->seen);
    }
    memcpy(mc->seen[mc->nseen++], key, sizeof key);
    mc->o->first_fault(mc->o->ud, mc->gno, mc->entry_of[agent], v, agent, kind, f);
}

int aw_match_run(const aw_match_opts *o, aw_seat **seats, aw_tally *t, aw_error *err)
{
    match_calls mc = {.o = o};
    uint64_t t0 = aw_now_ns(), last_progress = t0;
    double secs0 = t->secs;
    int status = AW_MATCH_DONE;
    long pair_games[2] = {0, 0}, pair_wins[2] = {0, 0};
    for (long gno = 0; gno < o->games; gno++) {
        if (o->stop && *o->stop) {
            status = AW_MATCH_INTERRUPTED;
            break;
        }
        aw_game_opts go = o->game;
        /* Head to head: pairs of games on one seed, the second mirrored. */
        bool mirrored = o->mirror && gno % 2 == 1;
        aw_seat **gseats = mirrored ? o->mirror : seats;
        const int *eof = mirrored ? o->mirror_entry_of : o->entry_of;
        go.seed = o->game.seed + (uint64_t)(o->mirror ? gno / 2 : gno);
        mc.seats = gseats;
        mc.entry_of = eof;
        mc.gno = gno;
        go.call = match_call;
        go.call_ud = &mc;
        go.game_no = (int)gno;
        go.log = NULL;
        if (o->before && o->before(o->ud, gno, go.seed, &go.log) < 0) {
            status = AW_MATCH_STOPPED;
            break;
        }
        aw_game_result res;
        int prc = aw_game_play(&go, gseats, &res, err);
        if (o->after && o->after(o->ud, gno, go.log) < 0)
            t->output_errors++;
        if (prc < 0) {
            status = AW_MATCH_FAILED;
            break;
        }
        const char *versions[AW_MAX_PLAYERS + 1] = {0};
        for (int a = 1; a <= go.settings->players; a++)
            if (gseats[a]->ops->version)
                versions[a] = gseats[a]->ops->version(gseats[a]);
        aw_tally_add(t, &res, go.settings->players, eof, versions);
        if (o->mirror) {
            /* Entry 0's win rate minus entry 1's, over the pair. */
            for (int a = 1; a <= go.settings->players; a++) {
                bool won = aw_role_team(res.role[a]) == res.winner;
                pair_games[eof[a] == 0 ? 0 : 1]++;
                pair_wins[eof[a] == 0 ? 0 : 1] += won;
            }
            if (mirrored) {
                double d = (double)pair_wins[0] / (double)(pair_games[0] ? pair_games[0] : 1) -
                           (double)pair_wins[1] / (double)(pair_games[1] ? pair_games[1] : 1);
                t->pairs++;
                t->pair_sum += d;
                t->pair_sumsq += d * d;
                pair_games[0] = pair_games[1] = pair_wins[0] = pair_wins[1] = 0;
            }
        }
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
