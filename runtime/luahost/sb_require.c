/* sb_require: require: package.loaded, the host loaders, package.preload, the
 * module folder. Part of the sandbox (sandbox.h is the contract;
 * sandbox_internal.h what the parts share). */
#include "sandbox_internal.h"

#include <stdbool.h>

/* ------------------------------------------------------------------------ */
/* require: package.loaded, then the host's loaders (LPeg, the embedded lua/
 * library, aw_sandbox_preload), then package.preload (the agent's own), then
 * plain Lua files from module_dir. No C modules, no search paths.           */

/* ------------------------------------------------------------------------ */
/* The compiled modules kept across sandboxes (sandbox.h).                  */

#define SB_MODCACHE_MAX 256 /* files kept at most; others compile each time */

typedef struct sb_modcode {
    char *path; /* relative to the module folder */
    char *text; /* the text it was compiled from */
    size_t len;
    aw_buf code;
} sb_modcode;

struct aw_modcache {
    sb_modcode *items;
    int n;
    aw_buf scratch; /* a dump under way: a call stopped half-way keeps no half */
};

aw_modcache *aw_modcache_new(void)
{
    aw_modcache *c = aw_xcalloc(1, sizeof *c);
    aw_buf_init(&c->scratch);
    return c;
}

void aw_modcache_free(aw_modcache *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->n; i++) {
        free(c->items[i].path);
        free(c->items[i].text);
        aw_buf_free(&c->items[i].code);
    }
    free(c->items);
    aw_buf_free(&c->scratch);
    free(c);
}

/* Pushes the function compiled earlier from exactly this text of this file
 * and returns 1, or returns 0 (pushing nothing). */
static int sb_cached_module(lua_State *L, aw_modcache *c, const char *path, const char *text, size_t len,
                            const char *chunkname)
{
    for (int i = 0; c && i < c->n; i++) {
        const sb_modcode *m = &c->items[i];
        if (strcmp(m->path, path) != 0 || m->len != len || memcmp(m->text, text, len) != 0)
            continue;
        if (luaL_loadbufferx(L, m->code.data, m->code.len, chunkname, "b") != LUA_OK)
            return lua_error(L);
        return 1;
    }
    return 0;
}

/* Keeps the function on top (just compiled from text) in the cache. */
static void sb_keep_module(lua_State *L, aw_modcache *c, const char *path, const char *text, size_t len)
{
    if (!c || c->n >= SB_MODCACHE_MAX)
        return;
    aw_buf_clear(&c->scratch);
    aw_sandbox_dump(L, &c->scratch);
    aw_sandbox *sb = sb_of(L);
    sb->in_alloc = 1; /* host malloc: the last resort must not jump out of it */
    char *copy = aw_xmalloc(len ? len : 1);
    memcpy(copy, text, len);
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->items[i].path, path) == 0) { /* an older text of the file */
            free(c->items[i].text);
            c->items[i].text = copy;
            c->items[i].len = len;
            aw_buf_free(&c->items[i].code);
            c->items[i].code = c->scratch;
            aw_buf_init(&c->scratch);
            sb->in_alloc = 0;
            return;
        }
    c->items = aw_xrealloc(c->items, sizeof *c->items * (size_t)(c->n + 1));
    sb_modcode *m = &c->items[c->n++];
    m->path = aw_xstrdup(path);
    m->text = copy;
    m->len = len;
    m->code = c->scratch;
    aw_buf_init(&c->scratch);
    sb->in_alloc = 0;
}

static int sb_module_file(lua_State *L, aw_sandbox *sb, const char *name)
{
    size_t n = strlen(name);
    if (!sb->module_dir || n == 0 || n > 200)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                 (c == '.' && i > 0 && i + 1 < n && name[i + 1] != '.');
        if (!ok)
            return 0; /* no '/', no '..', no leading or trailing dot */
    }
    char path[4096];
    int k = snprintf(path, sizeof path, "%s/", sb->module_dir);
    if (k < 0 || (size_t)k + n + 5 > sizeof path)
        return 0;
    for (size_t i = 0; i < n; i++)
        path[k + i] = name[i] == '.' ? '/' : name[i];
    memcpy(path + k + n, ".lua", 5);
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    /* The file must really be inside the folder: a symbolic link to
     * elsewhere (/etc/passwd as passwd.lua), or through a linked
     * subfolder, is not a module. Each part of the path below the folder is
     * looked at with lstat (realpath would need readlink, which the isolated
     * mode's filter forbids). */
    for (size_t i = (size_t)k; path[i]; i++) {
        if (path[i] != '/' && path[i + 1] != '\0')
            continue;
        char part[4096];
        memcpy(part, path, i + (path[i] != '/'));
        part[i + (path[i] != '/')] = '\0';
        struct stat ls;
        if (lstat(part, &ls) != 0 || S_ISLNK(ls.st_mode))
            return luaL_error(L, "module '%s' is not a file inside the agent's folder", name);
    }
    if ((size_t)st.st_size > SB_MAX_MODULE_FILE)
        return luaL_error(L, "module '%s' is larger than %d bytes", name, (int)SB_MAX_MODULE_FILE);
    /* The file goes into a userdata (the agent's memory, freed by the GC) so
     * that nothing leaks if loading raises: no Lua call happens while the
     * FILE is open. */
    size_t size = (size_t)st.st_size;
    char *buf = lua_newuserdatauv(L, size ? size : 1, 0);
    sb->in_alloc = 1; /* stdio takes locks: the last resort must not jump out of it */
    FILE *f = fopen(path, "rb");
    if (f) {
        size = fread(buf, 1, size, f);
        fclose(f);
    }
    sb->in_alloc = 0;
    if (!f)
        return luaL_error(L, "cannot open module '%s'", name);
    lua_pushfstring(L, "@%s", path + k);
    if (sb_cached_module(L, sb->lim.module_cache, path + k, buf, size, lua_tostring(L, -1)))
        goto run;
    if (sb_load_text(L, sb, buf, size, lua_tostring(L, -1)) != LUA_OK)
        return lua_error(L);
    sb_keep_module(L, sb->lim.module_cache, path + k, buf, size);
run:
    lua_pushstring(L, name);
    lua_pushstring(L, path + k);
    lua_call(L, 2, 1);
    return 1;
}

int sb_require(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    const char *name = luaL_checkstring(L, 1);
    lua_settop(L, 1);
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE); /* 2 */
    lua_pushvalue(L, 1);
    if (lua_toboolean(L, (lua_rawget(L, 2), -1)))
        return 1;
    lua_pop(L, 1);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &sb_key_preload); /* 3 */
    lua_pushvalue(L, 1);
    lua_rawget(L, 3); /* 4 */
    if (lua_isnil(L, 4)) {
        lua_pop(L, 1);
        lua_getglobal(L, "package");
        if (lua_istable(L, -1)) {
            lua_getfield(L, -1, "preload");
            lua_remove(L, -2);
            if (lua_istable(L, -1)) {
                lua_pushvalue(L, 1);
                lua_gettable(L, -2);
                lua_remove(L, -2);
            }
        }
        if (!lua_isfunction(L, -1)) {
            lua_settop(L, 3);
            if (sb_module_file(L, sb, name))
                goto loaded;
            return luaL_error(L, "module '%s' not found", name);
        }
    }
    lua_pushvalue(L, 1);
    lua_pushliteral(L, ":preload:");
    lua_call(L, 2, 1);
loaded:
    if (!lua_isnil(L, -1)) {
        lua_pushvalue(L, 1);
        lua_pushvalue(L, -2);
        lua_rawset(L, 2);
    }
    lua_pop(L, 1);
    lua_pushvalue(L, 1);
    if (lua_rawget(L, 2) == LUA_TNIL) {
        lua_pop(L, 1);
        lua_pushboolean(L, 1);
        lua_pushvalue(L, 1);
        lua_pushvalue(L, -2);
        lua_rawset(L, 2);
    }
    return 1;
}

/* ------------------------------------------------------------------------ */
/* Shared instances. A module of ours that keeps no state once loaded
 * (aiwolf.protocol: functions and constant tables) is run once per sandbox,
 * and each game's require gets a new copy of the table it returned (with
 * new copies of the tables in it): the functions are the same, immutable
 * and unreachable in any other way, and every table an agent can reach is
 * the game's. What the instance keeps inside (its upvalues) no agent code
 * can reach: no debug library, and the sentence metatable is protected
 * (__metatable). The instance runs with an environment of its own, never
 * the game's: its `require` reaches only the host's loaders (an agent's
 * package.loaded or preload never enters it), other globals read the
 * template while it loads and raise an error afterwards (a function that
 * read a global when called would see no game's globals: a bug of ours,
 * made loud). Loading it is counted like a kept chunk (kept_bytes). See
 * docs/sandbox.md, "One sandbox, many games". */

static const char *const sb_shared_names[] = {"aiwolf.protocol", NULL};

#define NOT_SHARED "%s cannot be shared: it must return a plain table of functions and constants"

static bool sb_shared(const aw_luamod *m)
{
    for (int i = 0; sb_shared_names[i]; i++)
        if (strcmp(m->name, sb_shared_names[i]) == 0)
            return true;
    return false;
}

/* The shared instance's require: the host's loaders only. */
static int sb_host_require(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &sb_key_preload);
    if (lua_getfield(L, -1, name) != LUA_TFUNCTION)
        return luaL_error(L, "module '%s' not found", name);
    lua_pushstring(L, name);
    lua_pushliteral(L, ":preload:");
    lua_call(L, 2, 1);
    return 1;
}

static int sb_shared_global(lua_State *L)
{
    return luaL_error(L, "a shared module used the global '%s' after it was loaded", luaL_tolstring(L, 2, NULL));
}

/* Whether a value of a shared instance may be handed to every game: a
 * function (immutable; what it keeps no agent code reaches), a string, a
 * number or a boolean. */
static int sb_plain_value(lua_State *L, int idx)
{
    int t = lua_type(L, idx);
    return t == LUA_TFUNCTION || t == LUA_TSTRING || t == LUA_TNUMBER || t == LUA_TBOOLEAN;
}

/* Whether the shared instance at t is a plain table of that: string keys;
 * plain values, and tables without a metatable holding only plain values
 * under string or number keys. */
static int sb_shareable(lua_State *L, int t)
{
    lua_pushnil(L);
    while (lua_next(L, t)) {
        int k = lua_gettop(L) - 1, v = k + 1;
        int ok = lua_type(L, k) == LUA_TSTRING;
        if (ok && lua_type(L, v) == LUA_TTABLE) {
            if (lua_getmetatable(L, v)) {
                lua_pop(L, 3);
                return 0;
            }
            lua_pushnil(L);
            while (lua_next(L, v)) {
                int kt = lua_type(L, -2);
                if (!(kt == LUA_TSTRING || kt == LUA_TNUMBER) || !sb_plain_value(L, -1)) {
                    lua_pop(L, 4);
                    return 0;
                }
                lua_pop(L, 1);
            }
        } else if (!ok || !sb_plain_value(L, v)) {
            lua_pop(L, 2);
            return 0;
        }
        lua_pop(L, 1);
    }
    return 1;
}

/* Pushes the loaded module m's chunk (compiled once per process). */
static void sb_luamod_chunk(lua_State *L, const aw_luamod *m)
{
    lua_pushfstring(L, "@%s", m->path);
    /* Our own modules load from bytecode compiled once per process (made from
     * our text, never from an agent's); agents' chunks stay text-only. */
    size_t blen;
    const char *code = aw_luamod_bytecode(m, &blen);
    int st = code ? luaL_loadbufferx(L, code, blen, lua_tostring(L, -1), "b")
                  : luaL_loadbufferx(L, m->source, m->len, lua_tostring(L, -1), "t");
    if (st != LUA_OK)
        lua_error(L);
    lua_remove(L, -2); /* the chunk name */
}

/* Pushes this game's copy of m's shared instance, making the instance first
 * if this sandbox has none yet. */
static int sb_shared_module(lua_State *L, const aw_luamod *m)
{
    aw_sandbox *sb = sb_of(L);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &sb_key_shared);
    int shared = lua_gettop(L);
    if (lua_rawgetp(L, shared, m) != LUA_TTABLE) {
        lua_pop(L, 1);
        size_t before = sb->used;
        sb_luamod_chunk(L, m);
        int chunk = lua_gettop(L);
        /* Its environment: require from the host's loaders; the template's
         * globals while it loads. */
        lua_createtable(L, 0, 1);
        int env = lua_gettop(L);
        lua_pushcfunction(L, sb_host_require);
        lua_setfield(L, env, "require");
        lua_createtable(L, 0, 2);
        lua_rawgetp(L, LUA_REGISTRYINDEX, &sb_key_template);
        lua_setfield(L, -2, "__index");
        lua_setmetatable(L, env);
        lua_pushvalue(L, env);
        if (!lua_setupvalue(L, chunk, 1))
            lua_pop(L, 1);
        lua_pushvalue(L, chunk);
        lua_pushstring(L, m->name);
        lua_pushstring(L, m->path);
        lua_call(L, 2, 1);
        if (!lua_istable(L, -1) || lua_getmetatable(L, -1))
            return luaL_error(L, NOT_SHARED, m->name);
        /* From now on a global read or write is an error. */
        lua_pushnil(L);
        lua_setfield(L, env, "require");
        lua_createtable(L, 0, 2);
        lua_pushcfunction(L, sb_shared_global);
        lua_setfield(L, -2, "__index");
        lua_pushcfunction(L, sb_shared_global);
        lua_setfield(L, -2, "__newindex");
        lua_setmetatable(L, env);
        int inst = lua_gettop(L);
        if (!sb_shareable(L, inst))
            return luaL_error(L, NOT_SHARED, m->name);
        /* The record: {instance, view, the copy's proxy metatable, the
         * keys of its tables, their proxy metatables, the last copy, the
         * environment it was made in}. The view is what a copy shows: the
         * instance's values, and the game's proxies of its tables. */
        lua_createtable(L, 7, 0);
        int rec = lua_gettop(L);
        lua_pushvalue(L, inst);
        lua_rawseti(L, rec, 1);
        lua_newtable(L); /* view */
        lua_newtable(L); /* keys */
        lua_newtable(L); /* tables' metatables */
        int view = rec + 1, keys = rec + 2, mts = rec + 3;
        lua_pushnil(L);
        while (lua_next(L, inst)) {
            if (lua_type(L, -1) == LUA_TTABLE) {
                lua_pushvalue(L, -2);
                lua_rawseti(L, keys, (lua_Integer)lua_rawlen(L, keys) + 1);
                lua_pushvalue(L, -2);
                sb_proxy_metatable(L, -2, -2);
                lua_rawset(L, mts);
            }
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_rawset(L, view);
        }
        sb_proxy_metatable(L, view, view);
        lua_rawseti(L, rec, 3);
        lua_rawseti(L, rec, 5);
        lua_rawseti(L, rec, 4);
        lua_rawseti(L, rec, 2);
        lua_pushvalue(L, rec);
        lua_rawsetp(L, shared, m);
        if (sb->used > before)
            sb->kept_bytes += sb->used - before;
    }
    /* This game's copy: a proxy of the view (sb_proxy.c), its tables
     * proxies of the instance's. A copy made earlier in this game is
     * filled first: it must keep showing its own tables. */
    int rec = lua_gettop(L);
    lua_rawgeti(L, rec, 7);
    if (lua_tointeger(L, -1) == (lua_Integer)sb->envs && lua_rawgeti(L, rec, 6) == LUA_TTABLE)
        sb_proxy_fix(L, -1);
    lua_settop(L, rec);
    lua_rawgeti(L, rec, 2); /* rec + 1: view */
    lua_rawgeti(L, rec, 4); /* rec + 2: keys */
    lua_rawgeti(L, rec, 5); /* rec + 3: metatables */
    for (lua_Integer i = 1; lua_rawgeti(L, rec + 2, i) != LUA_TNIL; i++) {
        lua_createtable(L, 0, 0);
        lua_pushvalue(L, -2);
        lua_rawget(L, rec + 3);
        lua_setmetatable(L, -2);
        lua_rawset(L, rec + 1); /* a key the view holds: no new slot */
    }
    lua_pop(L, 1);
    lua_createtable(L, 0, 0);
    lua_rawgeti(L, rec, 3);
    lua_setmetatable(L, -2);
    lua_pushvalue(L, -1);
    lua_rawseti(L, rec, 6);
    lua_pushinteger(L, (lua_Integer)sb->envs);
    lua_rawseti(L, rec, 7);
    return 1;
}

static int sb_luamod_loader(lua_State *L)
{
    const aw_luamod *m = lua_touserdata(L, lua_upvalueindex(1));
    if (sb_shared(m))
        return sb_shared_module(L, m);
    lua_pushlightuserdata(L, (void *)m);
    if (sb_chunk_get(L))
        goto run;
    size_t before = sb_of(L)->used;
    sb_luamod_chunk(L, m);
    lua_pushlightuserdata(L, (void *)m);
    sb_chunk_keep(L, before);
run:
    lua_pushstring(L, m->name);
    lua_pushstring(L, m->path);
    lua_call(L, 2, 1);
    return 1;
}

/* ------------------------------------------------------------------------ */
/* package: loaded and preload only; the host's loaders (LPeg, our modules)
 * in the registry, where no agent reaches them.                            */

void sb_open_package(lua_State *L)
{
    lua_createtable(L, 0, 2);
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, "loaded");
    lua_pushvalue(L, -2);
    lua_setfield(L, -2, "package");
    lua_pop(L, 1);
    lua_newtable(L);
    lua_setfield(L, -2, "preload");
    lua_setglobal(L, "package");

    lua_newtable(L);
    lua_pushcfunction(L, sb_open_lpeg);
    lua_setfield(L, -2, "lpeg");
    for (const aw_luamod *m = aw_luamods; m->name; m++) {
        lua_pushlightuserdata(L, (void *)m);
        lua_pushcclosure(L, sb_luamod_loader, 1);
        lua_setfield(L, -2, m->name);
    }
    lua_rawsetp(L, LUA_REGISTRYINDEX, &sb_key_preload);
}
