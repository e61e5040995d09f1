/* match: many games between the same seats (see match.h). */
#include "match.h"

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
    t->entry_games = t->entry_wins = NULL;
}

void aw_tally_add(aw_tally *t, const aw_game_result *res, int players, const int *entry_of)
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
        }
    }
}

void aw_tally_print(const aw_tally *t, FILE *out, const aw_settings *set, uint64_t first_seed,
                    const char *const *entry_names)
{
    long played = t->played;
    double secs = t->secs;
    fprintf(out, "%ld games of %d players (preset %s, seeds %llu..%llu) in %.2f s: %.1f games/s\n", played,
            set->players, set->preset, (unsigned long long)first_seed,
            (unsigned long long)(first_seed + (uint64_t)played - 1), secs, secs > 0 ? played / secs : 0.0);
    fprintf(out, "\n%-10s %8s %7s\n", "team", "wins", "rate");
    for (int tm = 0; tm < 2; tm++)
        fprintf(out, "%-10s %8d %6.1f%%\n", aw_team_name((aw_team)tm), t->team_wins[tm],
                played ? 100.0 * t->team_wins[tm] / played : 0.0);
    if (t->draws)
        fprintf(out, "%-10s %8ld %6.1f%%  (the day limit, max_days, ended them)\n", "no winner", t->draws,
                100.0 * t->draws / played);
    fprintf(out, "\n%-10s %8s %8s %7s\n", "role", "played", "won", "rate");
    for (int r = 0; r < AW_NROLES; r++)
        if (t->role_games[r])
            fprintf(out, "%-10s %8d %8d %6.1f%%\n", aw_role_name((aw_role)r), t->role_games[r], t->role_wins[r],
                    100.0 * t->role_wins[r] / t->role_games[r]);
    fprintf(out, "\n%-30s %8s %8s %7s\n", "agent", "played", "won", "rate");
    for (int i = 0; i < t->nentries; i++)
        fprintf(out, "%-30.30s %8d %8d %6.1f%%\n", entry_names[i], t->entry_games[i], t->entry_wins[i],
                t->entry_games[i] ? 100.0 * t->entry_wins[i] / t->entry_games[i] : 0.0);
    fprintf(out, "\nagent faults (errors, time-outs, bad replies): %ld\n", t->faults);
}

int aw_match_run(const aw_match_opts *o, aw_seat **seats, aw_tally *t, aw_error *err)
{
    uint64_t t0 = aw_now_ns(), last_progress = t0;
    double secs0 = t->secs;
    int status = AW_MATCH_DONE;
    for (long gno = 0; gno < o->games; gno++) {
        if (o->stop && *o->stop) {
            status = AW_MATCH_INTERRUPTED;
            break;
        }
        aw_game_opts go = o->game;
        go.seed = o->game.seed + (uint64_t)gno;
        go.game_no = (int)gno;
        go.log = NULL;
        if (o->before && o->before(o->ud, gno, go.seed, &go.log) < 0) {
            status = AW_MATCH_STOPPED;
            break;
        }
        aw_game_result res;
        int prc = aw_game_play(&go, seats, &res, err);
        if (o->after && o->after(o->ud, gno, go.log) < 0)
            t->output_errors++;
        if (prc < 0) {
            status = AW_MATCH_FAILED;
            break;
        }
        aw_tally_add(t, &res, go.settings->players, o->entry_of);
        uint64_t now = aw_now_ns();
        t->secs = secs0 + (now - t0) / 1e9;
        if (o->progress && now - last_progress > 2000000000ull) {
            last_progress = now;
            o->progress(o->ud, t, o->games);
        }
    }
    t->secs = secs0 + (aw_now_ns() - t0) / 1e9;
    return status;
}
