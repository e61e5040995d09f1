/* sb_addr: what an agent sees instead of addresses. tostring, print and
 * string.format's %s and %p show a table, function, coroutine, userdata (or,
 * for %p, a string) as a number the sandbox gives it the first time it is
 * shown ("table: 0x00000001"), the same for the object's whole life, never
 * its address: an address comes from where the allocator put the object,
 * which depends on more than the agent's own doing. Part of the sandbox
 * (sandbox.h is the contract; sandbox_internal.h what the parts share). */
#include "sandbox_internal.h"

/* The registry entry: a table, weak in its keys, from each object shown so
 * far to its number; [0] holds the last number given. Made with the sandbox
 * (sb_ids_open), so it lasts across games (renewals keep the registry's
 * entries of that time): numbers count the seat's own showings. */
static const char sb_key_ids = 0;

void sb_ids_open(lua_State *L)
{
    lua_createtable(L, 0, 1);
    lua_pushinteger(L, 0);
    lua_rawseti(L, -2, 0);
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &sb_key_ids);
}

/* The number of the value at idx (a collectable value or a C function). */
static lua_Integer sb_id_of(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    luaL_checkstack(L, 3, NULL);
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &sb_key_ids) != LUA_TTABLE)
        return luaL_error(L, "sandbox: no object numbers");
    lua_pushvalue(L, idx);
    if (lua_rawget(L, -2) == LUA_TNUMBER) {
        lua_Integer id = lua_tointeger(L, -1);
        lua_pop(L, 2);
        return id;
    }
    lua_pop(L, 1);
    lua_rawgeti(L, -1, 0);
    lua_Integer id = lua_tointeger(L, -1) + 1;
    lua_pop(L, 1);
    lua_pushvalue(L, idx);
    lua_pushinteger(L, id);
    lua_rawset(L, -3); /* may raise a memory error: nothing is half done */
    lua_pushinteger(L, id);
    lua_rawseti(L, -2, 0);
    lua_pop(L, 1);
    return id;
}

/* Whether the value at idx is one Lua would show by its address. */
static int shown_by_address(lua_State *L, int idx)
{
    switch (lua_type(L, idx)) {
    case LUA_TTABLE:
    case LUA_TFUNCTION:
    case LUA_TUSERDATA:
    case LUA_TLIGHTUSERDATA:
    case LUA_TTHREAD:
        return 1;
    default:
        return 0;
    }
}

/* luaL_tolstring, with the object's number where Lua shows its address;
 * __tostring and __name work as in Lua. */
const char *sb_tolstring(lua_State *L, int idx, size_t *len)
{
    idx = lua_absindex(L, idx);
    if (!shown_by_address(L, idx) || luaL_getmetafield(L, idx, "__tostring") != LUA_TNIL) {
        if (shown_by_address(L, idx))
            lua_pop(L, 1);
        return luaL_tolstring(L, idx, len);
    }
    lua_Integer id = sb_id_of(L, idx);
    int tt = luaL_getmetafield(L, idx, "__name");
    const char *kind = tt == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, idx);
    char num[32];
    snprintf(num, sizeof num, "%08llx", (unsigned long long)id);
    lua_pushfstring(L, "%s: 0x%s", kind, num);
    if (tt != LUA_TNIL)
        lua_remove(L, -2);
    return lua_tolstring(L, -1, len);
}

/* What %p shows for the value at idx, pushed: "0x" and the number, or
 * "(null)" for a value that is no object, as Lua. */
void sb_push_pointer(lua_State *L, int idx)
{
    int t = lua_type(L, idx);
    if (!shown_by_address(L, idx) && t != LUA_TSTRING) {
        lua_pushliteral(L, "(null)");
        return;
    }
    char num[32];
    snprintf(num, sizeof num, "0x%08llx", (unsigned long long)sb_id_of(L, idx));
    lua_pushstring(L, num);
}

/* tostring */
int sb_tostring(lua_State *L)
{
    luaL_checkany(L, 1);
    sb_tolstring(L, 1, NULL);
    return 1;
}
