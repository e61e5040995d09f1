/* viewer: `aiwolf view`'s server side: the files it was given (game logs,
 * .log.gz, events files, contest folders) as a list of games, and the routes
 * that serve them to the viewer page. Only those files are ever read: the
 * page asks for a game by its number in the list, never by a path. Uses web,
 * pages and viewdata.
 *
 * Ownership: the viewer owns its list (copies of the paths); it must outlive
 * the routes registered with aw_viewer_routes (stop the web first). */
#ifndef AW_VIEWER_H
#define AW_VIEWER_H

#include "util.h"
#include "web.h"

typedef struct aw_viewer aw_viewer;

/* A viewer of paths[0..n): files (logs, .gz logs, events JSON lines) and
 * folders (a contest's folder: games.tsv and logs/; any other folder: the
 * game files in it, by name). NULL with err filled when a path is missing
 * or a folder holds no game. */
aw_viewer *aw_viewer_new(char *const *paths, int n, aw_error *err);
void aw_viewer_free(aw_viewer *v);

/* How many games it lists. */
size_t aw_viewer_count(const aw_viewer *v);

/* Registers "/" (the page), "/static/" (its files), "/api/games" (the list),
 * "/api/game/N" (game N as viewdata.h's JSON) and "/report" (the contest's
 * report.html, sandboxed) on w. */
void aw_viewer_routes(aw_viewer *v, aw_web *w);

#endif
