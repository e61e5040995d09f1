/* utterance: protocol hooks for games and Lua seats (see utterance.h). */
#include "utterance.h"

#include "lprotocol.h"
#include "protocol.h"
#include "sandbox.h"

static int validate(void *ud, const char *text, size_t len, aw_validation mode, void **parsed, aw_error *err)
{
    (void)ud;
    aw_sentence *s = aw_protocol_parse(text, len, mode, err);
    if (!s)
        return -AW_EINVAL;
    *parsed = s;
    return 0;
}

static void free_parsed(void *ud, void *parsed)
{
    (void)ud;
    aw_sentence_free(parsed);
}

void aw_utterance_game_opts(aw_game_opts *go)
{
    go->validate = validate;
    go->free_parsed = free_parsed;
    go->validate_ud = NULL;
}

static void describe(void *ud, const aw_talk *t, aw_buf *out)
{
    aw_protocol_describe(t->parsed, t->agent, ud, out);
}

void aw_utterance_describe(aw_gamelog *log, const char *lang)
{
    log->describe = describe;
    log->describe_ud = (void *)lang;
}

static void push_parsed(lua_State *L, const void *parsed)
{
    aw_protocol_push(L, parsed);
}

static int prepare(void *sandbox, aw_error *err)
{
    return aw_sandbox_preload(sandbox, "aiwolf.protocol_core", aw_luaopen_protocol_core, err);
}

void aw_utterance_luaseat_opts(aw_luaseat_opts *lo)
{
    lo->push_parsed = push_parsed;
    lo->prepare = prepare;
}
