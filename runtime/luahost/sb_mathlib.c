/* sb_mathlib: the math library, with math.randomseed seeded from the game.
 * Part of the sandbox (sandbox.h is the contract; sandbox_internal.h what
 * the parts share). */
#include "sandbox_internal.h"

static int sb_randomseed(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    if (n == 0) { /* the stock one would seed from the clock: use the game's seed */
        lua_pushinteger(L, (lua_Integer)sb->lim.seed);
        n = 1;
    }
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L);
}

void sb_open_math(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    luaL_requiref(L, LUA_MATHLIBNAME, luaopen_math, 1);
    sb_wrap_field(L, "randomseed", sb_randomseed);
    lua_getfield(L, -1, "randomseed");
    lua_pushinteger(L, (lua_Integer)sb->lim.seed);
    lua_call(L, 1, 0);
    lua_pop(L, 1);
}
