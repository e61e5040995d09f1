/* lprotocol: the boundary between the C protocol module and Lua. It pushes
 * parsed sentence trees as plain Lua tables (the host parses each talk once
 * in C and pushes the same shape to every agent) and provides the C module
 * "aiwolf.protocol_core" that lua/aiwolf/protocol.lua builds on.
 *
 * The table shape (docs/protocol.md has examples):
 *   verb     "VOTE", "ESTIMATE", ..., "OVER", "SKIP", "REQUEST", "AND", ...
 *   subject  integer agent, "ANY", or nil when omitted (implied)
 *   who      the resolved subject, only if the host ran aw_protocol_resolve
 *   target   integer agent or "ANY"        (sentences with a target, REQUEST, INQUIRE)
 *   role     "SEER", ..., "ANY"              (ESTIMATE, COMINGOUT)
 *   species  "HUMAN", "WEREWOLF", "ANY"      (DIVINED, IDENTIFIED)
 *   talk     {type = "TALK"|"WHISPER", day = d, id = i}   (AGREE, DISAGREE)
 *   day      integer                          (DAY)
 *   args     array of operand tables         (operators)
 *
 * Uses Lua 5.4 and protocol. */
#ifndef AW_LPROTOCOL_H
#define AW_LPROTOCOL_H

#include <lua.h>

#include "protocol.h"

/* Opens the C core (a table of functions) and leaves it on the stack; meant
 * for package.preload["aiwolf.protocol_core"]. Functions:
 *   parse(text [, mode])    -> tree | nil, message   mode "strict"|"lenient" (default)
 *   validate(text [, mode]) -> true | nil, message   mode also "off"
 *   normalize(text [, mode])-> canonical text | nil, message
 *   describe(text, lang [, speaker]) -> string | nil, message
 * Wrong argument types raise errors; invalid text returns nil, message. */
int aw_luaopen_protocol_core(lua_State *L);

/* Pushes the tree s (borrowed) as a new plain table; raises a Lua memory
 * error only if Lua cannot allocate. */
void aw_protocol_push(lua_State *L, const aw_sentence *s);

/* Parses text under mode and pushes its tree as aw_protocol_push does,
 * returning 1; returns 0 and pushes nothing when it does not parse. Raises
 * (after freeing the C tree) only if Lua cannot allocate. */
int aw_protocol_push_text(lua_State *L, const char *text, size_t len, aw_validation mode);

#endif
