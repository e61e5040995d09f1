/* sb_numeral: numerals: tonumber and the string metatable's arithmetic, for
 * strings of a bounded length. Part of the sandbox (sandbox.h is the
 * contract; sandbox_internal.h what the parts share). */
#include "sandbox_internal.h"

/* Numerals longer than this are not numbers in the sandbox (tonumber gives
 * fail, arithmetic on such a string is an error): converting a 60 MB
 * string of digits is one slow C call (strtod) or one VM instruction. */
#define SB_MAX_NUMERAL 1024

int sb_tonumber(lua_State *L)
{
    if (lua_type(L, 1) == LUA_TSTRING && lua_isnoneornil(L, 2) && lua_rawlen(L, 1) > SB_MAX_NUMERAL) {
        luaL_pushfail(L);
        return 1;
    }
    return sb_charged(L);
}

/* The string metatable's arithmetic (Lua 5.4 coerces strings there): the
 * same, but a string longer than SB_MAX_NUMERAL is no number. */
int sb_string_arith(lua_State *L)
{
    for (int i = 1; i <= 2; i++)
        if (lua_type(L, i) == LUA_TSTRING && lua_rawlen(L, i) > SB_MAX_NUMERAL)
            return luaL_error(L, "attempt to perform arithmetic on a %s value (a numeral of more than %d bytes)",
                              luaL_typename(L, i), SB_MAX_NUMERAL);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

