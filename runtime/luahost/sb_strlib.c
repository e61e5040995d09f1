/* sb_strlib: bounded string functions: string.rep, charged stock
 * functions, string.format, string.pack. Part of the sandbox (sandbox.h is
 * the contract; sandbox_internal.h what the parts share). */
#include "sandbox_internal.h"

/* ------------------------------------------------------------------------ */
/* string.rep: one allocation, filled by doubling copies, so that neither a
 * huge count of an empty string nor a count of one-byte strings loops. */
static int sb_rep(lua_State *L)
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

static int sb_format(lua_State *L)
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
        if (conv == 'p' && !memchr(pc, '.', (size_t)(spec_end - pc))) {
            /* %p: the object's number (sb_addr.c), formatted as a string
             * (the flags and width of %p are those of %s). */
            lua_pushlstring(L, pc, (size_t)(spec_end - pc - 1));
            lua_pushliteral(L, "s");
            lua_concat(L, 2);
            sb_push_pointer(L, arg);
        } else {
            lua_pushlstring(L, pc, (size_t)(spec_end - pc));
            if (conv == 's') /* what tostring shows, never an address */
                sb_tolstring(L, arg, NULL);
            else
                lua_pushvalue(L, arg);
        }
        lua_call(L, 2, 1);
        luaL_addvalue(&b);
        p = spec_end;
    }
    luaL_pushresult(&b);
    return 1;
}

/* string.pack: numbers in the format (sizes, 'c' lengths) are capped so that
 * padding loops stay short. */
static int sb_pack(lua_State *L)
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

/* ------------------------------------------------------------------------ */
/* The string and utf8 libraries, as agents see them.                       */

void sb_open_string(lua_State *L)
{
    static const luaL_Reg str[] = {{"dump", NULL}, {"rep", sb_rep}, {NULL, NULL}};
    luaL_requiref(L, LUA_STRLIBNAME, luaopen_string, 1);
    sb_set_funcs(L, str);
    sb_set_funcs(L, sb_string_patterns);
    sb_wrap_field(L, "pack", sb_pack);
    sb_wrap_field(L, "format", sb_format);
    static const char *const str_charged[] = {"byte", "unpack", NULL};
    for (int i = 0; str_charged[i]; i++)
        sb_wrap_field(L, str_charged[i], sb_charged);
    lua_pop(L, 1);
    /* Strings share one metatable; getmetatable("") must not hand it out. */
    lua_pushliteral(L, "");
    lua_getmetatable(L, -1);
    static const char *const arith[] = {"__add", "__sub", "__mul", "__mod", "__pow",  "__div",
                                        "__idiv", "__unm", NULL};
    for (int i = 0; arith[i]; i++)
        if (lua_getfield(L, -1, arith[i]) == LUA_TFUNCTION) {
            lua_pushcclosure(L, sb_string_arith, 1);
            lua_setfield(L, -2, arith[i]);
        } else {
            lua_pop(L, 1);
        }
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 2);
}

void sb_open_utf8(lua_State *L)
{
    luaL_requiref(L, LUA_UTF8LIBNAME, luaopen_utf8, 1);
    static const char *const utf8_charged[] = {"char", "codepoint", "len", "offset", NULL};
    for (int i = 0; utf8_charged[i]; i++)
        sb_wrap_field(L, utf8_charged[i], sb_charged);
    lua_pop(L, 1);
}
