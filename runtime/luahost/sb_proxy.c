/* sb_proxy: library tables that cost nothing until a game changes or lists
 * them. Part of the sandbox (sandbox.h is the contract; sandbox_internal.h
 * what the parts share).
 *
 * Each game gets its own table for every library (`string`, `math`, ...)
 * and for every table of a shared module's copy (aiwolf.protocol's), as
 * before; what changed is how it is filled. Copying ~140 library entries
 * and ~80 of aiwolf.protocol's into new tables was two thirds of a seat's
 * per-game set-up (bench/HISTORY.md, "A seat's set-up per game"). Now the
 * game's table starts empty, with a hidden metatable, the proxy's, whose
 * __index is the template (a table no agent reaches) and whose __newindex
 * and __len are ours: reading a field gives the template's value, `#` the
 * template's length. The first time anything could see that the table is
 * empty, or could change it, the table is filled from the template and
 * loses the metatable (it is "materialized"): then it is exactly the plain
 * copy it stood for. What could see or change it:
 *   - storing a field: every field is absent, so any store (an assignment,
 *     lua_setfield and lua_seti from C: the sandbox's table functions,
 *     LPeg's locale) calls __newindex, which materializes, then stores;
 *   - the raw functions and the ones that list fields: next, pairs,
 *     rawget, rawset, rawlen (sb_next and the others below), which
 *     materialize their table first;
 *   - getmetatable shows nil for it (a plain table has none);
 *     setmetatable materializes it first (sb_base.c).
 * No other function the sandbox offers reads a table given to it raw (the
 * table functions use lua_geti and luaL_len; string.gsub lua_gettable).
 * The game's globals are such a proxy too, of a template of the template's
 * values that are not tables (the base functions, _VERSION): what is the
 * game's own (its library tables, package, _G) is in the globals table
 * from the start (the maker, sandbox.c), and filling never overwrites it.
 * The templates, the proxies' metatables and their functions never reach
 * an agent and no agent code writes them, so nothing of one game reaches
 * the next through them; each game's tables are new, as before. */
#include "sandbox_internal.h"

static const char sb_key_proxy = 0;       /* in a proxy's metatable: its template */
static const char sb_key_game_string = 0; /* the game's `string` (set by the maker, sandbox.c) */

/* Whether the metatable at mt is a proxy's: pushes its template if so. */
static int sb_proxy_template(lua_State *L, int mt)
{
    if (lua_rawgetp(L, mt, &sb_key_proxy) == LUA_TTABLE)
        return 1;
    lua_pop(L, 1);
    return 0;
}

/* sb_materialize's copy: the template's entries (2) into the proxy (1). */
static int sb_fill(lua_State *L)
{
    lua_pushnil(L);
    while (lua_next(L, 2)) {
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, 1);
    }
    return 0;
}

/* Fills the proxy at t from the template on top and takes its metatable
 * away; pops the template. The copy runs as a protected call: when the
 * memory cap stops it half way, the entries it copied are taken out again
 * (clearing a field allocates nothing) before the error goes on, so that t
 * is the empty proxy it was. (Left in place, they would be raw: a store
 * into one would not fill t, and the next filling would write the
 * template's value over it, or give back one the agent removed. A proxy
 * never holds a key of its template before it is filled: any store to
 * such a key fills it.) */
static void sb_materialize(lua_State *L, int t)
{
    int tmpl = lua_gettop(L);
    lua_pushcfunction(L, sb_fill);
    lua_pushvalue(L, t);
    lua_pushvalue(L, tmpl);
    int status = lua_pcall(L, 2, 0, 0);
    if (status != LUA_OK) {
        lua_pushnil(L);
        while (lua_next(L, tmpl)) {
            lua_pop(L, 1);
            lua_pushvalue(L, -1);
            if (lua_rawget(L, t) != LUA_TNIL) {
                lua_pushvalue(L, -2);
                lua_pushnil(L);
                lua_rawset(L, t);
            }
            lua_pop(L, 1);
        }
        lua_error(L); /* the copy's error (a memory error stays one: lua_error) */
    }
    lua_pushnil(L);
    lua_setmetatable(L, t);
    lua_pop(L, 1);
    /* The strings' methods came from the template while the game's string
     * was a proxy (the same values, one look-up less); now from it. */
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &sb_key_game_string) == LUA_TTABLE && lua_rawequal(L, -1, t)) {
        lua_pushliteral(L, "");
        lua_getmetatable(L, -1);
        lua_pushliteral(L, "__index");
        lua_pushvalue(L, t);
        lua_rawset(L, -3);
        lua_pop(L, 2);
    }
    lua_pop(L, 1);
}

void sb_proxy_fix(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    if (lua_type(L, idx) != LUA_TTABLE || !lua_getmetatable(L, idx))
        return;
    int mt = lua_gettop(L);
    if (sb_proxy_template(L, mt)) {
        lua_remove(L, mt);
        sb_materialize(L, idx);
    } else {
        lua_pop(L, 1);
    }
}

void aw_sandbox_fill(lua_State *L, int idx)
{
    sb_proxy_fix(L, idx);
}

/* __newindex (t, k, v): materialized, then stored (raw: t has no
 * metatable now). Errors as an assignment's ("index is nil" at its line). */
static int sb_proxy_newindex(lua_State *L)
{
    lua_settop(L, 3);
    sb_proxy_fix(L, 1);
    if (lua_isnil(L, 2))
        return luaL_error(L, "index is nil");
    if (lua_type(L, 2) == LUA_TNUMBER && lua_tonumber(L, 2) != lua_tonumber(L, 2))
        return luaL_error(L, "index is NaN");
    lua_rawset(L, 1);
    return 0;
}

/* __len: the template's length (its border, as `#` of the copy). */
static int sb_proxy_len(lua_State *L)
{
    if (!lua_getmetatable(L, 1) || !sb_proxy_template(L, lua_gettop(L)))
        return luaL_error(L, "sandbox: not a proxy"); /* a bug of ours */
    lua_pushinteger(L, (lua_Integer)lua_rawlen(L, -1));
    return 1;
}

void sb_proxy_metatable(lua_State *L, int tmpl, int index)
{
    tmpl = lua_absindex(L, tmpl);
    index = lua_absindex(L, index);
    lua_createtable(L, 0, 4);
    lua_pushvalue(L, index);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, sb_proxy_newindex);
    lua_setfield(L, -2, "__newindex");
    lua_pushcfunction(L, sb_proxy_len);
    lua_setfield(L, -2, "__len");
    lua_pushvalue(L, tmpl);
    lua_rawsetp(L, -2, &sb_key_proxy);
}

/* The globals' __index (t, k), its template an upvalue: the template's
 * value, until SB_GLOBAL_READS reads in a game made filling the globals
 * cheaper than reading on through here (a C call each). */
#ifndef SB_GLOBAL_READS
#define SB_GLOBAL_READS 32
#endif
static int sb_proxy_globals_index(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    lua_settop(L, 2);
    if (++sb->global_reads > SB_GLOBAL_READS) {
        sb_proxy_fix(L, 1);
        lua_rawget(L, 1);
        return 1;
    }
    lua_rawget(L, lua_upvalueindex(1));
    return 1;
}

void sb_proxy_globals_metatable(lua_State *L, int tmpl)
{
    tmpl = lua_absindex(L, tmpl);
    sb_proxy_metatable(L, tmpl, tmpl);
    lua_pushvalue(L, tmpl);
    lua_pushcclosure(L, sb_proxy_globals_index, 1);
    lua_setfield(L, -2, "__index");
}

void sb_proxy_open(lua_State *L)
{
    lua_pushboolean(L, 0); /* made with the sandbox: the registry's sweep keeps it */
    lua_rawsetp(L, LUA_REGISTRYINDEX, &sb_key_game_string);
}

void sb_proxy_push_string_key(lua_State *L)
{
    lua_pushlightuserdata(L, (void *)&sb_key_game_string);
}

/* ---- the base functions that see a table raw ---------------------------- */

/* Called on every step of every pairs loop: one look for a metatable
 * when the table has none. */
int sb_next(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 2);
    if (lua_getmetatable(L, 1)) {
        lua_pop(L, 1);
        sb_proxy_fix(L, 1);
    }
    if (lua_next(L, 1))
        return 2;
    lua_pushnil(L);
    return 1;
}

static int sb_pairs_cont(lua_State *L, int status, lua_KContext k)
{
    (void)L;
    (void)status;
    (void)k;
    return 3;
}

int sb_pairs(lua_State *L)
{
    luaL_checkany(L, 1);
    if (luaL_getmetafield(L, 1, "__pairs") == LUA_TNIL) { /* raw, as Lua's pairs */
        sb_proxy_fix(L, 1);
        lua_pushcfunction(L, sb_next);
        lua_pushvalue(L, 1);
        lua_pushnil(L);
    } else {
        lua_pushvalue(L, 1);
        lua_callk(L, 1, 3, 0, sb_pairs_cont);
    }
    return 3;
}

int sb_rawget(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checkany(L, 2);
    lua_settop(L, 2);
    sb_proxy_fix(L, 1);
    lua_rawget(L, 1);
    return 1;
}

int sb_rawset(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checkany(L, 2);
    luaL_checkany(L, 3);
    lua_settop(L, 3);
    sb_proxy_fix(L, 1);
    lua_rawset(L, 1);
    return 1;
}

int sb_rawlen(lua_State *L)
{
    int t = lua_type(L, 1);
    luaL_argexpected(L, t == LUA_TTABLE || t == LUA_TSTRING, 1, "table or string");
    sb_proxy_fix(L, 1);
    lua_pushinteger(L, (lua_Integer)lua_rawlen(L, 1));
    return 1;
}

int sb_getmetatable(lua_State *L)
{
    luaL_checkany(L, 1);
    if (!lua_getmetatable(L, 1)) {
        lua_pushnil(L);
        return 1;
    }
    if (lua_type(L, 1) == LUA_TTABLE && sb_proxy_template(L, lua_gettop(L))) {
        lua_pushnil(L);
        return 1;
    }
    luaL_getmetafield(L, 1, "__metatable"); /* raw, as Lua's own getmetatable */
    return 1;
}
