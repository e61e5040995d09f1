/* luaseat_talks: the protocol for Lua seats (see luaseat_talks.h). */
#include "luaseat_talks.h"

#include "lprotocol.h"
#include "sandbox.h"

static void push_parsed(lua_State *L, const void *parsed)
{
    aw_protocol_push(L, parsed);
}

static int push_parsed_text(lua_State *L, const char *text, size_t len, aw_validation mode)
{
    return aw_protocol_push_text(L, text, len, mode);
}

static int prepare(void *sandbox, aw_error *err)
{
    return aw_sandbox_preload(sandbox, "aiwolf.protocol_core", aw_luaopen_protocol_core, err);
}

void aw_luaseat_talks(aw_luaseat_opts *lo)
{
    lo->push_parsed = push_parsed;
    lo->push_parsed_text = push_parsed_text;
    lo->prepare = prepare;
}
