/* separation: what --until-separated decides after each round, read from
 * DIR/games.tsv a piece at a time (docs/contest.md, "Games where they
 * matter").
 *
 * Each call reads only the lines added to games.tsv since the last one and
 * parses each once: the games of the schedule's units go into a rating's
 * data and into fault counts for the policy; a line of a unit the schedule
 * does not hold yet (a later round, on disk from an earlier run) is kept
 * aside, parsed, until a round brings its unit. The first line of a game
 * counts, later copies do not. When the file was replaced (another inode)
 * or cut shorter, everything is read again.
 *
 * The decision depends only on the set of lines in the file, not on their
 * order or on when they were read, so a run, `contest report` and `contest
 * verify` take the same decisions from the same file.
 *
 * Uses results, rating, rating_report, schedule; reads one file.
 * Ownership: aw_separation_free releases what _new took. */
#ifndef AW_SEPARATION_H
#define AW_SEPARATION_H

#include <stdbool.h>

#include "results.h"
#include "schedule.h"
#include "settings.h"

typedef struct aw_separation aw_separation;

/* For a contest of nentries entries; games share their luck by deal (seed)
 * or, in the regulation format, by set (unit). */
aw_separation *aw_separation_new(int nentries, aw_contest_format format);
void aw_separation_free(aw_separation *s);

/* Reads what was added to path since the last call. When every unit of
 * sched is in it, fits the rating on the schedule's games with only the
 * entries policy ranks rated, and returns how many pairs adjacent in the
 * skill order are not separated at 95 %, marking their entries in
 * favour[] (not cleared first). -1 when units are missing or the file
 * cannot be read. set[p]: the rules of a p-player game (its role table). */
int aw_separation_check(aw_separation *s, const char *path, const aw_schedule *sched,
                        const aw_settings *set, const aw_fault_policy *policy, bool *favour);
/* The games that count so far (for tests). */
long aw_separation_games(const aw_separation *s);

#endif
