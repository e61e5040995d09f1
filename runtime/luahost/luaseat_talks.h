/* luaseat_talks: the protocol for Lua seats — every agent gets the host's
 * parse of each talk as talkList[i].parsed (a plain Lua table, the same
 * shape for everyone, made when the agent first reads it), and may
 * `require "aiwolf.protocol"`, whose C core this registers in each new
 * sandbox. Uses lprotocol, sandbox, luaseat. */
#ifndef AW_LUASEAT_TALKS_H
#define AW_LUASEAT_TALKS_H

#include "engine.h"
#include "luaseat.h"

/* Sets push_parsed/prepare of a Lua seat's options. Use with
 * aw_talkhooks_game (talkhooks.h), which makes the parsed forms. */
void aw_luaseat_talks(aw_luaseat_opts *lo);

/* The same for a Lua seat that plays in a confined child (childseat.h),
 * where every child would otherwise parse each talk again, whether its
 * agent reads the tree or not: sets lo's hooks as aw_luaseat_talks does,
 * and returns the talk hooks for the child seat's options
 * (aw_childseat_opts.talk). That validate only notes where the talk's text is
 * and the game's mode (a talk the host parsed, sent with its text), and the
 * tree is parsed when the agent first reads `parsed`: the same tree, parsed
 * from the same text under the same mode as the host's. The text must stay
 * where it is until free_parsed (the child seat's view keeps it so). Never
 * use this pair for a game's own hooks (the engine needs the trees). */
aw_talk_hooks aw_luaseat_talks_deferred(aw_luaseat_opts *lo);

#endif
