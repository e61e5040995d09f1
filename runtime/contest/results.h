/* results: one line per game played in a contest (games.tsv), and what the
 * report says of them — per entry games, points, win rate with its Wilson
 * interval, by role, team and player count, faults by kind, time per call —
 * as Markdown, CSV and JSON (results.json, which report.html shows).
 *
 * games.tsv, tab-separated, one game per line, appended unit by unit:
 *   index unit game seed players entries roles winner days calls faults log times
 * entries and roles: per seat, comma-separated (entry numbers from 0; role
 * names); winner: VILLAGER, WEREWOLF, OTHERS or NONE; calls: per seat;
 * faults: per seat error.timeout.memory.reply.lost; log: the game's log,
 * relative to the contest's folder; times: per seat a histogram of the time
 * per call (bucket:count;…, "-" for none). Every column but times is the
 * same whenever the same contest is played again.
 *
 * Uses core and game types only; no I/O but the FILE* it is given.
 * Ownership: aw_contest_stats_free releases what _init took. */
#ifndef AW_RESULTS_H
#define AW_RESULTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "settings.h"
#include "util.h"

#define AW_NFAULTS 6        /* aw_fault_kind: NONE (unused here) .. LOST */
#define AW_TIME_BUCKETS 128 /* bucket 0: under 1 µs; b: 2^((b-1)/4) µs and up */

typedef struct aw_game_record {
    long index;
    int unit, game;
    uint64_t seed;
    int players;
    int entry[AW_MAX_PLAYERS + 1];
    aw_role role[AW_MAX_PLAYERS + 1];
    aw_team winner; /* AW_TEAM_NONE: no winner */
    int days;
    int calls[AW_MAX_PLAYERS + 1];
    int faults[AW_MAX_PLAYERS + 1][AW_NFAULTS];
    char log[128];
    uint32_t times[AW_MAX_PLAYERS + 1][AW_TIME_BUCKETS];
} aw_game_record;

/* The bucket of a call that took ns. */
int aw_time_bucket(uint64_t ns);

/* Appends rec's line (with its newline) to out. */
void aw_record_format(const aw_game_record *rec, aw_buf *out);
/* Parses one line (without its newline). nentries bounds the entry numbers.
 * Returns 0, or -1 with err filled. */
int aw_record_parse(const char *line, size_t len, int nentries, aw_game_record *rec, aw_error *err);

typedef struct aw_entry_stats {
    long games, wins;
    long role_games[AW_NROLES], role_wins[AW_NROLES];
    long team_games[3], team_wins[3];
    long pl_games[AW_MAX_PLAYERS + 1], pl_wins[AW_MAX_PLAYERS + 1];
    long faults[AW_NFAULTS];
    long calls;
    uint64_t times[AW_TIME_BUCKETS];
} aw_entry_stats;

typedef struct aw_contest_stats {
    int n;
    aw_entry_stats *e; /* [n] */
    long games;
    long *meet;        /* [n][n]: games two entries played together */
    double *role_expect; /* [n][AW_NROLES]: the roles each entry's seats lead one to expect */
} aw_contest_stats;

void aw_contest_stats_init(aw_contest_stats *s, int nentries);
void aw_contest_stats_free(aw_contest_stats *s);
/* role_count: the role table of a game of rec->players players. */
void aw_contest_stats_add(aw_contest_stats *s, const aw_game_record *rec, const int role_count[AW_NROLES]);

/* (The Wilson interval is match.h's aw_wilson.) */
/* The time per call at quantile q (0..1) of a histogram, in µs (0: none). */
double aw_time_quantile(const uint64_t *times, double q);

/* What the report says about the contest besides the entries. */
typedef struct aw_contest_info {
    const char *format;   /* "seed2015" / "regulation" */
    const int *players;
    int nplayers;
    uint64_t seed;
    long games_total;
    int budget_ms, memory_mb;
    int shard, nshards;
    const char *const *names; /* [n] display names */
    const char *const *paths; /* [n] */
    const struct aw_rating *rating; /* the skill rating (rating.h), or NULL */
    const struct aw_provenance *prov; /* provenance.h: version, digests, times; NULL: none */
} aw_contest_info;

/* The rank order: by win rate, then points, then name. order[0..n). */
void aw_contest_rank(const aw_contest_stats *s, const aw_contest_info *ci, int *order);
void aw_contest_write_md(const aw_contest_stats *s, const aw_contest_info *ci, FILE *out);
/* Text in a Markdown table cell of a report that also goes to terminals:
 * control bytes and the like escaped (aw_buf_add_term), | as \|. */
void aw_contest_md_text(FILE *out, const char *s);
void aw_contest_write_csv(const aw_contest_stats *s, const aw_contest_info *ci, FILE *out);
void aw_contest_write_json(const aw_contest_stats *s, const aw_contest_info *ci, aw_buf *out);

#endif
