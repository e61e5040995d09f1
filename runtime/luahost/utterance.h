/* utterance: wires the protocol module into a game — the engine's talk
 * validation hook (parse once, keep the tree with the talk), and the Lua
 * seat's hooks (hand that tree to every agent as talkList[i].parsed, and let
 * agents `require "aiwolf.protocol"`). Keeps engine and luaseat free of any
 * dependency on the protocol. Uses protocol, lprotocol, sandbox, game,
 * luaseat. */
#ifndef AW_UTTERANCE_H
#define AW_UTTERANCE_H

#include "game.h"
#include "luaseat.h"

/* Sets validate/free_parsed of a game's options. */
void aw_utterance_game_opts(aw_game_opts *go);
/* Makes a game's readable record describe each talk in lang ("en" or "ja")
 * instead of printing its text. lang must outlive the log. */
void aw_utterance_describe(aw_gamelog *log, const char *lang);

/* Sets push_parsed/prepare of a Lua seat's options. */
void aw_utterance_luaseat_opts(aw_luaseat_opts *lo);

#endif
