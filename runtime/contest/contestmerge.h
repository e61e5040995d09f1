/* contestmerge: `aiwolf contest merge`'s parts that need no running
 * contest: the slices' configurations checked against each other, the
 * folder that receives the whole, the game logs and provenance brought
 * over. (The games' statistics and reports are the command's, as for any
 * contest folder.)
 * Uses contestcfg, provenance, results (games.tsv lines). */
#ifndef AW_CONTESTMERGE_H
#define AW_CONTESTMERGE_H

#include <stdbool.h>
#include <stddef.h>

#include "contestcfg.h"
#include "provenance.h"

/* Reads the contest.cfg of each of dirs[0..n): they must be slices of one
 * contest (the same contest.cfg but the shard), each shard given once.
 * first receives the first one's configuration (the caller frees it with
 * aw_contest_cfg_free; zeroed on failure) and *seen (first->nshards + 1
 * flags, seen[I] for shard I/N given; the caller frees it). -1 with err
 * saying which folder does not fit. */
int aw_contest_merge_slices(const char *const *dirs, int n, aw_contest_cfg *first, bool **seen, aw_error *err);

/* Makes dir and dir/logs for a merged contest; -1 with err when they cannot
 * be made or dir holds a contest already. */
int aw_contest_merge_folder(const char *dir, aw_error *err);

/* Brings the file from to `to`: a hard link, else a copy (written whole or
 * not at all). An existing `to` is kept. 0 or -1. */
int aw_contest_bring_file(const char *from, const char *to);

/* The game logs of the games.tsv lines (text, len bytes; nentries entries)
 * of the slice in from_dir, brought to the same paths under to_dir; a log
 * path that is absolute or holds ".." is left. Returns how many could not
 * be brought. */
int aw_contest_bring_logs(const char *from_dir, const char *to_dir, const char *text, size_t len, int nentries);

/* Adds from's sessions to to's, and its digests where to has none. */
void aw_contest_merge_provenance(aw_provenance *to, const aw_provenance *from);

#endif
