/* luaseat_talks: the protocol for Lua seats — every agent gets the host's
 * parse of each talk as talkList[i].parsed (a plain Lua table, the same
 * shape for everyone, made when the agent first reads it), and may
 * `require "aiwolf.protocol"`, whose C core this registers in each new
 * sandbox. Uses lprotocol, sandbox, luaseat. */
#ifndef AW_LUASEAT_TALKS_H
#define AW_LUASEAT_TALKS_H

#include "luaseat.h"

/* Sets push_parsed/prepare of a Lua seat's options. Use with
 * aw_talkhooks_game (talkhooks.h), which makes the parsed forms. */
void aw_luaseat_talks(aw_luaseat_opts *lo);

#endif
