/* sandbox: one isolated Lua 5.4 state per agent (see sandbox.h for the
 * contract). This file builds the agent's environment and makes the
 * protected, budgeted calls into it; the other parts are sb_budget.c (the
 * time budget, the watchdog, the last resort), sb_alloc.c (the memory cap),
 * sb_addr.c (objects shown by number), sb_base.c (base library and
 * coroutine replacements, load), sb_chunk.c (compiling text within the
 * budget, the chunks kept across games), sb_strlib.c (bounded string and
 * utf8 functions), sb_numeral.c (tonumber and string arithmetic),
 * sb_mathlib.c (math), sb_os.c (os), sb_pattern.c (the pattern matcher),
 * sb_tablib.c (table functions), sb_require.c (package and require),
 * sb_lpeg.c (LPeg and its guards), sb_profile.c (profile samples) and
 * sb_keys.c (the registry keys). sandbox_internal.h is what they share.
 * The parts open their own libraries (sb_open_*) and never call this file. */
#include "sandbox_internal.h"

/* What agents see, as one allow list (the way Redis keeps its scripts'
 * globals): every global and every field of every library the agent's
 * environment holds, opened in this order by each part's own opener. After
 * they ran, sb_allow_only removes whatever is not listed here, and sandbox
 * creation fails if something listed is missing, so this table is the
 * environment (docs/sandbox.md, "What an agent may use"). "_G" is the
 * globals; each library's own name is a global too. */
typedef struct {
    const char *name;          /* the global (or "_G", the globals themselves) */
    void (*open)(lua_State *L); /* its part's opener (sb_base.c, sb_tablib.c, ...) */
    const char *fields;        /* every field agents may see, space-separated */
} sb_lib;
static const sb_lib sb_libs[] = {
    {"_G", sb_open_base,
     "_G _VERSION assert collectgarbage error getmetatable ipairs load next pairs pcall print rawequal "
     "rawget rawlen rawset require select setmetatable tonumber tostring type xpcall"},
    {"coroutine", sb_open_coroutine, "close create isyieldable resume running status wrap yield"},
    {"table", sb_open_table, "concat insert move pack remove sort unpack"},
    {"string", sb_open_string,
     "byte char find format gmatch gsub len lower match pack packsize rep reverse sub unpack upper"},
    {"math", sb_open_math,
     "abs acos asin atan ceil cos deg exp floor fmod huge log max maxinteger min mininteger modf pi rad "
     "random randomseed sin sqrt tan tointeger type ult "
     /* Lua 5.2's, which Debian's Lua 5.4 still has (LUA_COMPAT_MATHLIB) */
     "atan2 cosh frexp ldexp log10 pow sinh tanh"},
    {"utf8", sb_open_utf8, "char charpattern codepoint codes len offset"},
    {"os", sb_open_os, "clock date difftime time"},
    {"package", sb_open_package, "loaded preload"},
    {NULL, NULL, NULL}};

static const char sb_key_maker = 0; /* the function that makes a game's globals (sb_make_maker) */

/* ------------------------------------------------------------------------ */
/* The agent's environment.                                                 */

/* Whether name is one of the space-separated words of list. */
static int sb_listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return 1;
    return 0;
}

static int sb_allowed(const sb_lib *lib, lua_State *L, int key)
{
    if (lua_type(L, key) != LUA_TSTRING)
        return 0;
    const char *k = lua_tostring(L, key);
    if (sb_listed(lib->fields, k))
        return 1;
    if (lib != sb_libs) /* only the globals also hold the libraries */
        return 0;
    for (const sb_lib *l = sb_libs + 1; l->name; l++)
        if (strcmp(l->name, k) == 0)
            return 1;
    return 0;
}

/* Keeps in the globals and their libraries only what sb_libs lists; raises
 * an error (the sandbox is not made) if something listed is not there. It
 * only reads when the openers made exactly the list. */
static void sb_allow_only(lua_State *L)
{
    lua_pushglobaltable(L);
    int g = lua_gettop(L);
    for (const sb_lib *lib = sb_libs; lib->name; lib++) {
        if (lib == sb_libs)
            lua_pushvalue(L, g);
        else if (lua_getfield(L, g, lib->name) != LUA_TTABLE)
            luaL_error(L, "the agent's environment lacks %s", lib->name);
        int t = lua_gettop(L);
        lua_pushnil(L);
        while (lua_next(L, t)) {
            lua_pop(L, 1);
            if (!sb_allowed(lib, L, -1)) { /* clearing a field while traversing is allowed */
                lua_pushvalue(L, -1);
                lua_pushnil(L);
                lua_rawset(L, t);
            }
        }
        for (const char *p = lib->fields; *p;) {
            size_t n = strcspn(p, " ");
            char field[32];
            if (n == 0 || n >= sizeof field)
                luaL_error(L, "bad name in the sandbox's allow list");
            memcpy(field, p, n);
            field[n] = '\0';
            if (lua_getfield(L, t, field) == LUA_TNIL)
                luaL_error(L, "the agent's environment lacks %s.%s", lib->name, field);
            lua_pop(L, 1);
            p += n;
            while (*p == ' ')
                p++;
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

/* ------------------------------------------------------------------------ */
/* The maker: a Lua function, compiled once per process from the template's
 * names, that makes a game's globals (a proxy of the template's functions,
 * every library table a new proxy of the template's, sb_proxy.c; package
 * copied) and its package.loaded, and puts them in place
 * (sb_maker_source). A table constructor with constant keys
 * fills pre-sized tables in the VM: about three times cheaper than copying
 * entry by entry through the API (lua_next, lua_rawset), which was the
 * larger part of a renewal. The template is the same in every sandbox
 * (sb_setup makes it), so the code is made from the first one and kept as
 * bytecode (ours, compiled from text we generated). */
static pthread_mutex_t maker_lock = PTHREAD_MUTEX_INITIALIZER;
static aw_buf maker_code; /* bytecode; data NULL until made */

/* A fork while another thread holds the lock would leave the child a lock
 * nobody releases: fork waits for it, and both sides release it. */
static void maker_fork_prepare(void)
{
    pthread_mutex_lock(&maker_lock);
}
static void maker_fork_release(void)
{
    pthread_mutex_unlock(&maker_lock);
}
static pthread_once_t maker_fork_once = PTHREAD_ONCE_INIT;
static void maker_fork_install(void)
{
    pthread_atfork(maker_fork_prepare, maker_fork_release, maker_fork_release);
}

static int sb_is_name(const char *k)
{
    if (!k || !(*k == '_' || (*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z')))
        return 0;
    for (; *k; k++)
        if (!(*k == '_' || (*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') || (*k >= '0' && *k <= '9')))
            return 0;
    return 1;
}

/* Appends the maker's source for the template at index t to b (host
 * memory: a luaL_Buffer would share the stack with the traversals); returns
 * 0 if a key is not a plain name (then there is no maker). The maker,
 * called with the game's seed, makes the game's environment and puts it
 * in place (sb_fresh_env): the globals G, the libraries, package and its
 * loaded, the registry's entries that name them (the globals, _LOADED, the
 * game's string), the strings' methods (the template's string while the
 * game's is a proxy), math.random seeded. */
static int sb_maker_source(lua_State *L, int t, aw_buf *b)
{
    int nlib = 0;
    aw_buf_adds(b, "local T, M, setmt, MG, REG, KS, SM, RS = ...\nreturn function(seed)\n");
    lua_pushnil(L);
    while (lua_next(L, t)) {
        const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
        if (!sb_is_name(k)) {
            lua_pop(L, 2);
            return 0;
        }
        if (lua_type(L, -1) == LUA_TTABLE && !lua_rawequal(L, -1, t) && strcmp(k, "package") != 0) {
            nlib++; /* a proxy (sb_proxy.c) */
            aw_buf_printf(b, "local l%d = setmt({}, M.%s)\n", nlib, k);
        } else if (lua_type(L, -1) == LUA_TTABLE && !lua_rawequal(L, -1, t)) {
            /* package: its own loaded (below) and an empty preload */
            nlib++;
            aw_buf_printf(b, "local l%d = T.%s\nl%d = {", nlib, k, nlib);
            int lib = lua_gettop(L);
            lua_pushnil(L);
            while (lua_next(L, lib)) {
                const char *e = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
                if (!sb_is_name(e)) {
                    lua_pop(L, 4);
                    return 0;
                }
                if (strcmp(e, "loaded") == 0)
                    aw_buf_adds(b, "loaded = false, ");
                else if (strcmp(e, "preload") == 0)
                    aw_buf_adds(b, "preload = {}, ");
                else
                    aw_buf_printf(b, "%s = l%d.%s, ", e, nlib, e);
                lua_pop(L, 1);
            }
            aw_buf_printf(b, "}\nlocal P = l%d\n", nlib);
        }
        lua_pop(L, 1);
    }
    /* The globals: only the game's own tables (the libraries, package, _G
     * itself) are in G; the template's other values (the base functions,
     * _VERSION) are read through G's proxy metatable MG (sb_proxy.c) from
     * its template until anything could tell G from a full copy, when G is
     * filled from it. (_G = false keeps _G's slot: G is made at its size.) */
    aw_buf_adds(b, "local G = {_G = false, ");
    int lib = 0;
    lua_pushnil(L);
    while (lua_next(L, t)) {
        const char *k = lua_tostring(L, -2);
        if (lua_type(L, -1) == LUA_TTABLE && !lua_rawequal(L, -1, t))
            aw_buf_printf(b, "%s = l%d, ", k, ++lib);
        lua_pop(L, 1);
    }
    aw_buf_adds(b, "}\nG._G = G\nlocal LD = {_G = G");
    lib = 0;
    lua_pushnil(L);
    while (lua_next(L, t)) {
        if (lua_type(L, -1) == LUA_TTABLE && !lua_rawequal(L, -1, t))
            aw_buf_printf(b, ", %s = l%d", lua_tostring(L, -2), ++lib);
        lua_pop(L, 1);
    }
    /* A field more, nil (never stored), sizes LD with room for the modules
     * a game requires: the first one does not grow it. */
    aw_buf_printf(b, ", _ = nil}\nP.loaded = LD\nsetmt(G, MG)\n"
                     "REG[%d] = G\nREG[\"%s\"] = LD\nREG[KS] = G.string\nSM.__index = T.string\nRS(seed)\n"
                     "return G\nend\n",
                  (int)LUA_RIDX_GLOBALS, LUA_LOADED_TABLE);
    return 1;
}

static int sb_maker_writer(lua_State *L, const void *p, size_t sz, void *ud)
{
    (void)L;
    aw_buf_add(ud, p, sz);
    return 0;
}

/* The maker's setmetatable: a new empty table and a proxy's metatable. */
static int sb_setmt(lua_State *L)
{
    lua_settop(L, 2);
    lua_setmetatable(L, 1);
    return 1;
}

/* Keeps in the registry the maker for the template at index t (made and
 * compiled the first time, in this state, under the lock). Raises an error
 * when it cannot: sandbox creation then fails. */
static void sb_make_maker(lua_State *L, int t)
{
    pthread_once(&maker_fork_once, maker_fork_install);
    pthread_mutex_lock(&maker_lock);
    if (!maker_code.data) {
        aw_buf src;
        aw_buf_init(&src);
        if (sb_maker_source(L, t, &src) && luaL_loadbufferx(L, src.data, src.len, SB_MAKER_NAME, "t") == LUA_OK) {
            lua_dump(L, sb_maker_writer, &maker_code, 0);
            lua_pop(L, 1);
        }
        aw_buf_free(&src);
    }
    int made = maker_code.data != NULL; /* set once, never changed after */
    pthread_mutex_unlock(&maker_lock);
    if (!made)
        luaL_error(L, "cannot make the agent's environment");
    if (luaL_loadbufferx(L, maker_code.data, maker_code.len, SB_MAKER_NAME, "b") != LUA_OK)
        lua_error(L);
    lua_pushvalue(L, t);
    /* M: each library's proxy metatable, its template its __index */
    lua_newtable(L);
    lua_pushnil(L);
    while (lua_next(L, t)) {
        if (lua_type(L, -1) == LUA_TTABLE && !lua_rawequal(L, -1, t) && strcmp(lua_tostring(L, -2), "package") != 0) {
            sb_proxy_metatable(L, -1, -1);
            lua_pushvalue(L, -3);
            lua_insert(L, -2);
            lua_rawset(L, -5);
        }
        lua_pop(L, 1);
    }
    lua_pushcfunction(L, sb_setmt);
    /* MG: the globals' proxy metatable; its template B holds the
     * template's values that are not tables (the base functions,
     * _VERSION), which every game shares as it did when they were copied */
    lua_newtable(L);
    int base = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, t)) {
        if (lua_type(L, -1) != LUA_TTABLE) {
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_rawset(L, base);
        } else {
            lua_pop(L, 1);
        }
    }
    sb_proxy_globals_metatable(L, base);
    lua_remove(L, base);
    lua_pushvalue(L, LUA_REGISTRYINDEX);
    sb_proxy_push_string_key(L);
    lua_pushliteral(L, ""); /* the strings' metatable */
    if (!lua_getmetatable(L, -1))
        luaL_error(L, "strings have no metatable");
    lua_remove(L, -2);
    lua_getfield(L, t, "math"); /* the template's math.randomseed (sb_mathlib.c) */
    lua_getfield(L, -1, "randomseed");
    lua_remove(L, -2);
    lua_call(L, 8, 1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &sb_key_maker);
}

static int sb_setup(lua_State *L)
{
    aw_sandbox *sb = lua_touserdata(L, 1);
    lua_settop(L, 0);

    lua_pushfstring(L, "time budget of %d ms exceeded", sb->lim.budget_ms);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &sb_key_timeout_msg);

    for (const sb_lib *lib = sb_libs; lib->name; lib++)
        lib->open(L);
    sb_allow_only(L);

    /* What every game starts from (sb_fresh_env): the globals made above,
     * which no agent code ever runs against, the chunks kept for later
     * games, and the registry's keys as they are now. */
    lua_pushglobaltable(L);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &sb_key_template);
    lua_newtable(L);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &sb_key_chunks);
    lua_newtable(L);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &sb_key_shared);
    sb_proxy_open(L);
    sb_ids_open(L);
    lua_newtable(L);
    int keys = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, LUA_REGISTRYINDEX)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TNUMBER) {
            lua_pushvalue(L, -1);
            lua_pushboolean(L, 1);
            lua_rawset(L, keys);
        }
    }
    lua_pushlightuserdata(L, (void *)&sb_key_regkeys);
    lua_pushboolean(L, 1);
    lua_rawset(L, keys);
    lua_pushlightuserdata(L, (void *)&sb_key_maker);
    lua_pushboolean(L, 1);
    lua_rawset(L, keys);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &sb_key_regkeys);
    lua_settop(L, 0);
    lua_pushglobaltable(L);
    sb_make_maker(L, 1);
    lua_settop(L, 0);
    return 0;
}

static void sb_sweep_registry(lua_State *L);

/* The agent's environment for one game, made from the template (see
 * sandbox.h, aw_sandbox_renew) by the maker in one call: a new globals
 * table and a copy of every library table (proxies until filled,
 * sb_proxy.c); package with a new `loaded` and an empty `preload`; the
 * strings' methods looked up in the game's `string`; math.random seeded
 * from the limits' seed; and, after a game that opened LPeg, every
 * registry entry made since the sandbox was created (LPeg's module and
 * pattern metatable, which require makes again) removed. The template's
 * functions keep no state an agent can change, except math.random's,
 * which the seed sets again in full.
 * The last game's tables are never passed on, even when their entries are
 * the template's: a table keeps the slot layout its writes left (a key
 * removed and added again, a table grown and emptied), which pairs() shows
 * and which holds on to memory, and no check through the API can see it
 * (tests/luaseat/test_renew_hostile.c). */
static int sb_fresh_env(lua_State *L)
{
    aw_sandbox *sb = lua_touserdata(L, 1);
    lua_settop(L, 0);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &sb_key_maker);
    lua_pushinteger(L, (lua_Integer)sb->lim.seed);
    sb->global_reads = 0;
    lua_call(L, 1, 1); /* 1: the globals, in place (sb_maker_source) */
    /* The kept chunks' _ENV: the new globals at once, so that the last
     * game's are garbage now, not held until the chunk runs again (a
     * module the new game never requires would hold them for good). This
     * is the only place the globals change, so a kept chunk's _ENV is
     * always the game's. */
    lua_rawgetp(L, LUA_REGISTRYINDEX, &sb_key_chunks);
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_pushvalue(L, 1);
        if (!lua_setupvalue(L, -2, 1))
            lua_pop(L, 1);
        lua_pop(L, 1);
    }
    /* Registry entries made since: only LPeg makes any (its module and its
     * pattern metatable; no other library the sandbox opens registers
     * anything), so the registry is swept after a game that opened it. */
    sb->envs++;
    if (sb->lpeg_opened) {
        sb->lpeg_opened = 0;
        sb_sweep_registry(L);
    }
    lua_settop(L, 0);
    return 0;
}

/* Removes every registry entry with a key other than an integer (luaL_ref's)
 * that was not there when the sandbox was made. */
static void sb_sweep_registry(lua_State *L)
{
    lua_rawgetp(L, LUA_REGISTRYINDEX, &sb_key_regkeys);
    int keys = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, LUA_REGISTRYINDEX)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) == LUA_TNUMBER)
            continue;
        lua_pushvalue(L, -1);
        if (lua_rawget(L, keys) == LUA_TNIL) { /* clearing a field while traversing is allowed */
            lua_pushvalue(L, -2);
            lua_pushnil(L);
            lua_rawset(L, LUA_REGISTRYINDEX);
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

/* aw_sandbox_renew's protected part: the last game's objects are garbage
 * once the host released its references. When they hold more than
 * SB_RENEW_SLACK bytes over what the sandbox held after its last renewal,
 * they are collected once the new environment is made (the last game's
 * globals and libraries are garbage from then on), so that the new
 * game starts with about the memory a new sandbox starts with and the last
 * game's garbage costs the next game next to nothing; less than that is
 * left to the collector's usual steps (a full collection costs about as
 * much as making a small game's environment). */
#define SB_RENEW_SLACK ((size_t)256 << 10)
static int sb_renew_body(lua_State *L)
{
    aw_sandbox *sb = lua_touserdata(L, 1);
    int collect = sb->used > sb->renewed_used + SB_RENEW_SLACK;
    sb_fresh_env(L);
    if (collect) { /* the last game's globals are garbage only now */
        lua_gc(L, LUA_GCCOLLECT);
        /* What a full collection leaves beyond a new sandbox's memory and
         * the kept chunks is held by the state itself, and a new sandbox
         * would not have it: the call records of the main thread after a
         * deep recursion (Lua frees half of them per collection), a string
         * table grown by many strings. Then a new sandbox serves. */
        if (sb->used > sb->made_used + sb->kept_bytes + SB_RENEW_SLACK)
            return luaL_error(L, "the sandbox holds %d KiB more than a new one would",
                              (int)((sb->used - sb->made_used - sb->kept_bytes) >> 10));
    }
    sb->renewed_used = sb->used;
    return 0;
}


/* ------------------------------------------------------------------------ */
/* Host side.                                                               */

void aw_sandbox_limits_default(aw_sandbox_limits *l)
{
    memset(l, 0, sizeof *l);
    l->budget_ms = 100;
    l->memory_bytes = (size_t)64 << 20;
    l->seed = 0;
    l->output_bytes = (size_t)64 << 10;
    l->module_dir = NULL;
}

void aw_sandbox_limits_agent(aw_sandbox_limits *l, int budget_ms, size_t memory_bytes)
{
    aw_sandbox_limits_default(l);
    if (budget_ms > 0)
        l->budget_ms = budget_ms;
    if (memory_bytes)
        l->memory_bytes = memory_bytes;
}

static int sb_panic(lua_State *L)
{
    /* Every entry into the state is protected; reaching here is a host bug. */
    const char *msg = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "(not a string)";
    fprintf(stderr, "aiwolf: unprotected error in a sandbox: %.200s\n", msg);
    abort();
}

/* Frees every block of an abandoned state (see sb_wd_handler) without Lua,
 * and gives the sandbox an empty state so that aw_sandbox_state never
 * returns a dangling pointer. The agent is gone: every later call fails. */
static void sb_abandon(aw_sandbox *sb)
{
    sb_heap_release(sb);
    sb->dead = 1;
    sb->in_call = 0;
    sb->expired = 0;
    sb->cur = NULL;
    sb->deadline = UINT64_MAX;
    sb->wall_limit = UINT64_MAX;
    sb->L = lua_newstate(sb_alloc, sb);
    if (sb->L) {
        lua_atpanic(sb->L, sb_panic);
        memset(lua_getextraspace(sb->L), 0, LUA_EXTRASPACE);
    }
}

/* The fault of a call that failed (status) or ran out of time (expired;
 * by_work: of work units), with its message; the stack back to base. Apart
 * from sb_protected, whose common path it leaves lean. */
static __attribute__((noinline)) int sb_call_failed(aw_sandbox *sb, int status, int expired, int by_work, int base,
                                                    aw_fault *fault)
{
    lua_State *L = sb->L;
    double cpu_ms = (double)fault->elapsed_ns / 1e6, wall_ms = (double)fault->wall_ns / 1e6;
    if (status == LUA_ERRMEM && sb->cap_first) {
        /* The cap came first (a deadline may have passed since, in the
         * collection and the unwinding that follow): a memory fault. */
        fault->kind = AW_FAULT_MEMORY;
        snprintf(fault->msg, sizeof fault->msg, "memory cap of %zu bytes reached", sb->lim.memory_bytes);
    } else if (expired && by_work) {
        fault->kind = AW_FAULT_TIMEOUT;
        snprintf(fault->msg, sizeof fault->msg, "work budget of %llu units exceeded (after %.1f ms CPU)",
                 (unsigned long long)sb->lim.work_budget, cpu_ms);
    } else if (expired && fault->elapsed_ns < sb->budget_ns && fault->wall_ns >= sb_wall_bound_ns(sb)) {
        /* Stopped by the wall-clock bound, not by the budget. */
        fault->kind = AW_FAULT_TIMEOUT;
        snprintf(fault->msg, sizeof fault->msg,
                 "time budget of %d ms exceeded: the wall-clock bound of %.0f ms passed after only %.1f ms CPU "
                 "(the machine is overloaded, or host code waited inside the call)",
                 sb->lim.budget_ms, (double)sb_wall_bound_ns(sb) / 1e6, cpu_ms);
    } else if (expired) {
        fault->kind = AW_FAULT_TIMEOUT;
        snprintf(fault->msg, sizeof fault->msg,
                 "time budget of %d ms exceeded (stopped after %.1f ms CPU, %.1f ms wall)", sb->lim.budget_ms, cpu_ms,
                 wall_ms);
    } else if (status == LUA_ERRMEM) {
        fault->kind = AW_FAULT_MEMORY;
        snprintf(fault->msg, sizeof fault->msg, "memory cap of %zu bytes reached", sb->lim.memory_bytes);
    } else {
        /* Only type checks and raw access: no __tostring, no __index. */
        fault->kind = sb->reply_fault ? AW_FAULT_REPLY : AW_FAULT_ERROR;
        if (status != LUA_OK && lua_type(L, -1) == LUA_TSTRING) {
            size_t len;
            const char *s = lua_tolstring(L, -1, &len);
            sb_copy_line(fault->msg, sizeof fault->msg, s, len);
        } else if (status != LUA_OK) {
            snprintf(fault->msg, sizeof fault->msg, "error object is a %s value", luaL_typename(L, -1));
        }
    }
    lua_settop(L, base);
    return -AW_EINVAL;
}

/* Runs fn(ud) as the protected, budgeted call behind load and run. */
static int sb_unguarded_call(aw_sandbox *sb, lua_CFunction fn, lua_CFunction msgh, void *ud, int nres,
                             aw_fault *fault);

/* The end of a call sb_call did not simply run (rc, not 0). */
static __attribute__((noinline)) int sb_call_rest(aw_sandbox *sb, aw_fault *fault, int rc)
{
    if (rc == SB_NOSTACK) {
        fault->kind = AW_FAULT_MEMORY;
        snprintf(fault->msg, sizeof fault->msg, "memory cap of %zu bytes reached", sb->lim.memory_bytes);
        return -AW_ENOMEM;
    }
    if (rc == SB_KILLED) {
        sb_abandon(sb);
        fault->kind = AW_FAULT_TIMEOUT;
        snprintf(fault->msg, sizeof fault->msg,
                 "time budget of %d ms exceeded and the call could not be stopped (stuck in the collector or a C "
                 "function, or not running) after %.1f ms CPU, %.1f ms wall: the agent was killed",
                 sb->lim.budget_ms, (double)fault->elapsed_ns / 1e6, (double)fault->wall_ns / 1e6);
        return -AW_EINVAL;
    }
    return sb_call_failed(sb, rc & ~SB_EXPIRED, (rc & SB_EXPIRED) != 0, sb->work_expired, sb->call_base, fault);
}

/* sb_protected's other entries: no fault given, a dead sandbox, a nested
 * call. */
static __attribute__((noinline)) int sb_protected_rest(aw_sandbox *sb, lua_CFunction fn, lua_CFunction msgh,
                                                       void *ud, int nres, aw_fault *fault)
{
    aw_fault local;
    if (!fault)
        fault = &local;
    /* Not a memset of the whole (a 512-byte message) at every call. */
    fault->kind = AW_FAULT_NONE;
    fault->msg[0] = '\0';
    fault->elapsed_ns = fault->wall_ns = 0;
    if (sb->dead || !sb->L) {
        fault->kind = AW_FAULT_TIMEOUT;
        snprintf(fault->msg, sizeof fault->msg, "the agent was killed by an earlier call that could not be stopped");
        return -AW_ESTATE;
    }
    if (sb->in_call) {
        fault->kind = AW_FAULT_ERROR;
        snprintf(fault->msg, sizeof fault->msg, "nested call into the same sandbox");
        return -AW_ESTATE;
    }
    int rc = sb_call(sb, fn, msgh, ud, nres, fault);
    return rc == 0 ? 0 : sb_call_rest(sb, fault, rc);
}

/* msgh, when not NULL, is the call's message handler (then nres is 0).
 * The common path (a guarded sandbox, alive, not in a call, a fault to
 * fill) is sb_call's. */
static inline int sb_protected(aw_sandbox *sb, lua_CFunction fn, lua_CFunction msgh, void *ud, int nres,
                               aw_fault *fault)
{
    /* (A sandbox that is not dead has its state.) */
    if (fault && !(sb->lim.unguarded | sb->dead | sb->in_call)) {
        int rc = sb_call(sb, fn, msgh, ud, nres, fault);
        return rc == 0 ? 0 : sb_call_rest(sb, fault, rc);
    }
    if (sb->lim.unguarded && !sb->dead)
        return sb_unguarded_call(sb, fn, msgh, ud, nres, fault);
    return sb_protected_rest(sb, fn, msgh, ud, nres, fault);
}

/* The allocator of an unguarded sandbox (benchmarks only). */
static void *sb_plain_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    (void)ud;
    (void)osize;
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    return realloc(ptr, nsize);
}

/* sb_protected for an unguarded sandbox: a plain protected call. */
static int sb_unguarded_call(aw_sandbox *sb, lua_CFunction fn, lua_CFunction msgh, void *ud, int nres,
                             aw_fault *fault)
{
    lua_State *L = sb->L;
    if (sb->in_call || !lua_checkstack(L, 4)) {
        fault->kind = AW_FAULT_ERROR;
        snprintf(fault->msg, sizeof fault->msg, "nested call into the same sandbox, or no stack");
        return -AW_ESTATE;
    }
    int base = lua_gettop(L);
    sb->in_call = 1;
    sb->cur = L;
    if (msgh)
        lua_pushcfunction(L, msgh);
    lua_pushcfunction(L, fn);
    lua_pushlightuserdata(L, ud);
    int status = lua_pcall(L, 1, nres, msgh ? base + 1 : 0);
    sb->in_call = 0;
    sb->cur = NULL;
    if (status == LUA_OK) {
        if (msgh)
            lua_settop(L, base);
        return 0;
    }
    fault->kind = status == LUA_ERRMEM ? AW_FAULT_MEMORY : sb->reply_fault ? AW_FAULT_REPLY : AW_FAULT_ERROR;
    sb->reply_fault = 0;
    size_t len = 0;
    const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : "error object is not a string";
    sb_copy_line(fault->msg, sizeof fault->msg, s, len ? len : strlen(s));
    lua_settop(L, base);
    return -AW_EINVAL;
}

aw_sandbox *aw_sandbox_new(const aw_sandbox_limits *limits, aw_error *err)
{
    aw_sandbox *sb = calloc(1, sizeof *sb);
    if (!sb) {
        aw_fail(err, AW_ENOMEM, "sandbox: out of memory");
        return NULL;
    }
    if (limits)
        sb->lim = *limits;
    else
        aw_sandbox_limits_default(&sb->lim);
    if (sb->lim.budget_ms <= 0)
        sb->lim.budget_ms = 100;
    if (sb->lim.memory_bytes == 0)
        sb->lim.memory_bytes = (size_t)64 << 20;
    if (sb->lim.output_bytes == 0)
        sb->lim.output_bytes = (size_t)64 << 10;
    if (sb->lim.module_dir) {
        sb->module_dir = strdup(sb->lim.module_dir);
        if (!sb->module_dir) {
            free(sb);
            aw_fail(err, AW_ENOMEM, "sandbox: out of memory");
            return NULL;
        }
    }
    sb->lim.module_dir = sb->module_dir;
    sb_budget_set(sb);
    sb->gc_at = sb->lim.memory_bytes / 8 * 7;
    sb->deadline = UINT64_MAX;
    sb->wall_limit = UINT64_MAX;
    sb->next_check = SB_CHECK_UNITS;
    sb->hook_count = SB_HOOK_COUNT;
    aw_buf_init(&sb->out);
    if (sb_heap_init(sb) < 0) {
        aw_fail(err, AW_ENOMEM, "sandbox: cannot reserve address space for a memory cap of %zu bytes: %s",
                sb->lim.memory_bytes, strerror(errno));
        aw_sandbox_free(sb);
        return NULL;
    }
    sb->L = lua_newstate(sb->lim.unguarded ? sb_plain_alloc : sb_alloc, sb);
    if (!sb->L) {
        aw_fail(err, AW_ENOMEM, "sandbox: cannot create a Lua state within %zu bytes", sb->lim.memory_bytes);
        aw_sandbox_free(sb);
        return NULL;
    }
    lua_atpanic(sb->L, sb_panic);
    /* Lua leaves the main thread's extra space uninitialised, and every new
     * thread copies it: the per-thread flags must start at zero. */
    memset(lua_getextraspace(sb->L), 0, LUA_EXTRASPACE);
    /* The hook is in place before any code runs; calls only move the deadline. */
    if (!sb->lim.unguarded)
        lua_sethook(sb->L, sb_hook, LUA_MASKCOUNT, SB_HOOK_COUNT);
    lua_pushcfunction(sb->L, sb_setup);
    lua_pushlightuserdata(sb->L, sb);
    if (lua_pcall(sb->L, 1, 0, 0) != LUA_OK) {
        const char *m = lua_type(sb->L, -1) == LUA_TSTRING ? lua_tostring(sb->L, -1) : "error";
        aw_fail(err, AW_ENOMEM, "sandbox: setup failed: %s", m);
        aw_sandbox_free(sb);
        return NULL;
    }
    lua_settop(sb->L, 0);
    lua_pushcfunction(sb->L, sb_fresh_env);
    lua_pushlightuserdata(sb->L, sb);
    if (lua_pcall(sb->L, 1, 0, 0) != LUA_OK) {
        aw_fail(err, AW_ENOMEM, "sandbox: setup failed: %s", "no memory for the agent's environment");
        aw_sandbox_free(sb);
        return NULL;
    }
    sb->renewed_used = sb->made_used = sb->used;
    sb_own_clock_reset(sb);
    return sb;
}

int aw_sandbox_renew(aw_sandbox *sb, uint64_t seed, aw_fault *fault)
{
    if (!sb->dead && !sb->in_call)
        lua_settop(sb->L, 0);
    sb->lim.seed = seed;
    aw_sandbox_clear_output(sb);
    if (sb_protected(sb, sb_renew_body, NULL, sb, 0, fault) < 0)
        return -1;
    sb_own_clock_reset(sb);
    sb->peak = sb->used;
    return 0;
}

void aw_sandbox_free(aw_sandbox *sb)
{
    if (!sb)
        return;
    if (sb->L)
        lua_close(sb->L);
    sb_heap_release(sb); /* nothing should remain */
    sb_heap_unmap(sb);
    aw_buf_free(&sb->out);
    free(sb->module_dir);
    free(sb);
}

lua_State *aw_sandbox_state(aw_sandbox *sb)
{
    return sb->L;
}

typedef struct sb_load_args {
    const char *src;
    size_t len;
    const char *name;
    aw_buf *keep; /* receives the compiled chunk, or NULL */
    int binary;   /* src is bytecode the host compiled (aw_sandbox_load_code) */
    const char *key; /* the chunk is kept under this key for later games, or NULL */
} sb_load_args;

static int sb_load_body(lua_State *L)
{
    sb_load_args *a = lua_touserdata(L, 1);
    if (a->len > SB_MAX_SOURCE)
        return luaL_error(L, "%s: source larger than %d bytes", a->name, (int)SB_MAX_SOURCE);
    if (a->key) {
        lua_pushstring(L, a->key);
        if (sb_chunk_get(L))
            goto run;
    }
    size_t before = sb_of(L)->used;
    if (a->binary) {
        if (luaL_loadbufferx(L, a->src, a->len, a->name, "b") != LUA_OK)
            return lua_error(L);
    } else {
        if (sb_load_text(L, sb_of(L), a->src, a->len, a->name) != LUA_OK)
            return lua_error(L);
        if (a->keep)
            aw_sandbox_dump(L, a->keep);
    }
    if (a->key) {
        lua_pushstring(L, a->key);
        sb_chunk_keep(L, before);
    }
run:
    lua_call(L, 0, 1);
    return 1;
}

int aw_sandbox_load(aw_sandbox *sb, const char *src, size_t len, const char *chunkname, aw_fault *fault)
{
    return aw_sandbox_load_keep(sb, src, len, chunkname, NULL, fault);
}

int aw_sandbox_load_keep(aw_sandbox *sb, const char *src, size_t len, const char *chunkname, aw_buf *code,
                         aw_fault *fault)
{
    sb_load_args a = {src, len, chunkname ? chunkname : "=agent", code, 0, NULL};
    size_t had = code ? code->len : 0;
    int rc = sb_protected(sb, sb_load_body, NULL, &a, 1, fault);
    if (rc < 0 && code)
        code->len = had; /* a chunk that does not run is not kept */
    return rc;
}

int aw_sandbox_load_code(aw_sandbox *sb, const char *code, size_t len, const char *chunkname, aw_fault *fault)
{
    return aw_sandbox_load_code_kept(sb, code, len, chunkname, NULL, fault);
}

int aw_sandbox_load_code_kept(aw_sandbox *sb, const char *code, size_t len, const char *chunkname, const char *key,
                              aw_fault *fault)
{
    sb_load_args a = {code, len, chunkname ? chunkname : "=agent", NULL, 1, key};
    return sb_protected(sb, sb_load_body, NULL, &a, 1, fault);
}

int aw_sandbox_run(aw_sandbox *sb, lua_CFunction fn, void *ud, aw_fault *fault)
{
    return sb_protected(sb, fn, NULL, ud, 0, fault);
}

int aw_sandbox_run_handled(aw_sandbox *sb, lua_CFunction fn, lua_CFunction msgh, void *ud, aw_fault *fault)
{
    return sb_protected(sb, fn, msgh, ud, 0, fault);
}

static int sb_ref_body(lua_State *L)
{
    lua_pushinteger(L, luaL_ref(L, LUA_REGISTRYINDEX));
    return 1;
}

int aw_sandbox_ref(aw_sandbox *sb, aw_fault *fault)
{
    lua_State *L = sb->L;
    aw_fault local;
    if (!fault)
        fault = &local;
    memset(fault, 0, sizeof *fault);
    if (lua_gettop(L) < 1 || !lua_checkstack(L, 2)) {
        lua_settop(L, lua_gettop(L) > 0 ? lua_gettop(L) - 1 : 0);
        fault->kind = AW_FAULT_ERROR;
        snprintf(fault->msg, sizeof fault->msg, "nothing to keep");
        return -AW_ESTATE;
    }
    /* luaL_ref may grow the registry: run it protected, the value as its argument. */
    lua_pushcfunction(L, sb_ref_body);
    lua_insert(L, -2);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
        lua_pop(L, 1);
        fault->kind = AW_FAULT_MEMORY;
        snprintf(fault->msg, sizeof fault->msg, "memory cap of %zu bytes reached", sb->lim.memory_bytes);
        return -AW_ENOMEM;
    }
    int ref = (int)lua_tointeger(L, -1);
    lua_pop(L, 1);
    return ref;
}

void aw_sandbox_unref(aw_sandbox *sb, int ref)
{
    if (ref > 0)
        luaL_unref(sb->L, LUA_REGISTRYINDEX, ref);
}

/* The registry's entry ref holds a value other than nil, so storing into
 * it finds its slot and allocates nothing: no memory error can be raised
 * outside a protected call. */
void aw_sandbox_blank_ref(aw_sandbox *sb, int ref)
{
    lua_pushboolean(sb->L, 0);
    lua_rawseti(sb->L, LUA_REGISTRYINDEX, ref);
}

void aw_sandbox_reref(aw_sandbox *sb, int ref)
{
    lua_rawseti(sb->L, LUA_REGISTRYINDEX, ref);
}

typedef struct sb_preload_args {
    const char *name;
    lua_CFunction open;
} sb_preload_args;

static int sb_preload_body(lua_State *L)
{
    sb_preload_args *a = lua_touserdata(L, 1);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &sb_key_preload);
    lua_pushcfunction(L, a->open);
    lua_setfield(L, -2, a->name);
    return 0;
}

int aw_sandbox_preload(aw_sandbox *sb, const char *name, lua_CFunction open, aw_error *err)
{
    aw_fault f;
    sb_preload_args a = {name, open};
    if (!name || !open)
        return aw_fail(err, AW_EINVAL, "sandbox: preload needs a name and a function");
    if (sb_protected(sb, sb_preload_body, NULL, &a, 0, &f) < 0)
        return aw_fail(err, AW_ENOMEM, "sandbox: cannot preload '%s': %s", name, f.msg);
    return 0;
}

const char *aw_sandbox_output(aw_sandbox *sb, size_t *len)
{
    if (len)
        *len = sb->out.len;
    return sb->out.data ? sb->out.data : "";
}

void aw_sandbox_clear_output(aw_sandbox *sb)
{
    aw_buf_clear(&sb->out);
    sb->out_dropped = 0;
}

size_t aw_sandbox_output_dropped(const aw_sandbox *sb)
{
    return sb->out_dropped;
}

uint64_t aw_sandbox_work(const aw_sandbox *sb)
{
    return sb->units_last;
}

size_t aw_sandbox_memory(const aw_sandbox *sb)
{
    return sb->used;
}

size_t aw_sandbox_memory_peak(const aw_sandbox *sb)
{
    return sb->peak;
}

uint64_t aw_sandbox_allocated(const aw_sandbox *sb)
{
    return sb->allocated;
}
