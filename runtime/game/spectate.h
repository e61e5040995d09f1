/* spectate: a game's JSON event lines (docs/events.schema.json) for people
 * watching it live. While the game runs a spectator gets only what the rules
 * make public — the names, who is alive each day, the talks, the votes (when
 * the rules show votes), the executions and who died in the night — with
 * roles, the seed, whispers, divinations, guards, attack votes, failed
 * attacks and fault messages held back; the result line then releases the
 * game's full record (what --events writes), from its begin line on, and
 * everything after it passes as it comes. With `reveal` every line passes
 * at once, as --events writes it. docs/viewer.md lists each line's fate.
 *
 * The dawn — the night's outcome, the new day's status lines and its
 * DAILY_INITIALIZE calls — goes out at once when every agent has answered
 * DAILY_INITIALIZE, not as it comes: a person's night turn (humanseat.h)
 * ends before that, whatever the role, so when the night's lines come says
 * nothing about which secret requests (DIVINE, GUARD, ATTACK, WHISPER) the
 * night made.
 *
 * It watches a game through its log (gamelog.h's observer), so it sees the
 * same lines, in the same order, as --events. Uses gamelog and engine.
 *
 * Ownership: aw_spectate_new returns an object owned by the caller
 * (aw_spectate_free); the sink's line is borrowed for the call. */
#ifndef AW_SPECTATE_H
#define AW_SPECTATE_H

#include <stdbool.h>
#include <stddef.h>

#include "gamelog.h"

/* Receives one line (a JSON object and its newline) for spectators. */
typedef void aw_spectate_sink(void *ud, const char *line, size_t len);

typedef struct aw_spectate aw_spectate;

aw_spectate *aw_spectate_new(bool reveal, aw_spectate_sink *sink, void *ud);
void aw_spectate_free(aw_spectate *s);

/* Makes s watch every game that log l writes (sets l->observer). */
void aw_spectate_attach(aw_spectate *s, aw_gamelog *l);

/* Gives out now the public lines the dawn holds (a game that is abandoned
 * at dawn). */
void aw_spectate_flush(aw_spectate *s);

/* True between a game's begin and its result line (its secrets are held). */
bool aw_spectate_running(const aw_spectate *s);

#endif
