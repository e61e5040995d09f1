/* live: the pages of `aiwolf play --http` and `aiwolf serve --http` on an
 * aw_web server — a list of the running and recent games, each game live
 * for spectators (spectate.h: public lines while it runs, the full record
 * after its result; everything with reveal), and a page per human seat
 * (humanseat.h) guarded by the seat's token. docs/viewer.md, "Watching
 * live" and "Playing as a human", describes the pages, the routes and the
 * messages. Uses web, pages, game (spectate, humanseat) and protocol.
 *
 * Routes: / (the games), /live/ID (one game), /human/A?token=T (seat A),
 * /live.js, /live.css, /human.js (the pages' code), /api/games (JSON),
 * /api/check?text=...&mode=strict|lenient|off (the protocol parser's verdict).
 * Channels: /ws/game/ID (the game's lines; a late joiner gets them all),
 * /ws/human/A?token=T (the seat's views; answers go the other way:
 * "answer SEQ target N", "answer SEQ text TEXT", "check TEXT").
 *
 * Threads: games begin and end on the game's thread (play's, or serve's
 * loop); the web's callbacks run on its own loop thread. A mutex guards the
 * list of games.
 *
 * Ownership: aw_live_new returns an object owned by the caller; free it
 * (aw_live_free) after aw_web_stop, when no callback can run. Human seats
 * made here are owned by the aw_live. */
#ifndef AW_LIVE_H
#define AW_LIVE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "gamelog.h"
#include "seat.h"
#include "web.h"

typedef struct aw_live aw_live;
typedef struct aw_live_game aw_live_game;

aw_live *aw_live_new(aw_web *w, bool reveal);
void aw_live_free(aw_live *l);

/* A game starts: its spectators watch what log writes (log's observer).
 * name says what it is ("game 3 of 10"). Returns the game, which ends with
 * aw_live_game_end (finished false: abandoned). [game thread] */
aw_live_game *aw_live_game_begin(aw_live *l, aw_gamelog *log, const char *name);
void aw_live_game_end(aw_live *l, aw_live_game *g, bool finished);
/* The game's number in the URLs (/live/ID). */
int aw_live_game_id(const aw_live_game *g);

/* A human seat playing agent number `seat` whenever it plays: each
 * request that needs an answer waits up to timeout_ms for the person. NULL
 * with err filled when no token can be drawn. The seat is owned by l. */
aw_seat *aw_live_human(aw_live *l, int seat, const char *name, uint64_t timeout_ms, aw_error *err);
/* A seat that plays as h for one game and whose free() leaves h alone (for
 * drivers that free their seats after each game). Owned by the caller. */
aw_seat *aw_live_human_borrow(aw_seat *h);
/* For drivers on a loop, on a borrowed or own human seat: its answer, as
 * aw_human_take; and the callback that says it came, as aw_human_on_ready
 * (called from the web's thread). */
int aw_live_human_take(aw_seat *s, aw_seat_reply *reply, aw_seat_fault *fault, uint64_t *deadline);
void aw_live_human_on_ready(aw_seat *s, void (*fn)(void *ud), void *ud);

/* --pace MS: after each public line of a running game (a talk, a vote, an
 * execution...; not the record sent again after its result) the game
 * waits ms in the thread that plays it, so people can follow bot games.
 * Set before the first game. aw_live_stop_pace (any thread: Ctrl-C) ends
 * a pause under way and every later one. */
void aw_live_set_pace(aw_live *l, int ms);
void aw_live_stop_pace(aw_live *l);

/* Prints the addresses: the games' page, and each human seat's with its
 * token (host and port of the server). */
void aw_live_print_urls(aw_live *l, FILE *out, const char *host, int port);

#endif
