/* talkhooks: the protocol module plugged into a game — the engine's talk
 * validation hook (each talk parsed once; the tree stays with the talk, for
 * the agents and the record) and the readable record's describer (what a
 * talk means, in English or Japanese). Keeps the engine and the log writer
 * free of any dependency on the protocol. Uses protocol, game, gamelog. */
#ifndef AW_TALKHOOKS_H
#define AW_TALKHOOKS_H

#include "game.h"

/* The protocol's talk hooks: talks are parsed under the game's validation
 * mode, and kept as aw_sentence trees (aw_talk.parsed); their ud is not
 * used. */
aw_talk_hooks aw_talkhooks(void);
/* Sets a game's options' talk hooks to those (validate_ud NULL). */
void aw_talkhooks_game(aw_game_opts *go);
/* Makes a game's readable record describe each talk in lang ("en" or "ja")
 * instead of printing its text. lang must outlive the log. */
void aw_talkhooks_describe(aw_gamelog *log, const char *lang);

#endif
