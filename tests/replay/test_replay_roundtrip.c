/* Our own games replay exactly too, under every preset and under single
 * setting changes: games between careful random and erratic C players
 * (invalid talk, invalid targets, ties, dropped attack votes) are logged,
 * and the replay of each log under the same rules must write the same bytes
 * and answer every request from the log. This covers what the official
 * logs do not: seed 2015 talk rounds with whispers after each round, random
 * substitutes for invalid night actions, the regulation's quiet-turn rule,
 * whispers before an attack revote, first-day talk, no-attack and
 * no-execution. A replay under other rules than the game's must differ.
 * Under the sanitizers (AIWOLF_SANITIZED=1) a quarter of the games run. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cseat.h"
#include "game.h"
#include "logreplay.h"
#include "test.h"
#include "c_game.h"

/* Plays one game and returns its CSV log (caller frees). */
static char *play(const aw_settings *set, uint64_t seed, size_t *len)
{
    aw_seat *seats[AW_MAX_PLAYERS + 1];
    for (int a = 1; a <= set->players; a++)
        seats[a] = (a + (int)seed) % 3 ? aw_cseat_chaos(seed * 31 + (uint64_t)a)
                                       : aw_cseat_random(seed * 17 + (uint64_t)a);
    char *buf = NULL;
    *len = 0;
    FILE *csv = open_memstream(&buf, len);
    aw_game_result res;
    aw_error err;
    int rc = c_game_play(set, seed, seats, c_game_validate, csv, &res, &err);
    CHECK_MSG(rc == 0, "game failed to start: %s", err.msg);
    fclose(csv);
    for (int a = 1; a <= set->players; a++)
        seats[a]->ops->free(seats[a]);
    return buf;
}

static long games, reproduced, ambiguous;

static void roundtrip(const char *preset, const char *override, int players, int count, uint64_t first_seed)
{
    aw_settings set;
    aw_error err;
    CHECK(aw_settings_preset(&set, preset, players, &err) == 0);
    if (override)
        CHECK_MSG(aw_settings_set(&set, override, &err) == 0, "%s", err.msg);
    int failed = 0;
    for (int i = 0; i < count; i++) {
        uint64_t seed = first_seed + (uint64_t)i;
        size_t len;
        char *csv = play(&set, seed, &len);
        aw_replay_report rep;
        int v = aw_replay(csv, len, &set, NULL, &rep, &err);
        games++;
        if (v == AW_REPLAY_REPRODUCED && rep.ours_lines == rep.lines) {
            reproduced++;
            ambiguous += rep.ambiguous_nights;
        } else if (++failed <= 3) {
            CHECK_MSG(0, "%s %s %dp seed %llu: verdict %d, line %ld: ours \"%s\" official \"%s\"; %s (line %ld) %s",
                      preset, override ? override : "", players, (unsigned long long)seed, v, rep.diff_line, rep.ours,
                      rep.theirs, rep.problem, rep.problem_line, rep.error);
        } else {
            test_checks++;
            test_failures++;
        }
        free(csv);
    }
}

/* A log replayed under other rules than it was played by differs. */
static void other_rules(void)
{
    aw_settings set, other;
    aw_error err;
    aw_settings_preset(&set, "aiwolf", 5, &err);
    other = set;
    aw_settings_set(&other, "max_talk=3", &err);
    int differ = 0;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        size_t len;
        char *csv = play(&set, seed, &len);
        aw_replay_report rep;
        if (aw_replay(csv, len, &other, NULL, &rep, &err) == AW_REPLAY_DIFFERS)
            differ++;
        free(csv);
    }
    /* Some games never reach three real talks per agent; most do. */
    CHECK_MSG(differ >= 10, "only %d of 20 games differ under max_talk=3", differ);
}

int main(void)
{
    int scale = getenv("AIWOLF_SANITIZED") ? 4 : 1;
    static const struct {
        const char *preset, *set;
        int players;
    } cases[] = {
        {"aiwolf", NULL, 5},
        {"aiwolf", NULL, 15},
        {"aiwolf", NULL, 9},
        {"aiwolf", NULL, 18},
        {"seed2015", NULL, 5},
        {"seed2015", NULL, 15},
        {"regulation", NULL, 5},
        {"regulation", NULL, 15},
        {"aiwolf", "max_attack_revote=3", 15},
        {"aiwolf", "whisper_before_revote=true", 15},
        {"aiwolf", "enable_no_attack=true", 15},
        {"aiwolf", "enable_no_execution=true", 9},
        {"aiwolf", "talk_on_first_day=true", 12},
        {"aiwolf", "max_revote=0", 10},
        {"aiwolf", "max_skip=0", 5},
        {"aiwolf", "invalid_attack=random", 15},
        {"aiwolf", "invalid_guard=random", 10},
        {"aiwolf", "invalid_divine=random", 10},
        {"aiwolf", "whisper_single_wolf=true", 10},
        {"aiwolf", "validation=off", 5},
        {"seed2015", "whisper_before_revote=true", 15},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        roundtrip(cases[i].preset, cases[i].set, cases[i].players, 200 / scale, 1000 * (uint64_t)i + 1);
    other_rules();
    printf("%ld of %ld games of our own replayed byte for byte (%ld ambiguous attack-vote nights)\n", reproduced,
           games, ambiguous);
    return test_done();
}
