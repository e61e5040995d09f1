/* logrules: the rules a game log was played under, kept in a small text file
 * beside the log, so that `aiwolf check` and `aiwolf replay` judge a log by
 * its own rules without options and without a change to the official CSV.
 *
 * A rules file holds one "name=value" line per setting (docs/settings.md),
 * after a "preset=P" line; '#' starts a comment line. The players and the
 * roles are left out: they are each log's own (its day-0 status block). The
 * output of `aiwolf play --list-settings` is a rules file too.
 *
 * Where the rules of a log at LOG are found, first match wins:
 *   LOG.rules     LOG without a trailing ".unfinished" (serve's abandoned
 *                 games) and ".gz" (game.log and game.log.gz both have
 *                 game.log.rules): one game's rules
 *   DIR/aiwolf.rules   every log in the folder DIR that holds LOG
 *   DIR/../contest.cfg when DIR is named "logs": a contest's folder (its
 *                 "preset" and "set" lines), for contests written before
 *                 their logs folder had an aiwolf.rules
 * Uses core (settings) and stdio.
 * Ownership: nothing is kept; the caller owns every buffer. */
#ifndef AW_LOGRULES_H
#define AW_LOGRULES_H

#include <stddef.h>

#include "settings.h"
#include "util.h"

#define AW_LOGRULES_FOLDER "aiwolf.rules" /* the rules of every log in its folder */
#define AW_LOGRULES_SUFFIX ".rules"       /* LOG.rules: one log's rules */
#define AW_LOGRULES_MAX (64 * 1024)       /* a larger rules file is refused */

/* Appends the rules file text of s to b. */
void aw_logrules_format(const aw_settings *s, aw_buf *b);

/* Reads a rules file's text into s (for 5 players; the checker and the
 * replay take the players and roles from each log). Unknown settings, bad
 * values and a "preset=" line after a setting are errors, with the line
 * number in err. */
int aw_logrules_parse(const char *text, size_t len, aw_settings *s, aw_error *err);

/* Writes the rules of s into path, through a temporary file renamed into
 * place, unless path holds exactly that text already (many writers of one
 * folder's rules may race; each writes the same text). 0, or a negative value with err. */
int aw_logrules_write(const char *path, const aw_settings *s, aw_error *err);

/* Makes dir/aiwolf.rules say s's rules, for the logs a run is about to
 * write into dir: creates it when it is missing (atomically: of two runs
 * racing, one creates it). Returns 1 when the folder's file holds s's rules
 * (now), 0 when it holds other rules (an earlier run's, left as they are:
 * the caller then gives each log of its own a LOG.rules), a negative value
 * with err when it cannot be written or read. */
int aw_logrules_claim_folder(const char *dir, const aw_settings *s, aw_error *err);

/* For a log being written to log_path: with s, writes its LOG.rules (when
 * the folder's aiwolf.rules says other rules); with s NULL, removes a
 * LOG.rules an earlier run left there (the folder's file speaks for this
 * log). 0, or a negative value with err. */
int aw_logrules_beside(const char *log_path, const aw_settings *s, aw_error *err);

/* The rules file of a log at log_path ("LOG.rules", with LOG's ".unfinished"
 * and ".gz" taken off) into out (outlen bytes). -1 when it does not fit. */
int aw_logrules_path(const char *log_path, char *out, size_t outlen);

/* Finds the rules of the log at log_path (see above) and reads them into s.
 * Returns 1 with s filled and the file's path in found, 0 when no rules file
 * applies (s untouched), a negative value with err when one exists but cannot be read or
 * does not parse. */
int aw_logrules_find(const char *log_path, aw_settings *s, char *found, size_t foundlen, aw_error *err);

#endif
