/* summary: a match's tally in its formats — the table aw_tally_writers
 * (text, json, csv; see match.h). */
#include "match.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "jsonw.h"

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

/* The head-to-head difference (entry 0 minus entry 1, in win rate: -1..1
 * per pair) and its 95 % interval over the pairs (winrate.h's
 * aw_mean_interval); the return says why there is none, NULL when there is. */
static const char *pair_interval(const aw_tally *t, double *mean, double *lo, double *hi)
{
    int why = aw_mean_interval(t->pairs, t->pair_sum, t->pair_sumsq, -1, 1, mean, lo, hi);
    return why == AW_MEAN_FEW    ? "fewer than two pairs"
           : why == AW_MEAN_SAME ? "every pair gave the same difference"
                                 : NULL;
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
    if (t->st.no_winner > t->st.abandoned)
        fprintf(out, "%-10s %8ld %6.1f%%  (the day limit, max_days, ended them)\n", "no winner",
                t->st.no_winner - t->st.abandoned, 100.0 * (t->st.no_winner - t->st.abandoned) / played);
    if (t->st.abandoned)
        fprintf(out, "%-10s %8ld %6.1f%%  (too many agents failed: in no win rate below)\n", "abandoned",
                t->st.abandoned, 100.0 * t->st.abandoned / played);
    fprintf(out, "\n%-10s %8s %8s %7s\n", "role", "seats", "won", "rate");
    for (int r = 0; r < AW_NROLES; r++)
        if (t->st.role_games[r])
            fprintf(out, "%-10s %8ld %8ld %6.1f%%\n", aw_role_name((aw_role)r), t->st.role_games[r], t->st.role_wins[r],
                    100.0 * t->st.role_wins[r] / t->st.role_games[r]);
    bool with_version = versions_differ(t);
    int lw = label_width(t, entry_names, with_version);
    fprintf(out, "\n%-*s %6s %8s %8s %7s  %-15s  %s\n", lw, with_version ? "agent@version" : "agent", "games", "seats",
            "won", "rate", "95% interval", "faults: error/timeout/memory/reply/lost");
    for (int i = 0; i < t->st.nrows; i++) {
        const aw_stat_row *r = &t->st.e[i];
        char label[LABEL_MAX + 8], ci[32];
        row_label(r, entry_names, with_version, label, sizeof label);
        double lo, hi;
        aw_winrate_interval(&r->wr, &lo, &hi);
        snprintf(ci, sizeof ci, "%.1f-%.1f%%", 100 * lo, 100 * hi);
        fprintf(out, "%-*s %6ld %8ld %8ld %6.1f%%  %-15s  %ld/%ld/%ld/%ld/%ld\n", lw, label, r->games, r->seats, r->wins,
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
        double mean, lo, hi;
        const char *none = pair_interval(t, &mean, &lo, &hi);
        char ci[96];
        if (none)
            snprintf(ci, sizeof ci, "no interval can be given: %s", none);
        else
            snprintf(ci, sizeof ci, "95%% interval %+.1f to %+.1f", 100 * lo, 100 * hi);
        fprintf(out, "\nhead to head over %ld mirrored pair%s of games: %s wins %+.1f points (%s) against %s%s\n",
                t->pairs, t->pairs == 1 ? "" : "s", entry_names[0], 100 * mean, ci, entry_names[1],
                !none && lo > 0   ? ": better"
                : !none && hi < 0 ? ": worse"
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
    if (t->st.abandoned)
        aw_json_kint(&b, ", ", "abandoned", t->st.abandoned);
    aw_json_kint(&b, "}, ", "faults", t->st.fault_calls);
    aw_buf_adds(&b, ",\n \"agents\": [");
    for (int i = 0; i < t->st.nrows; i++) {
        const aw_stat_row *r = &t->st.e[i];
        double lo, hi;
        aw_winrate_interval(&r->wr, &lo, &hi);
        aw_json_kstr(&b, i ? ",\n  {" : "\n  {", "agent", entry_names[r->entry]);
        aw_json_kstr(&b, ", ", "version", r->version);
        aw_json_kint(&b, ", ", "games", r->games);
        aw_json_kint(&b, ", ", "seats", r->seats);
        aw_json_kint(&b, ", ", "wins", r->wins);
        aw_json_knum(&b, ", ", "win_rate", r->seats ? (double)r->wins / (double)r->seats : 0.0, 6);
        aw_json_knum(&b, ", ", "ci_low", lo, 6);
        aw_json_knum(&b, ", ", "ci_high", hi, 6);
        aw_buf_adds(&b, ", \"by_role\": {");
        bool comma = false;
        for (int k = 0; k < AW_NROLES; k++)
            if (r->role_games[k]) {
                aw_json_key(&b, comma ? ", " : NULL, aw_role_name((aw_role)k));
                aw_json_kint(&b, "{", "seats", r->role_games[k]);
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
        double mean, lo, hi;
        const char *none = pair_interval(t, &mean, &lo, &hi);
        aw_json_kint(&b, ",\n \"head_to_head\": {", "pairs", t->pairs);
        aw_json_knum(&b, ", ", "difference", mean, 6);
        if (none) { /* no interval: null bounds and why */
            aw_buf_adds(&b, ", \"ci_low\": null, \"ci_high\": null");
            aw_json_kstr(&b, ", ", "no_interval", none);
        } else {
            aw_json_knum(&b, ", ", "ci_low", lo, 6);
            aw_json_knum(&b, ", ", "ci_high", hi, 6);
        }
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
    fprintf(out, "agent,version,games,seats,wins,win_rate,ci_low,ci_high");
    for (int k = 0; k < AW_NROLES; k++)
        fprintf(out, ",%s_seats,%s_wins", aw_role_name((aw_role)k), aw_role_name((aw_role)k));
    fprintf(out, ",faults_error,faults_timeout,faults_memory,faults_reply,faults_lost\n");
    for (int i = 0; i < t->st.nrows; i++) {
        const aw_stat_row *r = &t->st.e[i];
        double lo, hi;
        aw_winrate_interval(&r->wr, &lo, &hi);
        aw_csv_field(out, entry_names[r->entry]);
        fprintf(out, ",%s,%ld,%ld,%ld,%.6f,%.6f,%.6f", r->version, r->games, r->seats, r->wins,
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
