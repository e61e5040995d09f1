/* luaseat_nlp: what a Lua seat's `info` carries in an NLP game (aw_info's
 * nlp part, view.h) and the names an agent may answer with there. luaseat.c
 * calls these two; nothing else does. Uses view, Lua.
 *
 * In an NLP game `info` has, besides the protocol division's fields:
 * names (names[i]: agent i's character name), profile, lang ("en"/"ja"),
 * remainCount, remainLength, remainSkip (what is left of the day's talk,
 * nil when the server gives none), and the length rule: maxLength (per talk),
 * baseLength, mentionLength (nil when the server sets none). */
#ifndef AW_LUASEAT_NLP_H
#define AW_LUASEAT_NLP_H

#include <lua.h>

#include "view.h"

/* Sets the NLP fields of the fields table at index f (info's __index) from
 * nlp (n agents). */
void aw_luaseat_push_nlp(lua_State *L, int f, const aw_info_nlp *nlp, int n);

/* The agent of the string at idx, answered by a vote/divine/guard/attack in
 * an NLP game: 1..n when it is one of the names, else 0. */
int aw_luaseat_nlp_target(lua_State *L, int idx, const aw_info_nlp *nlp, int n);

#endif
