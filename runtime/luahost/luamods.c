/* luamods: precompiled forms of the embedded Lua library. Every sandbox that
 * requires a module used to compile its text again (a third of a millisecond
 * for aiwolf.protocol, times every agent of every game); instead the text is
 * compiled once per process, in a private state, and each sandbox loads the
 * bytecode. The bytecode is made here from our own sources, never taken from
 * an agent, so loading it in binary mode is safe (agents themselves can only
 * ever load text). Uses Lua 5.4 and util. */
#include "luamods.h"

#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>

#include "util.h"

typedef struct compiled {
    char *code; /* NULL until compiled; "" after a failed compile */
    size_t len;
} compiled;

static compiled *cache;
static size_t ncache;
/* Sandboxes in several threads (play --jobs, the contest's workers) may ask
 * for the same module's bytecode at once the first time. */
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *luamod_bytecode_locked(const aw_luamod *m, size_t *len);

static int dump_writer(lua_State *L, const void *p, size_t sz, void *ud)
{
    (void)L;
    aw_buf_add(ud, p, sz);
    return 0;
}

/* A fork while another thread holds the lock would leave the child a lock
 * nobody releases: fork waits for it, and both sides release it. */
static void cache_fork_prepare(void)
{
    pthread_mutex_lock(&cache_lock);
}
static void cache_fork_release(void)
{
    pthread_mutex_unlock(&cache_lock);
}
static pthread_once_t cache_fork_once = PTHREAD_ONCE_INIT;
static void cache_fork_install(void)
{
    pthread_atfork(cache_fork_prepare, cache_fork_release, cache_fork_release);
}

const char *aw_luamod_bytecode(const aw_luamod *m, size_t *len)
{
    pthread_once(&cache_fork_once, cache_fork_install);
    pthread_mutex_lock(&cache_lock);
    const char *code = luamod_bytecode_locked(m, len);
    pthread_mutex_unlock(&cache_lock);
    return code;
}

static const char *luamod_bytecode_locked(const aw_luamod *m, size_t *len)
{
    if (!cache) {
        while (aw_luamods[ncache].name)
            ncache++;
        cache = aw_xcalloc(ncache ? ncache : 1, sizeof *cache);
    }
    size_t i = (size_t)(m - aw_luamods);
    if (i >= ncache)
        return NULL;
    compiled *c = &cache[i];
    if (!c->code) {
        aw_buf b;
        aw_buf_init(&b);
        lua_State *L = luaL_newstate();
        if (L) {
            char name[256];
            snprintf(name, sizeof name, "@%s", m->path);
            /* Debug information is kept: error messages still name file:line. */
            if (luaL_loadbufferx(L, m->source, m->len, name, "t") == LUA_OK)
                lua_dump(L, dump_writer, &b, 0);
            lua_close(L);
        }
        if (!b.data)
            aw_buf_add(&b, "", 0);
        c->code = b.data;
        c->len = b.len;
    }
    if (c->len == 0)
        return NULL;
    *len = c->len;
    return c->code;
}

const aw_luamod *aw_hostmod(const char *name)
{
    for (const aw_luamod *m = aw_hostmods; m->name; m++)
        if (strcmp(m->name, name) == 0)
            return m;
    return NULL;
}
