/* sandbox_fill: a game's globals filled from their template (sb_proxy.c)
 * behave as a plain table even when the memory cap stops the filling half
 * way. The agent catches the memory error (pcall) and goes on: a base
 * function it then replaces must stay replaced, and one it removes must
 * stay removed, when the globals are filled later. (The filling used to
 * leave the entries it had copied in place, raw: a store into one of them
 * then did not fill the table, and the next filling wrote the template's
 * value over it, or gave back one the agent had removed.)
 *
 * Each round is a new sandbox whose heap the host fills (outside any call,
 * the collector stopped, everything live) to a given headroom under the
 * cap; the rounds try headrooms from nothing to a few KiB in steps of 8
 * bytes, so that some stop the filling between its table's growths. Which
 * base functions come first in a filling depends on the strings' hash
 * order, so each round names other ones to replace and remove. */
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>

#include "sandbox.h"
#include "test.h"

#define CAP ((size_t)2 << 20)
#define TABLES 40000

static const char prep_src[] =
    "local G = _G\n"
    "local names = {'assert', 'error', 'getmetatable', 'ipairs', 'load', 'next', 'pairs', 'pcall', 'print',\n"
    "  'rawequal', 'rawget', 'rawlen', 'rawset', 'require', 'select', 'setmetatable', 'tonumber', 'tostring',\n"
    "  'type', 'xpcall', 'collectgarbage', '_VERSION'}\n"
    "local n = #names\n"
    "return function() newglobal = 1 end, function(round)\n"
    "  local a, b = names[round % n + 1], names[(round + 1) % n + 1]\n"
    "  G[a] = 5\n"
    "  G[b] = nil\n"
    "  local early = G[b]\n"
    "  G.newglobal2 = 1 -- fills the globals, if nothing did yet\n"
    "  if G[a] ~= 5 or G[b] ~= nil or early ~= nil then return a .. ' and ' .. b end\n"
    "  return ''\n"
    "end\n";

typedef struct fill_test {
    int setter, check;
    int round;
    char out[200];
} fill_test;

static int prep(lua_State *L)
{
    fill_test *t = lua_touserdata(L, 1);
    if (luaL_loadstring(L, prep_src) != LUA_OK)
        return lua_error(L);
    lua_call(L, 0, 2);
    t->check = luaL_ref(L, LUA_REGISTRYINDEX);
    t->setter = luaL_ref(L, LUA_REGISTRYINDEX);
    return 0;
}

static int trigger(lua_State *L)
{
    fill_test *t = lua_touserdata(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, t->setter);
    lua_call(L, 0, 0);
    return 0;
}

static int check(lua_State *L)
{
    fill_test *t = lua_touserdata(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, t->check);
    lua_pushinteger(L, t->round);
    lua_call(L, 1, 1);
    snprintf(t->out, sizeof t->out, "%s", lua_tostring(L, -1));
    return 0;
}

int main(void)
{
    int stopped = 0, wrong = 0, round = 0;
    for (size_t headroom = 0; headroom < 4096; headroom += 8, round++) {
        aw_sandbox_limits lim;
        aw_error err;
        aw_fault f;
        aw_sandbox_limits_default(&lim);
        lim.memory_bytes = CAP;
        lim.budget_ms = 2000;
        aw_sandbox *sb = aw_sandbox_new(&lim, &err);
        CHECK_MSG(sb != NULL, "%s", err.msg);
        if (!sb)
            break;
        fill_test t = {.round = round};
        CHECK_INT(aw_sandbox_run(sb, prep, &t, &f), 0);
        lua_State *L = aw_sandbox_state(sb);
        lua_gc(L, LUA_GCCOLLECT);
        lua_gc(L, LUA_GCSTOP);
        lua_createtable(L, TABLES, 0);
        int n = 0;
        while (n < TABLES && aw_sandbox_memory(sb) + 4096 + headroom < CAP) {
            lua_createtable(L, 0, 0);
            lua_rawseti(L, -2, ++n);
        }
        size_t left = CAP - aw_sandbox_memory(sb);
        if (left > headroom + 64) {
            lua_newuserdatauv(L, left - headroom - 64, 0);
            lua_rawseti(L, -2, ++n);
        }
        int hog = luaL_ref(L, LUA_REGISTRYINDEX);
        if (aw_sandbox_run(sb, trigger, &t, &f) < 0) {
            CHECK_MSG(f.kind == AW_FAULT_MEMORY, "headroom %zu: %s", headroom, f.msg);
            stopped++;
        }
        luaL_unref(L, LUA_REGISTRYINDEX, hog);
        lua_gc(L, LUA_GCRESTART);
        lua_gc(L, LUA_GCCOLLECT);
        CHECK_INT(aw_sandbox_run(sb, check, &t, &f), 0);
        if (t.out[0] && wrong++ < 5)
            fprintf(stderr, "headroom %zu: after the filling stopped, %s were not as the agent left them\n", headroom,
                    t.out);
        aw_sandbox_free(sb);
    }
    printf("%d rounds, %d fillings stopped by the cap, %d wrong\n", round, stopped, wrong);
    CHECK(stopped > 0);
    CHECK_INT(wrong, 0);
    return test_done();
}
