/* sb_lpeg: LPeg with its checkpoints and guards (the guard itself:
 * lua/lpeg_guard.lua). Part of the sandbox (sandbox.h is the contract;
 * sandbox_internal.h what the parts share). */
#include "sandbox_internal.h"

/* ------------------------------------------------------------------------ */
/* LPeg. Its matcher is a C loop no hook reaches, and PEG grammars can
 * backtrack exponentially, so every loop body (p^n) and every grammar rule
 * the agent builds starts with a match-time checkpoint: a Cmt whose C
 * function charges the budget and reads the clock. Tables given anywhere a
 * pattern is expected become grammars through the same instrumentation;
 * back captures (Cb, which search the capture list) pass through a
 * checkpoint too. The pattern metatable is hidden from getmetatable.        */

static int sb_lpeg_check(lua_State *L)
{
    sb_charge(L, sb_of(L), 32);
    lua_pushboolean(L, 1);
    return 1;
}

/* Called by every LPeg constructor wrapper: the full collection the
 * allocator asked for, from an ordinary C function (not from a hook or the
 * allocator, where collecting is not safe). It runs finalizers, which for
 * agents can only be LPeg's own C ones. */
int sb_lpeg_gc(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    if (sb->want_gc) {
        sb->want_gc = 0;
        sb->since_gc = 0;
        lua_gc(L, LUA_GCCOLLECT);
    }
    return 0;
}

/* lpeg.match goes through here. LPeg 1.0.2 pushes the values of nested
 * captures without always checking the Lua stack (100 nested C() write past
 * the stack in stock LPeg: valgrind shows it), so the stack is grown first
 * far beyond what LPeg's own nesting limit (200 levels) can push, keeping
 * those writes inside allocated, unused stack slots. */
#define SB_LPEG_STACK 2000
static int sb_lpeg_match(lua_State *L)
{
    int n = lua_gettop(L);
    luaL_checkstack(L, SB_LPEG_STACK, "lpeg.match");
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L);
}

static int sb_lpeg_guard(lua_State *L)
{
    lua_settop(L, 1);
    lua_pushcclosure(L, sb_lpeg_match, 1);
    return 1;
}

static int sb_lpeg_pass(lua_State *L)
{
    sb_charge(L, sb_of(L), 32);
    return lua_gettop(L);
}

/* The instrumentation, in Lua: it runs once per sandbox when LPeg is first
 * required, with the raw module, the pattern metatable, the two checkpoint
 * functions and a weak-keyed table (made in C: the agent's setmetatable
 * refuses weak keys). Every pattern built through the wrappers gets a
 * "shadow" there: an upper estimate of its tree size and how many references
 * to each rule name it contains. They guard three things LPeg itself does
 * not:
 *  - LPeg's grammar analyses (left-recursion and loop checks, first sets)
 *    follow every rule reference separately, so a grammar whose rules each
 *    reference the next one twice takes 2^n steps inside one C call, before
 *    any match: a grammar is refused when the reference paths from a rule
 *    pass a bound;
 *  - LPeg computes tree sizes in int: p^n and P(n) for large n overflow and
 *    write past the tree (P(-2^31) crashes stock LPeg 1.0.2), so counts are
 *    capped and p^n is refused when its size estimate is too large;
 *  - LPeg's tree algorithms recurse on nested patterns (captures,
 *    predicates, repetitions), and through rule references into rule
 *    bodies: 30 000 nested -p crash stock LPeg on the C stack, so nesting
 *    is capped at 400 (sequences and choices, which LPeg keeps flat, do not
 *    count) and a grammar's rule count times its deepest rule at 10 000;
 *  - loops and rules get the match-time checkpoint (see above).
 * Shadow values hold only numbers and rule names (strings or numbers), never
 * patterns, so the weak table can never form chains the collector would
 * traverse quadratically. */
/* (The guard itself is Lua: runtime/luahost/lua/lpeg_guard.lua, compiled
 * into the binary as host code, aw_hostmods.) */

static char sb_key_lpeg_module;

int sb_open_lpeg(lua_State *L)
{
    lua_settop(L, 0);
    /* Opened once per game (the next game's environment removes it:
     * aw_sandbox_renew): running luaopen_lpeg again (after an agent
     * clears package.loaded.lpeg) would put LPeg's raw metamethods back into
     * the shared pattern metatable and start new, empty shadows, switching
     * the guards off for every pattern made before. */
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &sb_key_lpeg_module) == LUA_TTABLE)
        return 1;
    lua_pop(L, 1);
    sb_of(L)->lpeg_opened = 1; /* the next game's environment sweeps what it registers */
    lua_pushcfunction(L, luaopen_lpeg);
    lua_call(L, 0, 1); /* 1: the module */
    lua_getfield(L, 1, "P");
    lua_pushboolean(L, 1);
    lua_call(L, 1, 1);
    if (!lua_getmetatable(L, -1)) /* 3: the pattern metatable (raw, from C) */
        return luaL_error(L, "lpeg: patterns have no metatable");
    const aw_luamod *guard = aw_hostmod("lpeg_guard");
    if (!guard || luaL_loadbufferx(L, guard->source, guard->len, "=lpeg-sandbox", "t") != LUA_OK)
        return lua_error(L);
    /* Its globals are the template's (sb_setup), not the game's: the
     * agent's `type` or `math.type`, replaced before its first require,
     * would otherwise be the guard's and could switch the guards off. */
    lua_rawgetp(L, LUA_REGISTRYINDEX, &sb_key_template);
    lua_setupvalue(L, -2, 1);
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 3);
    lua_pushcfunction(L, sb_lpeg_check);
    lua_pushcfunction(L, sb_lpeg_pass);
    lua_newtable(L); /* the shadows: weak keys, values never refer back to patterns */
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_pushcfunction(L, sb_lpeg_gc);
    lua_pushcfunction(L, sb_lpeg_guard);
    lua_call(L, 7, 0);
    lua_settop(L, 1);
    lua_pushvalue(L, 1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &sb_key_lpeg_module);
    return 1;
}
