/* sb_os: os.time and os.date. Part of the sandbox (sandbox.h is the
 * contract; sandbox_internal.h what the parts share). */
#include "sandbox_internal.h"

/* ------------------------------------------------------------------------ */
/* os.time and os.date, our own: the same results as stock Lua 5.4, but the
 * libc calls that take glibc's time-zone lock (mktime, localtime_r,
 * strftime) run with `in_libc` set, and nothing else does: no agent code
 * (a table's __index), no allocation, no collector step. The last resort
 * never jumps out while it is set (a lock left taken would stop every
 * other agent's os.date/os.time in this process). */

/* The fields of a date table, as stock Lua reads them: required ones (d <
 * 0) raise "missing", out-of-range ones "out-of-bound". Agent code may run
 * (__index); the lock is not held. */
static int sb_date_field(lua_State *L, const char *key, int d, int delta)
{
    int isnum;
    int t = lua_getfield(L, -1, key);
    lua_Integer res = lua_tointegerx(L, -1, &isnum);
    if (!isnum) {
        if (t != LUA_TNIL)
            return luaL_error(L, "field '%s' is not an integer", key);
        else if (d < 0)
            return luaL_error(L, "field '%s' missing in date table", key);
        res = d;
    } else {
        if (!(res >= 0 ? res - delta <= INT_MAX : INT_MIN + delta <= res))
            return luaL_error(L, "field '%s' is out-of-bound", key);
        res -= delta;
    }
    lua_pop(L, 1);
    return (int)res;
}

static void sb_date_setfield(lua_State *L, const char *key, int value, int delta)
{
    lua_pushinteger(L, (lua_Integer)value + delta);
    lua_setfield(L, -2, key);
}

static void sb_date_setall(lua_State *L, const struct tm *stm)
{
    sb_date_setfield(L, "year", stm->tm_year, 1900);
    sb_date_setfield(L, "month", stm->tm_mon, 1);
    sb_date_setfield(L, "day", stm->tm_mday, 0);
    sb_date_setfield(L, "hour", stm->tm_hour, 0);
    sb_date_setfield(L, "min", stm->tm_min, 0);
    sb_date_setfield(L, "sec", stm->tm_sec, 0);
    sb_date_setfield(L, "yday", stm->tm_yday, 1);
    sb_date_setfield(L, "wday", stm->tm_wday, 1);
    if (stm->tm_isdst >= 0) {
        lua_pushboolean(L, stm->tm_isdst);
        lua_setfield(L, -2, "isdst");
    }
}

/* "Now" for os.time() and os.date() without a time: the time the process
 * started, the same in every game and seat of the process. The real time
 * is shared by every seat and game (and process), and a seat moves it on
 * by burning CPU: the last seat of a game waited (up to 4 s, under its
 * budget) until os.time() % 5 named the werewolf's seat, and its copy read
 * it in the mirrored game's initialize (tests/sandbox/leak/wall_vs.lua).
 * Read before main, so before any agent code of this process runs (forked
 * children inherit it). */
static time_t sb_start_time;
__attribute__((constructor)) static void sb_start_time_init(void)
{
    sb_start_time = time(NULL);
}

static int sb_ostime(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    time_t t;
    if (lua_isnoneornil(L, 1)) {
        t = sb_start_time;
    } else {
        struct tm ts;
        luaL_checktype(L, 1, LUA_TTABLE);
        lua_settop(L, 1);
        ts.tm_year = sb_date_field(L, "year", -1, 1900);
        ts.tm_mon = sb_date_field(L, "month", -1, 1);
        ts.tm_mday = sb_date_field(L, "day", -1, 0);
        ts.tm_hour = sb_date_field(L, "hour", 12, 0);
        ts.tm_min = sb_date_field(L, "min", 0, 0);
        ts.tm_sec = sb_date_field(L, "sec", 0, 0);
        lua_getfield(L, 1, "isdst");
        ts.tm_isdst = lua_isnil(L, -1) ? -1 : lua_toboolean(L, -1);
        lua_pop(L, 1);
        sb->in_libc = 1;
        t = mktime(&ts);
        sb->in_libc = 0;
        sb_date_setall(L, &ts); /* the table's fields, normalized */
    }
    if (t == (time_t)(-1))
        return luaL_error(L, "time result cannot be represented in this installation");
    lua_pushinteger(L, (lua_Integer)t);
    return 1;
}

/* The conversions Lua 5.4 accepts (C99): one character, or E or O and one. */
static size_t sb_date_conversion(const char *s)
{
    static const char one[] = "aAbBcCdDeFgGhHIjmMnprRStTuUVwWxXyYzZ%";
    static const char e[] = "cCxXyY", o[] = "deHImMSuUVwWy";
    if (*s && strchr(one, *s))
        return 1;
    if (*s == 'E' && s[1] && strchr(e, s[1]))
        return 2;
    if (*s == 'O' && s[1] && strchr(o, s[1]))
        return 2;
    return 0;
}

static int sb_osdate(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    size_t slen;
    const char *s = luaL_optlstring(L, 1, "%c", &slen);
    luaL_argcheck(L, slen <= 1024, 1, "format longer than 1 KiB");
    time_t t = lua_isnoneornil(L, 2) ? sb_start_time : (time_t)luaL_checkinteger(L, 2);
    const char *se = s + slen;
    struct tm tmr, *stm;
    sb->in_libc = 1;
    if (*s == '!') {
        stm = gmtime_r(&t, &tmr);
        s++;
    } else {
        stm = localtime_r(&t, &tmr);
    }
    sb->in_libc = 0;
    if (stm == NULL)
        return luaL_error(L, "date result cannot be represented in this installation");
    if (strcmp(s, "*t") == 0) {
        lua_createtable(L, 0, 9);
        sb_date_setall(L, stm);
        return 1;
    }
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    while (s < se) {
        if (*s != '%') {
            luaL_addchar(&b, *s++);
            continue;
        }
        s++;
        size_t n = sb_date_conversion(s);
        if (n == 0 || s + n > se)
            return luaL_error(L, "invalid conversion specifier '%%%s'", s);
        char cc[4] = {'%', 0, 0, 0};
        memcpy(cc + 1, s, n);
        s += n;
        char out[256];
        sb->in_libc = 1;
        size_t reslen = strftime(out, sizeof out, cc, stm);
        sb->in_libc = 0;
        luaL_addlstring(&b, out, reslen);
    }
    luaL_pushresult(&b);
    return 1;
}

/* ------------------------------------------------------------------------ */
/* os: only the clock and calendar functions.                              */

void sb_open_os(lua_State *L)
{
    lua_pushcfunction(L, luaopen_os);
    lua_call(L, 0, 1);
    lua_createtable(L, 0, 4);
    static const char *const os_keep[] = {"clock", "time", "date", "difftime", NULL};
    for (int i = 0; os_keep[i]; i++) {
        lua_getfield(L, -2, os_keep[i]);
        lua_setfield(L, -2, os_keep[i]);
    }
    lua_remove(L, -2);
    lua_pushcfunction(L, sb_osdate);
    lua_setfield(L, -2, "date");
    lua_pushcfunction(L, sb_ostime);
    lua_setfield(L, -2, "time");
    lua_pushcfunction(L, sb_osclock);
    lua_setfield(L, -2, "clock");
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_pushvalue(L, -2);
    lua_setfield(L, -2, "os");
    lua_pop(L, 1);
    lua_setglobal(L, "os");
}
