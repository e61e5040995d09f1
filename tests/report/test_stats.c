/* The reports' statistics model (stats.c): rows by entry and by entry and
 * version; games (distinct) apart from seats; one per-game result per row
 * for the interval; seats and wins by role, team and size; faults and
 * games with faults; the whole table; meetings; seats of no entry. */
#include <stdlib.h>

#include "stats.h"
#include "test.h"

/* A 5-player game: seats 1..5 of entries e[], roles VILLAGER x3, SEER,
 * WEREWOLF. */
static void add(aw_stats *s, const int *e, aw_team winner, const char *const *ver, int faulty_seat)
{
    aw_role role[6] = {AW_ROLE_NONE, AW_VILLAGER, AW_VILLAGER, AW_VILLAGER, AW_SEER, AW_WEREWOLF};
    int entry[6];
    int faults[6][AW_NFAULTS] = {{0}};
    for (int a = 1; a <= 5; a++)
        entry[a] = e[a - 1];
    if (faulty_seat)
        faults[faulty_seat][AW_FAULT_TIMEOUT] = 2;
    aw_stat_game g = {.players = 5, .entry = entry, .role = role, .winner = winner, .fault_calls = faulty_seat ? 2 : 0,
                      .faults = (const int(*)[AW_NFAULTS])faults, .version = ver};
    aw_stats_add(s, &g);
}

static void by_entry(void)
{
    aw_stats s;
    aw_stats_init(&s, 3, AW_STATS_BY_ENTRY);
    CHECK_INT(s.nrows, 3);
    add(&s, (int[]){0, 0, 1, 1, 0}, AW_TEAM_VILLAGER, NULL, 0); /* 0: villagers 1,2 win, wolf loses */
    add(&s, (int[]){1, 0, 0, 1, 1}, AW_TEAM_WEREWOLF, NULL, 3);
    add(&s, (int[]){0, 1, 0, 1, 0}, AW_TEAM_NONE, NULL, 0);
    CHECK_INT(s.games, 3);
    CHECK_INT(s.no_winner, 1);
    CHECK_INT(s.team_wins[AW_TEAM_VILLAGER], 1);
    CHECK_INT(s.team_wins[AW_TEAM_WEREWOLF], 1);
    CHECK_INT(s.fault_calls, 2);
    CHECK_INT(s.role_games[AW_VILLAGER], 9);
    CHECK_INT(s.role_wins[AW_VILLAGER], 3);
    const aw_stat_row *r0 = &s.e[0], *r1 = &s.e[1], *r2 = &s.e[2];
    CHECK_INT(r0->entry, 0);
    CHECK_INT(r0->games, 3);
    CHECK_INT(r0->seats, 8);
    CHECK_INT(r0->wins, 2);
    CHECK_INT(r0->wr.games, 3); /* one result per game, not per seat */
    CHECK_INT(r0->wr.seats, 8);
    CHECK_INT(r0->role_games[AW_WEREWOLF], 2);
    CHECK_INT(r0->role_wins[AW_WEREWOLF], 0);
    CHECK_INT(r0->team_games[AW_TEAM_VILLAGER], 6);
    CHECK_INT(r0->pl_games[5], 8);
    CHECK_INT(r0->faults[AW_FAULT_TIMEOUT], 2);
    CHECK_INT(r0->faulty_games, 1);
    CHECK_INT(r1->games, 3);
    CHECK_INT(r1->seats, 7);
    CHECK_INT(r1->wins, 3);
    CHECK_INT(r1->faulty_games, 0);
    CHECK_INT(r2->games, 0);
    CHECK_INT(s.meet[0 * 3 + 1], 3);
    CHECK_INT(s.meet[1 * 3 + 0], 3);
    CHECK_INT(s.meet[0 * 3 + 2], 0);
    aw_stats_free(&s);
}

static void by_version(void)
{
    aw_stats s;
    aw_stats_init(&s, 2, AW_STATS_BY_VERSION);
    CHECK_INT(s.nrows, 0);
    const char *v1[6] = {NULL, "b", "b", "a", "a", NULL};
    add(&s, (int[]){1, 1, 0, 0, -1}, AW_TEAM_VILLAGER, v1, 0); /* seat 5 of no entry */
    const char *v2[6] = {NULL, "a", "c", "a", "c", "a"};
    add(&s, (int[]){1, 1, 0, 0, 0}, AW_TEAM_WEREWOLF, v2, 0);
    /* rows by entry, versions in the order they came: 0@a 0@c 1@b 1@a 1@c */
    CHECK_INT(s.nrows, 5);
    CHECK_INT(s.e[0].entry, 0);
    CHECK_STR(s.e[0].version, "a");
    CHECK_STR(s.e[1].version, "c");
    CHECK_INT(s.e[2].entry, 1);
    CHECK_STR(s.e[2].version, "b");
    CHECK_STR(s.e[3].version, "a");
    CHECK_STR(s.e[4].version, "c");
    CHECK_INT(s.e[0].seats, 4); /* 0@a: seats 3,4 then 3,5 */
    CHECK_INT(s.e[0].games, 2);
    CHECK_INT(s.e[0].wr.games, 2);
    CHECK_INT(s.e[2].seats, 2);
    CHECK_INT(s.e[2].games, 1);
    CHECK_INT(s.role_games[AW_WEREWOLF], 2); /* the seat of no entry counts for the table */
    long seats, wins;
    aw_stats_entry(&s, 1, &seats, &wins);
    CHECK_INT(seats, 4);
    CHECK_INT(wins, 2);
    aw_stats_free(&s);
}

/* An abandoned game (too many agents failed) is no win or loss for anyone:
 * it counts among the games and those with no winner, in no row. */
static void abandoned(void)
{
    aw_stats s;
    aw_stats_init(&s, 2, AW_STATS_BY_ENTRY);
    add(&s, (int[]){0, 0, 1, 1, 0}, AW_TEAM_VILLAGER, NULL, 0);
    aw_role role[6] = {AW_ROLE_NONE, AW_VILLAGER, AW_VILLAGER, AW_VILLAGER, AW_SEER, AW_WEREWOLF};
    int entry[6] = {0, 1, 1, 0, 0, 1};
    aw_stat_game g = {.players = 5, .entry = entry, .role = role, .winner = AW_TEAM_NONE, .abandoned = true};
    aw_stats_add(&s, &g);
    CHECK_INT(s.games, 2);
    CHECK_INT(s.no_winner, 1);
    CHECK_INT(s.abandoned, 1);
    CHECK_INT(s.role_games[AW_VILLAGER], 3);
    CHECK_INT(s.e[0].games, 1);
    CHECK_INT(s.e[0].seats, 3);
    CHECK_INT(s.e[0].wins, 2);
    CHECK_INT(s.e[0].wr.games, 1);
    CHECK_INT(s.e[1].seats, 2);
    CHECK_INT(s.e[1].wins, 2);
    CHECK_INT(s.meet[0 * 2 + 1], 1);
    aw_stats_free(&s);
}

int main(void)
{
    by_entry();
    by_version();
    abandoned();
    return test_done();
}
