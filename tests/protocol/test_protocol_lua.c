/* test_protocol_lua: runs tests/protocol/protocol_core_test.lua in a plain
 * Lua 5.4 state where "aiwolf.protocol_core" is the C core and
 * "aiwolf.protocol" the embedded lua/aiwolf/protocol.lua, as in a sandbox.
 * The script checks parsing through the C core, aw_protocol_push's table
 * shape, builders, printing, describe (against the C describe) and
 * expansion. Uses Lua, lprotocol, luamods. */
#include <lauxlib.h>
#include <lualib.h>
#include <string.h>

#include "lprotocol.h"
#include "luamods.h"
#include "test.h"

static int load_embedded(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    for (const aw_luamod *m = aw_luamods; m->name; m++)
        if (strcmp(m->name, name) == 0) {
            if (luaL_loadbuffer(L, m->source, m->len, m->path) != LUA_OK)
                return lua_error(L);
            lua_call(L, 0, 1);
            return 1;
        }
    return luaL_error(L, "no embedded module %s", name);
}

/* c_describe(text, lang, speaker) for comparing the two describe paths. */
static int c_describe(lua_State *L)
{
    size_t len;
    const char *t = luaL_checklstring(L, 1, &len);
    aw_sentence *s = aw_protocol_parse(t, len, AW_VALIDATE_LENIENT, NULL);
    if (!s)
        return luaL_error(L, "c_describe: cannot parse %s", t);
    aw_buf b;
    aw_buf_init(&b);
    aw_protocol_describe(s, (int)luaL_optinteger(L, 3, AW_UNSPEC), luaL_checkstring(L, 2), &b);
    lua_pushlstring(L, b.data, b.len);
    aw_buf_free(&b);
    aw_sentence_free(s);
    return 1;
}

/* push_resolved(text, speaker): what the host hands agents — parsed once,
 * resolved for the speaker, pushed with aw_protocol_push. */
static int push_resolved(lua_State *L)
{
    size_t len;
    const char *t = luaL_checklstring(L, 1, &len);
    aw_sentence *s = aw_protocol_parse(t, len, AW_VALIDATE_STRICT, NULL);
    if (!s)
        return luaL_error(L, "push_resolved: cannot parse %s", t);
    aw_protocol_resolve(s, (int)luaL_checkinteger(L, 2));
    aw_protocol_push(L, s);
    aw_sentence_free(s);
    return 1;
}

int main(void)
{
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "preload");
    lua_pushcfunction(L, aw_luaopen_protocol_core);
    lua_setfield(L, -2, "aiwolf.protocol_core");
    lua_pushcfunction(L, load_embedded);
    lua_setfield(L, -2, "aiwolf.protocol");
    lua_pop(L, 2);
    lua_register(L, "c_describe", c_describe);
    lua_register(L, "push_resolved", push_resolved);
    int rc = luaL_dofile(L, "tests/protocol/protocol_core_test.lua");
    CHECK_MSG(rc == LUA_OK, "%s", rc == LUA_OK ? "" : lua_tostring(L, -1));
    if (rc == LUA_OK) {
        CHECK(lua_isinteger(L, -1));
        int passed = (int)lua_tointeger(L, -1);
        printf("lua checks passed: %d\n", passed);
        CHECK(passed > 50);
    }
    lua_close(L);
    return test_done();
}
