/* sb_strlib: bounded string and os functions: string.rep, charged stock
 * functions, os.time/os.date, table.unpack, string.format, numerals,
 * string.pack. Part of the sandbox (sandbox.h is the contract;
 * sandbox_internal.h what the parts share). */
#include "sandbox_internal.h"

/* ------------------------------------------------------------------------ */
/* string.rep: one allocation, filled by doubling copies, so that neither a
 * huge count of an empty string nor a count of one-byte strings loops. */
int sb_rep(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    size_t l, lsep;
    const char *s = luaL_checklstring(L, 1, &l);
    lua_Integer n = luaL_checkinteger(L, 2);
    const char *sep = luaL_optlstring(L, 3, "", &lsep);
    if (n <= 0 || (l == 0 && lsep == 0) || (l == 0 && n == 1)) {
        lua_pushliteral(L, "");
        return 1;
    }
    size_t unit = l + lsep;
    if (unit < l || (lua_Unsigned)n > (SIZE_MAX - lsep) / unit)
        return luaL_error(L, "resulting string too large");
    /* A result beyond the cap fails in the allocator: a memory error. */
    size_t total = (size_t)n * unit - lsep;
    luaL_Buffer b;
    char *p = luaL_buffinitsize(L, &b, total); /* past the cap: a memory error */
    sb_charge(L, sb, total / 64 + 1);
    size_t done = l < total ? l : total;
    memcpy(p, s, done);
    if (done < total) {
        memcpy(p + done, sep, lsep);
        done += lsep;
    }
    while (done < total) { /* p[0..done) is a whole number of units */
        size_t k = done < total - done ? done : total - done;
        memcpy(p + done, p, k);
        done += k;
    }
    luaL_pushresultsize(&b, total);
    return 1;
}

/* Stock library functions that scan their string arguments or push many
 * results without creating long strings (utf8.len, string.byte,
 * table.unpack, tonumber...) go through this closure (functions whose
 * cost is their result, like upper or sub, are priced by the long strings
 * they create), which charges their
 * input bytes before and their results after: it prices them in the work
 * budget and, for big inputs, reads the clock between calls. */
int sb_charged(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    int n = lua_gettop(L);
    uint64_t cost = 1;
    for (int i = 1; i <= n; i++)
        if (lua_type(L, i) == LUA_TSTRING)
            cost += lua_rawlen(L, i) / 16;
    sb_charge(L, sb, cost);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    n = lua_gettop(L);
    sb_charge(L, sb, (uint64_t)n);
    return n;
}


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

int sb_ostime(lua_State *L)
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

int sb_osdate(lua_State *L)
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

/* table.unpack: a C loop that may call __index once per element, so each
 * element is charged and the loop is stoppable (a million __index calls to
 * a C function run no Lua instruction a hook could stop). */
int sb_tunpack(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    lua_Integer i = luaL_optinteger(L, 2, 1);
    lua_Integer e = luaL_opt(L, luaL_checkinteger, 3, luaL_len(L, 1));
    if (i > e)
        return 0;
    lua_Unsigned n = (lua_Unsigned)e - (lua_Unsigned)i;
    if (n >= (unsigned int)INT_MAX || !lua_checkstack(L, (int)(++n)))
        return luaL_error(L, "too many results to unpack");
    for (; i < e; i++) {
        sb_charge(L, sb, 8);
        lua_geti(L, 1, i);
    }
    sb_charge(L, sb, 8);
    lua_geti(L, 1, e);
    return (int)n;
}


/* ------------------------------------------------------------------------ */
/* string.format: the stock function, fed one conversion at a time so that
 * a format of a million conversions is checkpointed like any other loop,
 * and %q of a string is our own (the same text as stock Lua), charged and
 * checkpointed every 64 KiB: stock %q adds a character at a time, some 20 ns
 * a byte, one C call of 300 ms for 15 MB. Results are identical to stock
 * Lua (the differential test compares them). */

/* Length of the conversion spec at p (just after its '%'), as far as the
 * stock parser reads one: flags, width, precision, conversion character. A
 * malformed spec is handed to the stock function whole, which raises the
 * same error it always does. */
static size_t sb_format_spec(const char *p, const char *e)
{
    const char *q = p;
    while (q < e && strchr("-+ #0", *q))
        q++;
    while (q < e && *q >= '0' && *q <= '9')
        q++;
    if (q < e && *q == '.') {
        q++;
        while (q < e && *q >= '0' && *q <= '9')
            q++;
    }
    if (q < e)
        q++; /* the conversion */
    return (size_t)(q - p);
}

/* %q of a string, as stock Lua writes it. */
static void sb_addquoted(lua_State *L, aw_sandbox *sb, luaL_Buffer *b, const char *s, size_t len)
{
    luaL_addchar(b, '"');
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((i & 0xffff) == 0xffff)
            sb_charge(L, sb, 0x10000 / 16);
        if (c == '"' || c == '\\' || c == '\n') {
            luaL_addchar(b, '\\');
            luaL_addchar(b, (char)c);
        } else if (c < 0x20 || c == 0x7f) {
            char buf[8];
            /* s[len] is the string's terminating NUL, as in stock Lua */
            unsigned char next = (unsigned char)s[i + 1];
            snprintf(buf, sizeof buf, next >= '0' && next <= '9' ? "\\%03d" : "\\%d", (int)c);
            luaL_addstring(b, buf);
        } else {
            luaL_addchar(b, (char)c);
        }
    }
    luaL_addchar(b, '"');
}

int sb_format(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    size_t flen;
    const char *fmt = luaL_checklstring(L, 1, &flen);
    const char *p = fmt, *e = fmt + flen;
    int top = lua_gettop(L), arg = 1;
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    while (p < e) {
        /* Literal text up to the next conversion. */
        const char *pc = memchr(p, '%', (size_t)(e - p));
        if (!pc) {
            luaL_addlstring(&b, p, (size_t)(e - p));
            break;
        }
        luaL_addlstring(&b, p, (size_t)(pc - p));
        if (pc + 1 < e && pc[1] == '%') {
            luaL_addchar(&b, '%');
            p = pc + 2;
            continue;
        }
        size_t n = sb_format_spec(pc + 1, e);
        const char *spec_end = pc + 1 + n;
        sb_charge(L, sb, 4);
        if (n == 1 && pc[1] == 'q' && arg < top && lua_type(L, arg + 1) == LUA_TSTRING) {
            size_t slen;
            const char *s = lua_tolstring(L, ++arg, &slen);
            sb_addquoted(L, sb, &b, s, slen);
            p = spec_end;
            continue;
        }
        /* One conversion by the stock function: string.format(spec, arg).
         * The argument is checked here first, as the stock function would,
         * so that an error names the real argument and function. */
        if (arg >= top)
            return luaL_argerror(L, arg + 1, "no value");
        arg++;
        char conv = spec_end > pc + 1 ? spec_end[-1] : 0;
        if (strchr("diouxXc", conv))
            luaL_checkinteger(L, arg);
        else if (strchr("aAfFeEgG", conv))
            luaL_checknumber(L, arg);
        else if (conv == 'q' && n == 1 && !(lua_type(L, arg) == LUA_TNUMBER || lua_type(L, arg) == LUA_TNIL ||
                                            lua_type(L, arg) == LUA_TBOOLEAN))
            return luaL_argerror(L, arg, "value has no literal form");
        lua_pushvalue(L, lua_upvalueindex(1));
        lua_pushlstring(L, pc, (size_t)(spec_end - pc));
        lua_pushvalue(L, arg);
        lua_call(L, 2, 1);
        luaL_addvalue(&b);
        p = spec_end;
    }
    luaL_pushresult(&b);
    return 1;
}

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

/* string.pack: numbers in the format (sizes, 'c' lengths) are capped so that
 * padding loops stay short. */
int sb_pack(lua_State *L)
{
    const char *fmt = luaL_checkstring(L, 1);
    for (const char *p = fmt; *p; p++) {
        if (*p >= '0' && *p <= '9') {
            unsigned long v = 0;
            while (*p >= '0' && *p <= '9') {
                if (v < 100000000)
                    v = v * 10 + (unsigned long)(*p - '0');
                p++;
            }
            if (v > (1u << 20))
                return luaL_argerror(L, 1, "size in format larger than 1 MiB");
            p--;
        }
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}
