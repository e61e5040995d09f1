/* luaseat_talks: the protocol for Lua seats (see luaseat_talks.h). */
#include "luaseat_talks.h"

#include <stdlib.h>

#include "lprotocol.h"
#include "luaseat_internal.h"
#include "sandbox.h"
#include "util.h"

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
    if (aw_sandbox_preload(sandbox, "aiwolf.protocol_core", aw_luaopen_protocol_core, err) < 0)
        return -1;
    return aw_sandbox_preload(sandbox, "aiwolf.talks", ls_open_talks, err);
}

void aw_luaseat_talks(aw_luaseat_opts *lo)
{
    lo->push_parsed = push_parsed;
    lo->push_parsed_text = push_parsed_text;
    lo->prepare = prepare;
}

/* A talk to parse when its `parsed` is first read (aw_luaseat_talks_deferred).
 * The text is the child's own copy, which stays until this is freed
 * (childframe.h). */
typedef struct deferred {
    const char *text;
    size_t len;
    aw_validation mode;
} deferred;

static int defer_validate(void *ud, const char *text, size_t len, aw_validation mode, void **parsed, aw_error *err)
{
    (void)ud;
    (void)err;
    deferred *d = aw_xmalloc(sizeof *d);
    *d = (deferred){text, len, mode};
    *parsed = d;
    return 0;
}

static void defer_free(void *ud, void *parsed)
{
    (void)ud;
    free(parsed);
}

/* The host parsed the same text under the same mode, so it parses here
 * too; should it not, the agent reads nil. */
static void push_deferred(lua_State *L, const void *parsed)
{
    const deferred *d = parsed;
    if (!aw_protocol_push_text(L, d->text, d->len, d->mode))
        lua_pushnil(L);
}

aw_talk_hooks aw_luaseat_talks_deferred(aw_luaseat_opts *lo)
{
    aw_luaseat_talks(lo);
    lo->push_parsed = push_deferred;
    aw_talk_hooks h = {defer_validate, defer_free};
    return h;
}
