/* sb_base: reading agent values safely, and the base library and coroutine
 * replacements (print, setmetatable, pcall, xpcall, load and its compile-time
 * bounds, coroutine.resume/wrap/close). Part of the sandbox (sandbox.h is the
 * contract; sandbox_internal.h what the parts share). */
#include "sandbox_internal.h"

/* ------------------------------------------------------------------------ */
/* Safe reading of agent values                                             */

/* Copies s into dst (size cap) as one printable line: control bytes become
 * spaces. Bytes >= 0x80 are kept so UTF-8 text survives. */
void sb_copy_line(char *dst, size_t cap, const char *s, size_t len)
{
    size_t n = len < cap - 1 ? len : cap - 1;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        dst[i] = (c < 0x20 || c == 0x7f) ? ' ' : (char)c;
    }
    dst[n] = '\0';
    if (len > n && cap > 4)
        memcpy(dst + cap - 4, "...", 4);
}

int aw_sandbox_check_string(lua_State *L, int idx, size_t maxlen, const char **s, size_t *len, aw_fault *fault)
{
    size_t n = 0;
    const char *p;
    if (lua_type(L, idx) != LUA_TSTRING) {
        if (fault) {
            fault->kind = AW_FAULT_REPLY;
            snprintf(fault->msg, sizeof fault->msg, "expected a string, got a %s value", luaL_typename(L, idx));
        }
        return -AW_EINVAL;
    }
    p = lua_tolstring(L, idx, &n); /* a string already: no conversion, no metamethod */
    if (n > maxlen) {
        if (fault) {
            fault->kind = AW_FAULT_REPLY;
            snprintf(fault->msg, sizeof fault->msg, "string of %zu bytes is longer than %zu", n, maxlen);
        }
        return -AW_EINVAL;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c < 0x20 || c == 0x7f) {
            if (fault) {
                fault->kind = AW_FAULT_REPLY;
                snprintf(fault->msg, sizeof fault->msg, "string holds control byte 0x%02x at offset %zu", c, i);
            }
            return -AW_EINVAL;
        }
    }
    if (s)
        *s = p;
    if (len)
        *len = n;
    return 0;
}

int aw_sandbox_check_integer(lua_State *L, int idx, lua_Integer lo, lua_Integer hi, lua_Integer *out, aw_fault *fault)
{
    int ok = 0;
    lua_Integer v = 0;
    if (lua_type(L, idx) == LUA_TNUMBER) /* strings are not converted */
        v = lua_tointegerx(L, idx, &ok);
    if (!ok || v < lo || v > hi) {
        if (fault) {
            fault->kind = AW_FAULT_REPLY;
            if (!ok)
                snprintf(fault->msg, sizeof fault->msg, "expected an integer, got a %s value", luaL_typename(L, idx));
            else
                snprintf(fault->msg, sizeof fault->msg, "integer %lld is outside [%lld, %lld]", (long long)v,
                         (long long)lo, (long long)hi);
        }
        return -AW_EINVAL;
    }
    if (out)
        *out = v;
    return 0;
}

int aw_sandbox_reply_error(lua_State *L, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sb_of(L)->reply_fault = 1;
    return luaL_error(L, "%s", msg);
}


/* ------------------------------------------------------------------------ */
/* Base library replacements                                                */

/* print: to the bounded per-agent log. Older output is kept; what does not
 * fit is dropped and counted. __tostring metamethods run here, inside the
 * agent's call and under its budget. */
static void out_add(aw_sandbox *sb, const char *s, size_t len)
{
    size_t room = sb->lim.output_bytes > sb->out.len ? sb->lim.output_bytes - sb->out.len : 0;
    size_t take = len < room ? len : room;
    sb->in_alloc = 1; /* host malloc: the last resort must not jump out of it */
    aw_buf_add(&sb->out, s, take);
    sb->in_alloc = 0;
    sb->out_dropped += len - take;
}

static int sb_print(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    int n = lua_gettop(L);
    for (int i = 1; i <= n; i++) {
        size_t len;
        const char *s = sb_tolstring(L, i, &len);
        if (i > 1)
            out_add(sb, "\t", 1);
        out_add(sb, s, len);
        lua_pop(L, 1);
        sb_charge(L, sb, len / 16 + 1);
    }
    out_add(sb, "\n", 1);
    return 0;
}

/* setmetatable without __gc (finalizers run with hooks off, so an agent's
 * finalizer could loop forever). Weak tables are ordinary Lua and allowed:
 * the collector's work on them runs where no hook reaches, but a collection
 * made quadratic on purpose (a chain of keys spread over ephemeron tables)
 * is stopped by the last resort like any other stuck call. */
static int sb_setmetatable(lua_State *L)
{
    int t = lua_type(L, 2);
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_argexpected(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table");
    if (t == LUA_TTABLE) {
        /* Raw, as Lua itself looks: with lua_getfield a metatable's own
         * __index would run here and could add __gc behind the check. */
        lua_pushliteral(L, "__gc");
        if (lua_rawget(L, 2) != LUA_TNIL)
            return luaL_argerror(L, 2, "'__gc' is not allowed in the sandbox");
        lua_pop(L, 1);
    }
    if (luaL_getmetafield(L, 1, "__metatable") != LUA_TNIL)
        return luaL_error(L, "cannot change a protected metatable");
    lua_settop(L, 2);
    sb_proxy_fix(L, 1); /* a library table: filled, as it would be */
    lua_setmetatable(L, 1);
    return 1;
}

/* collectgarbage: only "count" (the agent's own heap in KiB). Controlling the
 * collector would let an agent move GC work (which no hook sees) around. */
static int sb_collectgarbage(lua_State *L)
{
    const char *opt = luaL_optstring(L, 1, "collect");
    if (strcmp(opt, "count") != 0)
        return luaL_error(L, "collectgarbage('%s') is not available in the sandbox", opt);
    lua_pushnumber(L, (lua_Number)lua_gc(L, LUA_GCCOUNT, 0) + (lua_Number)lua_gc(L, LUA_GCCOUNTB, 0) / 1024.0);
    return 1;
}

/* Nested protected calls over a deep stack. When a protected call fails,
 * Lua (luaD_pcall) measures the stack still in use by walking every frame
 * below it, to shrink the stack after an overflow. A time-out raised under
 * n nested pcalls is caught and raised again by each of them in turn, so
 * its unwinding walks the frames below every one: n times a depth of up to
 * some 300 000 frames (a full Lua stack), several ms per walk once the
 * frames are scattered in memory — seconds in all, with no agent
 * instruction in between for the hook to stop. So a protected call (pcall,
 * xpcall, load with a reader function) may nest inside another in the same
 * thread only while the thread is less than SB_NEST_DEPTH calls deep: each
 * nested level's walk is then short, and only the outermost one (once per
 * thread) walks a deep stack. The check is a walk of at most that many
 * frames, made only for nested calls. */
#define SB_NEST_DEPTH 2000

static uintptr_t sb_nest_count(lua_State *L, aw_sandbox *sb)
{
    return L == sb->L ? (uintptr_t)sb->main_nest : *thread_flags(L) / SB_THREAD_NEST;
}

/* Enters a protected call in L; returns 0 (and enters nothing) when it
 * would nest over a deep stack. */
static int sb_nest_enter(lua_State *L, aw_sandbox *sb)
{
    lua_Debug ar;
    if (sb_nest_count(L, sb) > 0 && lua_getstack(L, SB_NEST_DEPTH, &ar))
        return 0;
    if (L == sb->L)
        sb->main_nest++;
    else
        *thread_flags(L) += SB_THREAD_NEST;
    return 1;
}

static void sb_nest_leave(lua_State *L, aw_sandbox *sb)
{
    if (sb_nest_count(L, sb) == 0)
        return;
    if (L == sb->L)
        sb->main_nest--;
    else
        *thread_flags(L) -= SB_THREAD_NEST;
}

#define SB_NEST_MSG "stack overflow (a protected call nested in another, more than %d calls deep)"

/* Continuation and tail of pcall/xpcall. A failure that happened because the
 * call is over budget is not returned to the agent: it is raised again. */
static int sb_pcall_finish(lua_State *L, int status, lua_KContext extra)
{
    aw_sandbox *sb = sb_of(L);
    sb_nest_leave(L, sb);
    if (status != LUA_OK && status != LUA_YIELD) {
        if (sb->expired)
            return sb_raise_timeout(L, sb);
        lua_pushboolean(L, 0);
        lua_pushvalue(L, -2);
        return 2;
    }
    return lua_gettop(L) - (int)extra;
}

static int sb_pcall(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    luaL_checkany(L, 1);
    sb_check(L, sb);
    if (!sb_nest_enter(L, sb)) {
        lua_pushboolean(L, 0);
        lua_pushfstring(L, SB_NEST_MSG, SB_NEST_DEPTH);
        return 2;
    }
    lua_pushboolean(L, 1); /* first result if no errors */
    lua_insert(L, 1);
    int status = lua_pcallk(L, lua_gettop(L) - 2, LUA_MULTRET, 0, 0, sb_pcall_finish);
    return sb_pcall_finish(L, status, 0);
}

/* The message handler xpcall really installs: it runs the agent's handler
 * only while the call is within budget. The hook's time-out error is raised
 * from inside the hook, where Lua has hooks disabled, so an agent handler run
 * for it could loop forever unseen. */
static int sb_xpcall_handler(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    if (sb->expired)
        return 1; /* the error value, unchanged */
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

static int sb_xpcall(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    int n = lua_gettop(L);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    sb_check(L, sb);
    lua_pushvalue(L, 2);
    lua_pushcclosure(L, sb_xpcall_handler, 1);
    lua_replace(L, 2);     /* f, handler, args... */
    lua_pushboolean(L, 1); /* f, handler, args..., true */
    lua_pushvalue(L, 1);   /* f, handler, args..., true, f */
    lua_rotate(L, 3, 2);   /* f, handler, true, f, args... */
    if (!sb_nest_enter(L, sb)) {
        lua_pushboolean(L, 0);
        lua_pushfstring(L, SB_NEST_MSG, SB_NEST_DEPTH);
        return 2;
    }
    int status = lua_pcallk(L, n - 2, LUA_MULTRET, 2, 2, sb_pcall_finish);
    return sb_pcall_finish(L, status, 2);
}

/* load: text only, bounded size (the bounds and the parse: sb_chunk.c). The
 * chunk gets the agent's globals (or env) as _ENV. */

/* A reader function's pieces, gathered into one string before the parse
 * (which then goes through sb_load_text): runs protected, so that an error
 * in the reader makes load fail as it does in stock Lua. */
static int sb_gather(lua_State *L)
{
    luaL_Buffer b;
    size_t total = 0;
    luaL_buffinit(L, &b); /* the reader is at 1 */
    for (;;) {
        luaL_checkstack(L, 2, "too many nested functions");
        lua_pushvalue(L, 1);
        lua_call(L, 0, 1);
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            break;
        }
        if (!lua_isstring(L, -1))
            return luaL_error(L, "reader function must return a string");
        size_t n;
        lua_tolstring(L, -1, &n);
        if (n == 0) {
            lua_pop(L, 1);
            break;
        }
        if (total == 0 && lua_tostring(L, -1)[0] == LUA_SIGNATURE[0]) {
            luaL_addvalue(&b); /* a binary chunk: refused by the parse at once, as in stock Lua */
            break;
        }
        total += n;
        if (total > SB_MAX_LOAD)
            return luaL_error(L, "chunk larger than %d bytes", (int)SB_MAX_LOAD);
        sb_charge(L, sb_of(L), n / 8 + 1);
        luaL_addvalue(&b);
    }
    luaL_pushresult(&b);
    return 1;
}

static int sb_load(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    size_t len;
    const char *s = lua_tolstring(L, 1, &len);
    const char *mode = luaL_optstring(L, 3, "bt");
    int env = !lua_isnone(L, 4) ? 4 : 0;
    int status;
    if (!strchr(mode, 't')) {
        luaL_pushfail(L);
        lua_pushfstring(L, "attempt to load a text chunk (mode is '%s')", mode);
        return 2;
    }
    const char *name;
    if (s != NULL) {
        name = luaL_optstring(L, 2, s);
    } else {
        name = luaL_optstring(L, 2, "=(load)");
        luaL_checktype(L, 1, LUA_TFUNCTION);
        lua_settop(L, 4);
        lua_pushcfunction(L, sb_gather);
        lua_pushvalue(L, 1);
        if (!sb_nest_enter(L, sb)) {
            luaL_pushfail(L);
            lua_pushfstring(L, SB_NEST_MSG, SB_NEST_DEPTH);
            return 2;
        }
        status = lua_pcall(L, 1, 1, 0);
        sb_nest_leave(L, sb);
        if (sb->expired)
            return sb_raise_timeout(L, sb); /* the time-out hit the reader */
        if (status != LUA_OK) {
            luaL_pushfail(L);
            lua_insert(L, -2);
            return 2;
        }
        lua_replace(L, 1); /* the whole text, kept alive while it is parsed */
        s = lua_tolstring(L, 1, &len);
    }
    if (len > SB_MAX_LOAD) {
        luaL_pushfail(L);
        lua_pushfstring(L, "chunk larger than %d bytes", (int)SB_MAX_LOAD);
        return 2;
    }
    status = sb_load_text(L, sb, s, len, name);
    if (status != LUA_OK) {
        luaL_pushfail(L);
        lua_insert(L, -2);
        return 2;
    }
    if (env) {
        lua_pushvalue(L, env);
        if (!lua_setupvalue(L, -2, 1))
            lua_pop(L, 1);
    }
    return 1;
}


/* ------------------------------------------------------------------------ */
/* Coroutines: the library's resume/wrap/close, rewritten so that the sandbox
 * knows which thread runs (for re-arming its hook), never resumes or closes
 * a thread the hook has killed, and turns a time-out inside a coroutine into
 * a time-out of the caller. create/yield/status/running/isyieldable are
 * Lua's own.                                                               */

/* Whether co can be resumed from L; when not, *why says why. */
static int co_is_startable(lua_State *L, lua_State *co, const char **why)
{
    lua_Debug ar;
    *why = "cannot resume non-suspended coroutine";
    if (co == L)
        return 0;
    if (*thread_flags(co) & SB_THREAD_POISONED) {
        *why = "cannot resume dead coroutine";
        return 0;
    }
    switch (lua_status(co)) {
    case LUA_YIELD:
        return 1;
    case LUA_OK:
        if (lua_getstack(co, 0, &ar))
            return 0; /* it is running (it resumed someone) */
        if (lua_gettop(co) > 0)
            return 1; /* not yet started */
        *why = "cannot resume dead coroutine";
        return 0;
    default:
        *why = "cannot resume dead coroutine"; /* died with an error */
        return 0;
    }
}

/* Resumes co with narg values from L's top; returns the number of results
 * moved to L, or -1 with the error value on L's top. */
static int co_resume(lua_State *L, lua_State *co, int narg)
{
    aw_sandbox *sb = sb_of(L);
    int nres, status;
    const char *why;
    if (!co_is_startable(L, co, &why)) {
        lua_pushstring(L, why);
        return -1;
    }
    if (!lua_checkstack(co, narg)) {
        lua_pushliteral(L, "too many arguments to resume");
        return -1;
    }
    lua_xmove(L, co, narg);
    /* A thread created in another call may carry another call's hook
     * state: give it this call's. Never reset a correct one: that would
     * restart its count on every resume. */
    if (!sb->hook_count) {
        if (lua_gethook(co))
            lua_sethook(co, NULL, 0, 0);
    } else if (lua_gethook(co) != sb_hook || lua_gethookmask(co) != LUA_MASKCOUNT) {
        lua_sethook(co, sb_hook, LUA_MASKCOUNT, sb->hook_count);
    }
    if (sb->lim.work_budget) /* co's last instructions may never reach its hook */
        sb_charge(L, sb, SB_WORK_COUNT);
    lua_State *prev = sb->cur;
    sb->cur = co;
    status = lua_resume(co, L, narg, &nres);
    sb->cur = prev;
    if (sb->expired)
        sb_raise_timeout(L, sb);
    if (status == LUA_OK || status == LUA_YIELD) {
        if (!lua_checkstack(L, nres + 1)) {
            lua_pop(co, nres);
            lua_pushliteral(L, "too many results to resume");
            return -1;
        }
        lua_xmove(co, L, nres);
        return nres;
    }
    lua_xmove(co, L, 1); /* the error value */
    return -1;
}

static int sb_co_resume(lua_State *L)
{
    lua_State *co = lua_tothread(L, 1);
    luaL_argexpected(L, co, 1, "coroutine");
    sb_check(L, sb_of(L));
    int r = co_resume(L, co, lua_gettop(L) - 1);
    if (r < 0) {
        lua_pushboolean(L, 0);
        lua_insert(L, -2);
        return 2;
    }
    lua_pushboolean(L, 1);
    lua_insert(L, -(r + 1));
    return r + 1;
}

/* Runs co's pending __close handlers (what coroutine.close and a failed wrap
 * do), unless the hook killed co: Lua left that thread with hooks off, so
 * its handlers could not be stopped. Returns the status; on failure the
 * error value is pushed on L. (co's stack is never cut with lua_settop: that
 * would run the very handlers we must not run.) */
/* How deeply coroutine.close may nest (a __close handler closing another
 * coroutine): Lua 5.4.4's lua_resetthread does not count C calls, so a long
 * chain overflows the C stack and crashes the host. */
#define SB_MAX_CLOSE_DEPTH 100

static int co_close(lua_State *L, lua_State *co)
{
    aw_sandbox *sb = sb_of(L);
    if (*thread_flags(co) & SB_THREAD_POISONED) {
        lua_rawgetp(L, LUA_REGISTRYINDEX, &sb_key_timeout_msg);
        return LUA_ERRRUN;
    }
    if (sb->close_depth >= SB_MAX_CLOSE_DEPTH) {
        lua_pushliteral(L, "coroutine.close nested too deeply");
        return LUA_ERRRUN;
    }
    lua_State *prev = sb->cur;
    sb->cur = co;
    sb->close_depth++;
#if LUA_VERSION_RELEASE_NUM >= 50406
    int status = lua_closethread(co, L);
#else
    int status = lua_resetthread(co);
#endif
    sb->close_depth--;
    sb->cur = prev;
    if (sb->expired)
        sb_raise_timeout(L, sb);
    if (status != LUA_OK)
        lua_xmove(co, L, 1);
    return status;
}

static int sb_co_wrap_call(lua_State *L)
{
    lua_State *co = lua_tothread(L, lua_upvalueindex(1));
    sb_check(L, sb_of(L));
    int r = co_resume(L, co, lua_gettop(L));
    if (r >= 0)
        return r;
    int st = lua_status(co);
    if (st != LUA_OK && st != LUA_YIELD) { /* co died: close its variables */
        if (co_close(L, co) != LUA_OK)
            lua_remove(L, -2); /* the close's error replaces the first one */
    }
    if (lua_type(L, -1) == LUA_TSTRING) { /* add where the wrapped call was made */
        luaL_where(L, 1);
        lua_insert(L, -2);
        lua_concat(L, 2);
    }
    return lua_error(L);
}

static int sb_co_wrap(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_State *co = lua_newthread(L);
    lua_pushvalue(L, 1);
    lua_xmove(L, co, 1);
    lua_pushcclosure(L, sb_co_wrap_call, 1);
    return 1;
}

static int sb_co_close(lua_State *L)
{
    lua_State *co = lua_tothread(L, 1);
    luaL_argexpected(L, co, 1, "coroutine");
    sb_check(L, sb_of(L));
    lua_Debug ar;
    /* Only a suspended or dead coroutine can be closed: not the running one,
     * nor one that is waiting for a coroutine it resumed. */
    if (co == L || (lua_status(co) == LUA_OK && lua_getstack(co, 0, &ar)))
        return luaL_error(L, "cannot close a %s coroutine", co == L ? "running" : "normal");
    if (co_close(L, co) == LUA_OK) {
        lua_pushboolean(L, 1);
        return 1;
    }
    lua_pushboolean(L, 0);
    lua_insert(L, -2);
    return 2;
}

/* ------------------------------------------------------------------------ */
/* The base library and coroutine, as agents see them (sandbox.c's allow
 * list says which names stay).                                             */

void sb_open_base(lua_State *L)
{
    static const luaL_Reg base[] = {
        {"dofile", NULL},  {"loadfile", NULL},           {"warn", NULL},     {"print", sb_print},
        {"load", sb_load}, {"pcall", sb_pcall},          {"xpcall", sb_xpcall},
        {"setmetatable", sb_setmetatable},               {"collectgarbage", sb_collectgarbage},
        {"require", sb_require}, {"tostring", sb_tostring}, {"next", sb_next},
        {"pairs", sb_pairs},     {"rawget", sb_rawget},     {"rawset", sb_rawset},
        {"rawlen", sb_rawlen},   {"getmetatable", sb_getmetatable}, {NULL, NULL}};
    luaL_requiref(L, LUA_GNAME, luaopen_base, 1);
    sb_set_funcs(L, base);
    sb_wrap_field(L, "tonumber", sb_tonumber);
    lua_pop(L, 1);
}

void sb_open_coroutine(lua_State *L)
{
    static const luaL_Reg co[] = {
        {"resume", sb_co_resume}, {"wrap", sb_co_wrap}, {"close", sb_co_close}, {NULL, NULL}};
    luaL_requiref(L, LUA_COLIBNAME, luaopen_coroutine, 1);
    sb_set_funcs(L, co);
    lua_pop(L, 1);
}
