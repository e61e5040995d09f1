/* results: one line per game played in a contest (games.tsv), their
 * statistics — per entry games, points, win rate with its per-game
 * interval, by role, team and player count, faults by kind, time per call,
 * all in the reports' statistics model (stats.h) — the fault policy and
 * the ranking. The report files that show them are reports.h's.
 *
 * games.tsv, tab-separated, one game per line, appended unit by unit:
 *   index unit game seed players entries roles winner days calls faults log times
 * entries and roles: per seat, comma-separated (entry numbers from 0; role
 * names); winner: VILLAGER, WEREWOLF, OTHERS, NONE (the day limit) or
 * ABANDONED (no winner: too many agents failed, engine.h); calls: per seat;
 * faults: per seat error.timeout.memory.reply.lost; log: the game's log,
 * relative to the contest's folder; times: per seat the wall-clock time per
 * call, from request to answer (a histogram: bucket:count;…, "-" for none),
 * then "/", the most CPU time one call of the seat took (µs), "/", and a
 * histogram of the CPU time per call (the agent's own, what the budget
 * counts; only calls that ran the agent). Lines of older versions have no
 * CPU part. Only the times column depends on the machine and its load;
 * every other column is the same whenever the same contest is played
 * again — faults included with a work budget (docs/contest.md).
 *
 * Per entry the report counts games (distinct games it played in) and
 * seats (the seats it held: an entry may hold several in one game); its
 * win rate is points (seats on the winning team) over seats, with the
 * per-game interval of winrate.h; entries that do not load or whose faults
 * pass the fault policy are not ranked but listed apart with the reason;
 * entries with equal win rates share a rank.
 *
 * Uses core types and stats only; no I/O.
 * Ownership: aw_contest_stats_free releases what _init took. */
#ifndef AW_RESULTS_H
#define AW_RESULTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "agentlimits.h"
#include "settings.h"
#include "stats.h"
#include "util.h"
#include "winrate.h"

typedef struct aw_game_record {
    long index;
    int unit, game;
    uint64_t seed;
    int players;
    int entry[AW_MAX_PLAYERS + 1];
    aw_role role[AW_MAX_PLAYERS + 1];
    aw_team winner; /* AW_TEAM_NONE: no winner */
    bool abandoned; /* no winner: too many agents failed; in no win rate */
    int days;
    int calls[AW_MAX_PLAYERS + 1];
    int faults[AW_MAX_PLAYERS + 1][AW_NFAULTS];
    char log[128];
    uint32_t times[AW_MAX_PLAYERS + 1][AW_TIME_BUCKETS];   /* wall-clock time per call */
    uint32_t cpu[AW_MAX_PLAYERS + 1][AW_TIME_BUCKETS];     /* CPU time per call that ran the agent */
    uint32_t cpu_max_us[AW_MAX_PLAYERS + 1];
} aw_game_record;

/* Appends rec's line (with its newline) to out. */
void aw_record_format(const aw_game_record *rec, aw_buf *out);
/* Parses one line (without its newline). nentries bounds the entry numbers.
 * Returns 0, or -1 with err filled. */
int aw_record_parse(const char *line, size_t len, int nentries, aw_game_record *rec, aw_error *err);

/* The contest's statistics are the reports' one model (stats.h), a row per
 * entry (AW_STATS_BY_ENTRY: e[i] is entry i). */
typedef aw_stat_row aw_entry_stats;
typedef aw_stats aw_contest_stats;

void aw_contest_stats_init(aw_contest_stats *s, int nentries);
void aw_contest_stats_free(aw_contest_stats *s);
/* Adds a game line. role_count: the role table of a game of rec->players
 * players. */
void aw_contest_stats_add(aw_contest_stats *s, const aw_game_record *rec, const int role_count[AW_NROLES]);

/* What the report says about the contest besides the entries. */
typedef struct aw_contest_info {
    const char *format;   /* "seed2015" / "regulation" */
    const int *players;
    int nplayers;
    uint64_t seed;
    long games_total;
    aw_limits limits;     /* each agent's budget, memory and work (0: none, time budget only) */
    int shard, nshards;
    const char *const *names; /* [n] display names */
    const char *const *paths; /* [n] */
    const struct aw_rating *rating; /* the skill rating (rating.h), or NULL */
    const struct aw_fault_policy *policy; /* NULL: the default */
    const struct aw_provenance *prov; /* provenance.h: version, digests, times; NULL: none */
} aw_contest_info;

/* Which entries are ranked. An entry that answered none of its calls (it
 * does not load or cannot start) never is; with thresholds, neither is one
 * whose faulty calls pass max_calls of its calls or whose games with a
 * fault pass max_games of its games. */
typedef struct aw_fault_policy {
    bool thresholds;  /* false: "none", only the no-answer rule */
    double max_calls; /* share of calls, 0..1 */
    double max_games; /* share of games, 0..1 */
} aw_fault_policy;

#define AW_FAULT_POLICY_DEFAULT "calls=5%,games=50%"
/* Parses "calls=P%,games=Q%" (either part may be left out: it is then 100 %;
 * shares as 0.05 or 5%) or "none". Returns 0, or -1 with err filled. */
int aw_fault_policy_parse(const char *text, aw_fault_policy *p, aw_error *err);
/* The policy as text aw_fault_policy_parse reads back. */
void aw_fault_policy_format(const aw_fault_policy *p, char *buf, size_t n);
/* Whether entry i is ranked; when not, why (one line) in why[0..n). */
bool aw_contest_eligible(const aw_contest_stats *s, int i, const aw_fault_policy *p, char *why, size_t n);

/* The rank order: the eligible entries by win rate (points / seats), equal
 * rates by name (they share a rank); then the ineligible ones by name.
 * order[0..n); rank[i] (may be NULL): the rank of order[i] (1-based; equal
 * for a tie; 0 for an ineligible entry). Returns the number of eligible
 * entries. */
int aw_contest_rank(const aw_contest_stats *s, const aw_contest_info *ci, int *order, int *rank);
/* The fault policy the report uses: ci's, or the default. */
const aw_fault_policy *aw_contest_policy(const aw_contest_info *ci);

#endif
