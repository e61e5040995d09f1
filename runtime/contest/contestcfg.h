/* contestcfg: a contest's configuration, DIR/contest.cfg, and its entries.
 *
 * DIR/contest.cfg, tab-separated, one setting a line, written when a contest
 * starts and read back to continue it, by `contest report`, `merge` and
 * `verify`, and by `check`/`replay` for the rules of its logs:
 *   aiwolf-contest  1
 *   format          seed2015 | regulation
 *   players         N[,M...]            (up to four counts)
 *   games-per-entry N / sets K / set-games N / seed S / budget MS / memory MB
 *   preset          P
 *   set             NAME=VALUE          (one line per --set)
 *   work            UNITS               (only when given)
 *   fault-policy    P                   (only when not the default)
 *   duplicate K / until-separated N     (only when on)
 *   shard           I/N                 (the slice's file only)
 *   entry           HASH  NAME  PATH    (one per entry, in order)
 * Everything but the shard decides the results, so two folders whose files
 * say the same but the shard are slices of one contest.
 * Uses core (util, agentlimits), results (the fault policy), schedule (the formats).
 * Ownership: aw_contest_cfg_free releases the entries and the --set copies. */
#ifndef AW_CONTESTCFG_H
#define AW_CONTESTCFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agentlimits.h"
#include "results.h"
#include "schedule.h"
#include "util.h"

#define AW_CONTEST_MAX_ENTRIES 1000
#define AW_CONTEST_MAX_SETS 32
#define AW_CONTEST_MAX_SHARDS 1000000 /* --shard I/N: N at most */

typedef struct aw_contest_entry {
    char *path;      /* as given */
    char *main;      /* the .lua file the seat loads */
    char *read_dir;  /* the folder it may read */
    char *name;      /* for people */
    uint64_t hash;   /* of its files */
} aw_contest_entry;

typedef struct aw_contest_cfg {
    aw_contest_format format;
    int nplayers, players[4];
    long games_per_entry;
    int sets, set_games;
    uint64_t seed;
    aw_limits limits;       /* the budget, the memory cap (whole MiB) and the work units per call
                               (0: none); the workers play every agent isolated, in its entry's
                               folder */
    aw_fault_policy policy;
    char preset[32];
    const char *sets_kv[AW_CONTEST_MAX_SETS]; /* owned copies */
    int nsets_kv;
    int shard, nshards;
    int duplicate;            /* --duplicate K (0: plain) */
    long until_separated;     /* --until-separated: the cap on games (0: off) */
    int nentries;
    aw_contest_entry *entries;
} aw_contest_cfg;

/* Frees c's entries and --set copies and zeroes it. */
void aw_contest_cfg_free(aw_contest_cfg *c);

/* "seed2015" or "regulation". */
const char *aw_contest_format_name(aw_contest_format f);

/* The lines of the rating's options (none when off, so that contest.cfg
 * files of plain contests stay as they were). */
void aw_contest_cfg_format_rating(const aw_contest_cfg *c, aw_buf *b);

/* contest.cfg's text: everything that decides the results (the shard aside
 * when !with_shard), appended to b. */
void aw_contest_cfg_format(const aw_contest_cfg *c, bool with_shard, aw_buf *b);

/* "5,15": up to four different counts from 3 to 18 into c->players; -1
 * when s is not that. */
int aw_contest_cfg_parse_players(const char *s, aw_contest_cfg *c);

/* Reads DIR/contest.cfg into c (entries with path, name and hash only);
 * -1 with why (whylen bytes) when it cannot be read or is not one this
 * version understands (c then empty). */
int aw_contest_cfg_read(const char *dir, aw_contest_cfg *c, char *why, size_t whylen);

/* An entry as given on the command line (a Lua file or a folder with
 * main.lua): its paths, name (control characters made '_') and a hash of its
 * files. -1 with err when it is none; e may then hold some of its fields
 * (aw_contest_cfg_free frees them as one of c's entries). */
int aw_contest_entry_resolve(const char *arg, aw_contest_entry *e, aw_error *err);

/* Writes len bytes of data as the file path, whole or not at all: into
 * PATH.tmp, synced, then renamed over path (contest.cfg, games.tsv). 0 or
 * -1. */
int aw_contest_write_file(const char *path, const char *data, size_t len);

/* Names people can tell apart: a second "sample" becomes "sample#2". */
void aw_contest_unique_names(aw_contest_cfg *c);

#endif
