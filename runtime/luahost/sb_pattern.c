/* sb_pattern: our own pattern matcher: string.find/match/gmatch/gsub, step-
 * counted. Part of the sandbox (sandbox.h is the contract; sandbox_internal.h
 * what the parts share). */
#include "sandbox_internal.h"

/* ------------------------------------------------------------------------ */
/* Patterns: string.find/match/gmatch/gsub on our own backtracking matcher.
 * It implements Lua 5.4's pattern language (classes, sets, the four
 * quantifiers, captures and position captures, back references, %b, %f,
 * anchors) but charges one work unit per step, so that catastrophic
 * backtracking ('.-.-.-.-b' on a long subject) stops at the budget instead
 * of running for hours inside one C call.                                   */

#define PM_CAP_UNFINISHED (-1)
#define PM_CAP_POSITION (-2)

typedef struct pm_state {
    const char *src_init, *src_end; /* the subject */
    const char *p_end;              /* end of the pattern */
    lua_State *L;
    aw_sandbox *sb;
    unsigned pending;               /* steps not yet charged */
    int depth;                      /* recursion left */
    int level;                      /* captures open or closed so far */
    struct {
        const char *init;
        ptrdiff_t len;
    } capture[SB_MAXCAPTURES];
} pm_state;

static void pm_step(pm_state *ms)
{
    if (++ms->pending >= 256) {
        sb_charge(ms->L, ms->sb, ms->pending);
        ms->pending = 0;
    }
}

static void pm_prepare(pm_state *ms, lua_State *L, const char *s, size_t ls, const char *p, size_t lp)
{
    ms->L = L;
    ms->sb = sb_of(L);
    ms->pending = 0;
    ms->src_init = s;
    ms->src_end = s + ls;
    ms->p_end = p + lp;
}

static void pm_reset(pm_state *ms)
{
    ms->level = 0;
    ms->depth = SB_MAXMATCHDEPTH;
}

static const char *pm_class_end(pm_state *ms, const char *p)
{
    char c = *p++;
    if (c == '%') {
        if (p >= ms->p_end)
            luaL_error(ms->L, "malformed pattern (ends with '%%')");
        return p + 1;
    }
    if (c == '[') {
        if (*p == '^')
            p++;
        do { /* the first character may be a literal ']' */
            if (p >= ms->p_end)
                luaL_error(ms->L, "malformed pattern (missing ']')");
            c = *p++;
            if (c == '%' && p < ms->p_end)
                p++; /* an escaped character, maybe ']' */
        } while (*p != ']');
        return p + 1;
    }
    return p;
}

static int pm_class(int c, int cl)
{
    int r;
    switch (cl | 0x20) { /* lower case of a letter */
    case 'a': r = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); break;
    case 'c': r = c < 0x20 || c == 0x7f; break;
    case 'd': r = c >= '0' && c <= '9'; break;
    case 'g': r = c > 0x20 && c < 0x7f; break;
    case 'l': r = c >= 'a' && c <= 'z'; break;
    case 'p': r = (c > 0x20 && c < 0x7f) && !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')); break;
    case 's': r = c == ' ' || (c >= '\t' && c <= '\r'); break;
    case 'u': r = c >= 'A' && c <= 'Z'; break;
    case 'w': r = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); break;
    case 'x': r = (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f'); break;
    case 'z': r = c == 0; break; /* deprecated, still in 5.4 */
    default: return cl == c;
    }
    if (cl >= 'A' && cl <= 'Z')
        r = !r; /* %A, %D, ...: the complement */
    return r;
}

/* p points at '[', ec at the closing ']'. */
static int pm_set(int c, const char *p, const char *ec)
{
    int found = 1;
    if (p[1] == '^') {
        found = 0;
        p++;
    }
    while (++p < ec) {
        if (*p == '%') {
            p++;
            if (pm_class(c, (unsigned char)*p))
                return found;
        } else if (p[1] == '-' && p + 2 < ec) {
            if ((unsigned char)p[0] <= c && c <= (unsigned char)p[2])
                return found;
            p += 2;
        } else if ((unsigned char)*p == c) {
            return found;
        }
    }
    return !found;
}

static int pm_single(pm_state *ms, const char *s, const char *p, const char *ep)
{
    if (s >= ms->src_end)
        return 0;
    int c = (unsigned char)*s;
    switch (*p) {
    case '.': return 1;
    case '%': return pm_class(c, (unsigned char)p[1]);
    case '[': return pm_set(c, p, ep - 1);
    default: return (unsigned char)*p == c;
    }
}

static const char *pm_match(pm_state *ms, const char *s, const char *p);

static const char *pm_max_expand(pm_state *ms, const char *s, const char *p, const char *ep)
{
    ptrdiff_t n = 0;
    while (pm_single(ms, s + n, p, ep)) {
        n++;
        pm_step(ms);
    }
    for (; n >= 0; n--) { /* longest first, giving back one at a time */
        pm_step(ms);
        const char *r = pm_match(ms, s + n, ep + 1);
        if (r)
            return r;
    }
    return NULL;
}

static const char *pm_min_expand(pm_state *ms, const char *s, const char *p, const char *ep)
{
    for (;;) {
        pm_step(ms);
        const char *r = pm_match(ms, s, ep + 1);
        if (r)
            return r;
        if (!pm_single(ms, s, p, ep))
            return NULL;
        s++;
    }
}

static const char *pm_open(pm_state *ms, const char *s, const char *p, ptrdiff_t what)
{
    if (ms->level >= SB_MAXCAPTURES)
        luaL_error(ms->L, "too many captures");
    ms->capture[ms->level].init = s;
    ms->capture[ms->level].len = what;
    ms->level++;
    const char *r = pm_match(ms, s, p);
    if (!r)
        ms->level--;
    return r;
}

static const char *pm_close(pm_state *ms, const char *s, const char *p)
{
    int l = ms->level - 1;
    while (l >= 0 && ms->capture[l].len != PM_CAP_UNFINISHED)
        l--;
    if (l < 0)
        luaL_error(ms->L, "invalid pattern capture");
    ms->capture[l].len = s - ms->capture[l].init;
    const char *r = pm_match(ms, s, p);
    if (!r)
        ms->capture[l].len = PM_CAP_UNFINISHED;
    return r;
}

static const char *pm_balance(pm_state *ms, const char *s, const char *p)
{
    if (p + 1 >= ms->p_end)
        luaL_error(ms->L, "malformed pattern (missing arguments to '%%b')");
    if (s >= ms->src_end || *s != *p)
        return NULL;
    char open = p[0], close = p[1];
    int depth = 1;
    while (++s < ms->src_end) {
        pm_step(ms);
        if (*s == close) {
            if (--depth == 0)
                return s + 1;
        } else if (*s == open) {
            depth++;
        }
    }
    return NULL;
}

static const char *pm_backref(pm_state *ms, const char *s, int c)
{
    int l = c - '1';
    if (l < 0 || l >= ms->level || ms->capture[l].len == PM_CAP_UNFINISHED)
        luaL_error(ms->L, "invalid capture index %%%d in pattern", l + 1);
    size_t len = (size_t)ms->capture[l].len; /* a position capture never matches */
    if ((size_t)(ms->src_end - s) >= len) {
        sb_charge(ms->L, ms->sb, len / 16 + 1);
        if (memcmp(ms->capture[l].init, s, len) == 0)
            return s + len;
    }
    return NULL;
}

static const char *pm_match(pm_state *ms, const char *s, const char *p)
{
    if (ms->depth-- == 0)
        luaL_error(ms->L, "pattern too complex");
    for (;;) {
        pm_step(ms);
        if (p == ms->p_end)
            break;
        if (*p == '(') {
            s = p[1] == ')' ? pm_open(ms, s, p + 2, PM_CAP_POSITION) : pm_open(ms, s, p + 1, PM_CAP_UNFINISHED);
            break;
        }
        if (*p == ')') {
            s = pm_close(ms, s, p + 1);
            break;
        }
        if (*p == '$' && p + 1 == ms->p_end) {
            if (s != ms->src_end)
                s = NULL;
            break;
        }
        if (*p == '%' && p + 1 < ms->p_end) {
            if (p[1] == 'b') {
                s = pm_balance(ms, s, p + 2);
                if (s) {
                    p += 4;
                    continue;
                }
                break;
            }
            if (p[1] == 'f') {
                p += 2;
                if (*p != '[')
                    luaL_error(ms->L, "missing '[' after '%%f' in pattern");
                const char *ep = pm_class_end(ms, p);
                int prev = s == ms->src_init ? 0 : (unsigned char)s[-1];
                int cur = s < ms->src_end ? (unsigned char)*s : 0;
                if (!pm_set(prev, p, ep - 1) && pm_set(cur, p, ep - 1)) {
                    p = ep;
                    continue;
                }
                s = NULL;
                break;
            }
            if (p[1] >= '0' && p[1] <= '9') {
                s = pm_backref(ms, s, (unsigned char)p[1]);
                if (s) {
                    p += 2;
                    continue;
                }
                break;
            }
        }
        /* a single character class, maybe followed by a quantifier */
        const char *ep = pm_class_end(ms, p);
        int m = pm_single(ms, s, p, ep);
        if (*ep == '?') {
            const char *r;
            if (m && (r = pm_match(ms, s + 1, ep + 1)) != NULL) {
                s = r;
                break;
            }
            p = ep + 1;
            continue;
        }
        if (*ep == '+') {
            s = m ? pm_max_expand(ms, s + 1, p, ep) : NULL;
            break;
        }
        if (*ep == '*') {
            s = pm_max_expand(ms, s, p, ep);
            break;
        }
        if (*ep == '-') {
            s = pm_min_expand(ms, s, p, ep);
            break;
        }
        if (!m) {
            s = NULL;
            break;
        }
        s++;
        p = ep;
    }
    ms->depth++;
    return s;
}

/* Pushes capture i (or the whole match s..e when there are none). */
static void pm_push_capture(pm_state *ms, int i, const char *s, const char *e)
{
    if (i >= ms->level) {
        if (i != 0)
            luaL_error(ms->L, "invalid capture index %%%d", i + 1);
        lua_pushlstring(ms->L, s, (size_t)(e - s));
        return;
    }
    ptrdiff_t l = ms->capture[i].len;
    if (l == PM_CAP_UNFINISHED)
        luaL_error(ms->L, "unfinished capture");
    if (l == PM_CAP_POSITION)
        lua_pushinteger(ms->L, (ms->capture[i].init - ms->src_init) + 1);
    else
        lua_pushlstring(ms->L, ms->capture[i].init, (size_t)l);
}

static int pm_push_captures(pm_state *ms, const char *s, const char *e)
{
    int n = (ms->level == 0 && s) ? 1 : ms->level;
    luaL_checkstack(ms->L, n, "too many captures");
    for (int i = 0; i < n; i++)
        pm_push_capture(ms, i, s, e);
    return n;
}

/* Lua's rule for a start position: negative counts from the end. */
static size_t pm_start(lua_Integer pos, size_t len)
{
    if (pos > 0)
        return (size_t)pos;
    if (pos == 0 || pos < -(lua_Integer)len)
        return 1;
    return len + (size_t)pos + 1;
}

static int pm_plain(const char *p, size_t lp)
{
    for (size_t i = 0; i < lp; i++)
        if (strchr("^$*+?.([%-", p[i]) && p[i] != '\0')
            return 0;
    return 1;
}

static int pm_find_aux(lua_State *L, int find)
{
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    size_t init = pm_start(luaL_optinteger(L, 3, 1), ls) - 1;
    if (init > ls) {
        luaL_pushfail(L);
        return 1;
    }
    if (find && (lua_toboolean(L, 4) || pm_plain(p, lp))) {
        /* glibc's memmem is linear in the subject: no quadratic needle scans */
        sb_charge(L, sb_of(L), (ls - init) / 32 + 1);
        const char *r = lp == 0 ? s + init : memmem(s + init, ls - init, p, lp);
        if (r) {
            lua_pushinteger(L, (r - s) + 1);
            lua_pushinteger(L, (lua_Integer)((r - s) + (ptrdiff_t)lp));
            return 2;
        }
    } else {
        pm_state ms;
        const char *s1 = s + init;
        int anchor = (*p == '^');
        if (anchor) {
            p++;
            lp--;
        }
        pm_prepare(&ms, L, s, ls, p, lp);
        do {
            pm_reset(&ms);
            pm_step(&ms);
            const char *e = pm_match(&ms, s1, p);
            if (e) {
                if (find) {
                    lua_pushinteger(L, (s1 - s) + 1);
                    lua_pushinteger(L, e - s);
                    return pm_push_captures(&ms, NULL, NULL) + 2;
                }
                return pm_push_captures(&ms, s1, e);
            }
        } while (s1++ < ms.src_end && !anchor);
    }
    luaL_pushfail(L);
    return 1;
}

static int sb_find(lua_State *L)
{
    return pm_find_aux(L, 1);
}

static int sb_match(lua_State *L)
{
    return pm_find_aux(L, 0);
}

/* gmatch's iterator state, in a userdata the agent never sees. */
typedef struct pm_gstate {
    size_t pos;       /* where the next search starts */
    size_t lastmatch; /* end of the last match, or SIZE_MAX */
} pm_gstate;

static int pm_gmatch_next(lua_State *L)
{
    size_t ls, lp;
    const char *s = lua_tolstring(L, lua_upvalueindex(1), &ls);
    const char *p = lua_tolstring(L, lua_upvalueindex(2), &lp);
    pm_gstate *g = lua_touserdata(L, lua_upvalueindex(3));
    pm_state ms;
    pm_prepare(&ms, L, s, ls, p, lp);
    for (const char *src = s + g->pos; src <= ms.src_end; src++) {
        pm_reset(&ms);
        pm_step(&ms);
        const char *e = pm_match(&ms, src, p);
        if (e && (g->lastmatch == SIZE_MAX || (size_t)(e - s) != g->lastmatch)) {
            g->pos = g->lastmatch = (size_t)(e - s);
            return pm_push_captures(&ms, src, e);
        }
    }
    g->pos = ls + 1;
    return 0;
}

static int sb_gmatch(lua_State *L)
{
    size_t ls;
    luaL_checklstring(L, 1, &ls);
    luaL_checkstring(L, 2);
    size_t init = pm_start(luaL_optinteger(L, 3, 1), ls) - 1;
    lua_settop(L, 2);
    pm_gstate *g = lua_newuserdatauv(L, sizeof *g, 0);
    g->pos = init > ls ? ls + 1 : init;
    g->lastmatch = SIZE_MAX;
    lua_pushcclosure(L, pm_gmatch_next, 3);
    return 1;
}

static void pm_add_s(pm_state *ms, luaL_Buffer *b, const char *s, const char *e)
{
    size_t l;
    lua_State *L = ms->L;
    const char *news = lua_tolstring(L, 3, &l);
    sb_charge(L, ms->sb, l / 16 + 1);
    for (size_t i = 0; i < l; i++) {
        if (news[i] != '%') {
            luaL_addchar(b, news[i]);
            continue;
        }
        i++;
        if (i < l && news[i] == '%') {
            luaL_addchar(b, '%');
        } else if (i < l && news[i] >= '0' && news[i] <= '9') {
            if (news[i] == '0') {
                luaL_addlstring(b, s, (size_t)(e - s));
            } else {
                pm_push_capture(ms, news[i] - '1', s, e);
                luaL_tolstring(L, -1, NULL);
                lua_remove(L, -2);
                luaL_addvalue(b);
            }
        } else {
            luaL_error(L, "invalid use of '%%' in replacement string");
        }
    }
}

static void pm_add_value(pm_state *ms, luaL_Buffer *b, const char *s, const char *e, int tr)
{
    lua_State *L = ms->L;
    if (tr == LUA_TFUNCTION) {
        lua_pushvalue(L, 3);
        int n = pm_push_captures(ms, s, e);
        lua_call(L, n, 1);
    } else if (tr == LUA_TTABLE) {
        pm_push_capture(ms, 0, s, e);
        lua_gettable(L, 3);
    } else {
        pm_add_s(ms, b, s, e);
        return;
    }
    if (!lua_toboolean(L, -1)) { /* nil or false: keep the original text */
        lua_pop(L, 1);
        luaL_addlstring(b, s, (size_t)(e - s));
    } else if (!lua_isstring(L, -1)) {
        luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
    } else {
        luaL_addvalue(b);
    }
}

static int sb_gsub(lua_State *L)
{
    size_t srcl, lp;
    const char *src = luaL_checklstring(L, 1, &srcl);
    const char *p = luaL_checklstring(L, 2, &lp);
    const char *lastmatch = NULL;
    int tr = lua_type(L, 3);
    lua_Integer max_s = luaL_optinteger(L, 4, (lua_Integer)srcl + 1);
    int anchor = (*p == '^');
    lua_Integer n = 0;
    pm_state ms;
    luaL_Buffer b;
    luaL_argexpected(L, tr == LUA_TNUMBER || tr == LUA_TSTRING || tr == LUA_TFUNCTION || tr == LUA_TTABLE, 3,
                     "string/function/table");
    luaL_buffinit(L, &b);
    if (anchor) {
        p++;
        lp--;
    }
    pm_prepare(&ms, L, src, srcl, p, lp);
    while (n < max_s) {
        pm_reset(&ms);
        pm_step(&ms);
        const char *e = pm_match(&ms, src, p);
        if (e && e != lastmatch) {
            n++;
            pm_add_value(&ms, &b, src, e, tr);
            src = lastmatch = e;
        } else if (src < ms.src_end) {
            luaL_addchar(&b, *src++);
        } else {
            break;
        }
        if (anchor)
            break;
    }
    luaL_addlstring(&b, src, (size_t)(ms.src_end - src));
    luaL_pushresult(&b);
    lua_pushinteger(L, n);
    return 2;
}

/* The string library's matching functions (sb_open_string sets them). */
const luaL_Reg sb_string_patterns[] = {
    {"find", sb_find}, {"match", sb_match}, {"gmatch", sb_gmatch}, {"gsub", sb_gsub}, {NULL, NULL}};
