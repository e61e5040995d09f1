/* luaseat_load: the agent file and its folder's modules loaded into a
 * sandbox, sandboxes made, renewed and closed, hot reload (see
 * luaseat_internal.h). */
#include "luaseat_internal.h"
#include "lualint.h"

#include <dirent.h>
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Runs the agent's text in sb and keeps the table it returns in the
 * registry (*ref; in the reference *ref already is when kept, one
 * aw_sandbox_blank_ref left for it). On failure nothing is kept and *fault
 * says why. */
static int load_agent_table(luaseat *s, aw_sandbox *sb, int *ref, bool kept, aw_fault *fault)
{
    if (!s->chunkname) {
        char chunkname[300];
        snprintf(chunkname, sizeof chunkname, "@%s", s->path);
        s->chunkname = aw_xstrdup(chunkname);
    }
    const char *chunkname = s->chunkname;
    /* The text is compiled (under the budget, in the sandbox) once per
     * version; later sandboxes load that bytecode, ours, never an agent's. */
    /* The version names the code: a sandbox that loaded it keeps the
     * function and runs it again in its later games (aw_sandbox_renew). */
    s->shape_known = 0; /* agent code runs, a new agent table */
    int rc = s->code.len ? aw_sandbox_load_code_kept(sb, s->code.data, s->code.len, chunkname, s->version, fault)
                         : aw_sandbox_load_keep(sb, s->source, s->source_len, chunkname, &s->code, fault);
    if (rc < 0)
        return -1;
    lua_State *L = aw_sandbox_state(sb);
    if (lua_type(L, -1) != LUA_TTABLE) {
        fault->kind = AW_FAULT_REPLY;
        aw_lualint_return_msg(fault->msg, sizeof fault->msg, s->path, lua_typename(L, lua_type(L, -1)));
        lua_pop(L, 1);
        return -1;
    }
    if (kept) {
        aw_sandbox_reref(sb, *ref);
        return 0;
    }
    /* aw_sandbox_ref, not luaL_ref: taking a reference can run out of the
     * agent's memory, which must not happen outside a protected call. */
    int r = aw_sandbox_ref(sb, fault);
    if (r < 0)
        return -1;
    *ref = r;
    return 0;
}

bool ls_watching(const luaseat *s)
{
    return s->opts.watch || s->opts.watch_live;
}

/* ---- the folder's modules, kept in memory while watching ---------------- */

static char snapshot_key; /* registry key of the seat, for the loader */

static int snapshot_loader(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &snapshot_key);
    luaseat *s = lua_touserdata(L, -1);
    for (int i = 0; s && i < s->nmods; i++) {
        module_src *m = &s->mods[i];
        if (strcmp(m->name, name) != 0)
            continue;
        lua_pushfstring(L, "@%s", m->path);
        /* Compiled once per version of the module: its bytecode (made here
         * from the text, never taken from the agent) serves later games. */
        if (m->code.len) {
            if (luaL_loadbufferx(L, m->code.data, m->code.len, lua_tostring(L, -1), "b") != LUA_OK)
                return lua_error(L);
        } else {
            if (luaL_loadbufferx(L, m->text, m->len, lua_tostring(L, -1), "t") != LUA_OK)
                return lua_error(L);
            /* Dumped aside first: a call stopped half-way keeps no half. */
            aw_buf_clear(&s->scratch);
            aw_sandbox_dump(L, &s->scratch);
            aw_buf_free(&m->code);
            m->code = s->scratch;
            aw_buf_init(&s->scratch);
        }
        lua_pushstring(L, m->name);
        lua_pushstring(L, m->path);
        lua_call(L, 2, 1);
        return 1;
    }
    return luaL_error(L, "module '%s' not found", name);
}

static int set_seat_key(lua_State *L)
{
    lua_pushvalue(L, 1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &snapshot_key);
    return 0;
}

/* Makes the snapshot's modules requirable in sb. */
static int serve_snapshot(luaseat *s, aw_sandbox *sb, aw_fault *fault)
{
    if (aw_sandbox_run(sb, set_seat_key, s, fault) < 0)
        return -1;
    for (int i = 0; i < s->nmods; i++) {
        aw_error err;
        if (aw_sandbox_preload(sb, s->mods[i].name, snapshot_loader, &err) < 0) {
            fault->kind = AW_FAULT_MEMORY;
            snprintf(fault->msg, sizeof fault->msg, "%.500s", err.msg);
            return -1;
        }
    }
    return 0;
}

void ls_free_modules(module_src *mods, int n)
{
    for (int i = 0; i < n; i++) {
        free(mods[i].name);
        free(mods[i].path);
        free(mods[i].text);
        aw_buf_free(&mods[i].code);
    }
    free(mods);
}

#define MAX_MODULES 256
#define MAX_MODULE_BYTES (1u << 20)

static bool module_word(const char *w, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((w[i] >= 'a' && w[i] <= 'z') || (w[i] >= 'A' && w[i] <= 'Z') || (w[i] >= '0' && w[i] <= '9') ||
              w[i] == '_'))
            return false;
    return true;
}

/* Walks the agent's folder (four levels at most) for files a module name can
 * reach (a/b.lua for "a.b"): it adds each file's name, size and time to the
 * signature, and, when mods is not NULL, reads it. */
static void walk(const char *dir, const char *rel, int depth, uint64_t *sig, module_src **mods, int *n)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) && *n < MAX_MODULES) {
        size_t len = strlen(e->d_name);
        char full[4096], relpath[1024];
        if (snprintf(full, sizeof full, "%s/%s", dir, e->d_name) >= (int)sizeof full ||
            snprintf(relpath, sizeof relpath, "%s%s%s", rel, *rel ? "/" : "", e->d_name) >= (int)sizeof relpath)
            continue;
        struct stat st;
        if (stat(full, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            if (depth < 4 && module_word(e->d_name, len))
                walk(full, relpath, depth + 1, sig, mods, n);
            continue;
        }
        if (!S_ISREG(st.st_mode) || len < 5 || strcmp(e->d_name + len - 4, ".lua") != 0 ||
            !module_word(e->d_name, len - 4) || st.st_size > MAX_MODULE_BYTES)
            continue;
        *sig = aw_fnv64(*sig, relpath, strlen(relpath) + 1);
        *sig = aw_fnv64(*sig, &st.st_size, sizeof st.st_size);
        *sig = aw_fnv64(*sig, &st.st_mtim, sizeof st.st_mtim);
        (*n)++;
        if (!mods)
            continue;
        size_t tlen;
        char *text = aw_read_file(full, &tlen, NULL);
        if (!text) {
            (*n)--;
            continue;
        }
        *mods = aw_xrealloc(*mods, sizeof **mods * (size_t)*n);
        module_src *m = &(*mods)[*n - 1];
        m->path = aw_xstrdup(relpath);
        m->name = aw_xstrndup(relpath, strlen(relpath) - 4);
        for (char *c = m->name; *c; c++)
            if (*c == '/')
                *c = '.';
        m->text = text;
        m->len = tlen;
        aw_buf_init(&m->code);
    }
    closedir(d);
}

uint64_t ls_file_signature(const luaseat *s)
{
    uint64_t sig = AW_FNV64_INIT;
    struct stat st;
    if (stat(s->path, &st) == 0) {
        sig = aw_fnv64(sig, &st.st_size, sizeof st.st_size);
        sig = aw_fnv64(sig, &st.st_mtim, sizeof st.st_mtim);
    }
    return sig;
}

/* The signature of the agent file and, when watching, its folder's modules
 * (their names, sizes and times): a change means a new version to try. */
uint64_t ls_signature(const luaseat *s, module_src **mods, int *nmods)
{
    uint64_t sig = ls_file_signature(s);
    int n = 0;
    if (ls_watching(s))
        walk(s->dir, "", 0, &sig, mods, &n);
    if (nmods)
        *nmods = n;
    return sig;
}

/* A new sandbox with the agent file run in it and its table kept in the
 * registry. */
aw_sandbox *ls_open_agent(luaseat *s, uint64_t seed, int budget_ms, int *ref, aw_fault *fault)
{
    aw_sandbox_limits lim;
    aw_sandbox_limits_agent(&lim, budget_ms, s->opts.limits.memory_bytes);
    lim.seed = seed;
    /* Watching an agent means keeping the version that last loaded, modules
     * included: then modules come from the in-memory snapshot, not the disk. */
    lim.module_dir = ls_watching(s) ? NULL : s->dir;
    lim.module_cache = ls_watching(s) ? NULL : s->modcache;
    lim.work_budget = s->opts.limits.work_budget;
    lim.unguarded = s->opts.unguarded;
    lim.profile = s->profile;
    aw_error err;
    aw_sandbox *sb = aw_sandbox_new(&lim, &err);
    if (!sb) {
        fault->kind = AW_FAULT_MEMORY;
        snprintf(fault->msg, sizeof fault->msg, "cannot create a sandbox: %.400s", err.msg);
        return NULL;
    }
    if (s->opts.prepare && s->opts.prepare(sb, &err) < 0) {
        fault->kind = AW_FAULT_ERROR;
        snprintf(fault->msg, sizeof fault->msg, "%.500s", err.msg);
        aw_sandbox_free(sb);
        return NULL;
    }
    if (ls_watching(s) && serve_snapshot(s, sb, fault) < 0) {
        aw_sandbox_free(sb);
        return NULL;
    }
    if (load_agent_table(s, sb, ref, false, fault) < 0) {
        aw_sandbox_free(sb);
        return NULL;
    }
    s->sandboxes++;
    return sb;
}

void ls_close_agent(luaseat *s)
{
    if (s->sb) {
        s->allocated += aw_sandbox_allocated(s->sb);
        aw_sandbox_free(s->sb);
    }
    s->sb = NULL;
    s->agent_ref = s->swap_ref = s->keys_ref = s->method_refs[0] = LUA_NOREF;
    s->view.ref = s->view.stale = LUA_NOREF; /* they were the state's */
    s->view.building = false;
}

/* The next game in the sandbox of the last one (aw_sandbox_renew): the
 * host's references into it released first, so that nothing the last game
 * made stays reachable; then the agent file runs again in the new
 * environment. Only a sandbox in which no call failed is used again, and
 * only for the version it ran. Returns false (the sandbox freed) when it
 * cannot serve: the caller makes a new one. */
bool ls_renew_agent(luaseat *s, uint64_t seed, aw_fault *fault)
{
    if (!s->sb)
        return false;
    if (!s->sb_clean || s->sb_budget != s->opts.limits.budget_ms) {
        ls_close_agent(s);
        return false;
    }
    /* The agent's table's reference serves the next one: let go of now
     * (false in its place), filled when the file has run again. */
    bool kept = s->agent_ref > 0;
    if (kept)
        aw_sandbox_blank_ref(s->sb, s->agent_ref);
    else
        s->agent_ref = LUA_NOREF;
    aw_sandbox_unref(s->sb, s->swap_ref);
    aw_sandbox_unref(s->sb, s->view.ref);
    aw_sandbox_unref(s->sb, s->view.stale);
    s->swap_ref = LUA_NOREF;
    s->view.ref = s->view.stale = LUA_NOREF;
    s->view.building = false;
    s->shape_known = 0;
    if (aw_sandbox_renew(s->sb, seed, fault) < 0 || (ls_watching(s) && serve_snapshot(s, s->sb, fault) < 0) ||
        load_agent_table(s, s->sb, &s->agent_ref, kept, fault) < 0) {
        ls_close_agent(s);
        return false;
    }
    return true;
}

/* FNV-1a, 64 bits: a content hash that names the version of an agent. */
void ls_hash_version(luaseat *s)
{
    uint64_t h = aw_fnv64(AW_FNV64_INIT, s->source, s->source_len);
    for (int i = 0; i < s->nmods; i++) {
        h = aw_fnv64(h, s->mods[i].path, strlen(s->mods[i].path) + 1);
        h = aw_fnv64(h, s->mods[i].text, s->mods[i].len);
    }
    snprintf(s->version, sizeof s->version, "%016llx", (unsigned long long)h);
}

/* Hot reload: if the agent file or a module in its folder changed since they
 * were read, read them again and keep the new versions only if the agent
 * loads and returns a table in a throw-away sandbox; otherwise the old
 * version (kept in memory) plays on. The outcome goes to stderr. */
/* What was last said about each watched file: every seat that plays a file
 * reloads it, but the change is said once (seats run in one thread). */
static struct {
    char path[512];
    char said[900];
} reload_said[32];

/* The slot of path (a free one, or the first, when it has none). */
static int reload_slot(const char *path)
{
    for (int i = 0; i < 32; i++)
        if (strcmp(reload_said[i].path, path) == 0)
            return i;
    for (int i = 0; i < 32; i++)
        if (!reload_said[i].path[0])
            return i;
    return 0;
}

/* Says msg about path unless it is what was said last about it. */
static void say_reload(const char *path, const char *msg)
{
    int slot = reload_slot(path);
    if (strcmp(reload_said[slot].path, path) == 0 && strcmp(reload_said[slot].said, msg) == 0)
        return;
    snprintf(reload_said[slot].path, sizeof reload_said[slot].path, "%s", path);
    snprintf(reload_said[slot].said, sizeof reload_said[slot].said, "%s", msg);
    aw_term_fprintf(stderr, "%s", msg); /* a compile error quotes the agent's text: escaped */
    fputc('\n', stderr);
}

/* A fault's message with the agent's folder before the name of a module of
 * it that the message starts with ("helper.lua:2: ..." is DIR/helper.lua). */
static void module_fault_msg(const luaseat *s, const module_src *mods, int n, const char *msg, char *out, size_t size)
{
    size_t d = strlen(s->dir);
    for (int i = 0; i < n && strcmp(s->dir, ".") != 0; i++) {
        size_t k = strlen(mods[i].path);
        if (strncmp(msg, mods[i].path, k) == 0 && msg[k] == ':') {
            snprintf(out, size, "%s%s%s", s->dir, d && s->dir[d - 1] == '/' ? "" : "/", msg);
            return;
        }
    }
    snprintf(out, size, "%s", msg);
}

bool ls_maybe_reload(luaseat *s)
{
    if (ls_signature(s, NULL, NULL) == s->signature)
        return false;
    module_src *mods = NULL;
    int nmods = 0;
    uint64_t sig = ls_signature(s, &mods, &nmods);
    size_t len;
    char *src = aw_read_file(s->path, &len, NULL);
    s->signature = sig; /* a version that fails is not tried again until it changes */
    s->file_signature = ls_file_signature(s);
    if (!src) {
        ls_free_modules(mods, nmods);
        return false;
    }
    char *old = s->source;
    size_t old_len = s->source_len;
    module_src *old_mods = s->mods;
    int old_n = s->nmods;
    aw_buf old_code = s->code;
    aw_buf_init(&s->code);
    s->source = src;
    s->source_len = len;
    s->mods = mods;
    s->nmods = nmods;
    aw_fault fault = {AW_FAULT_NONE, "", 0, 0};
    int ref;
    aw_sandbox *sb = ls_open_agent(s, 0, s->opts.limits.budget_ms > 0 ? s->opts.limits.budget_ms : 1000, &ref, &fault);
    if (!sb) {
        s->source = old;
        s->source_len = old_len;
        s->mods = old_mods;
        s->nmods = old_n;
        aw_buf_free(&s->code);
        s->code = old_code;
        free(src);
        char why[600];
        module_fault_msg(s, mods, nmods, fault.msg, why, sizeof why);
        ls_free_modules(mods, nmods);
        char msg[900];
        snprintf(msg, sizeof msg, "aiwolf: %.200s changed but does not load, the previous version (%s) plays on: %.500s",
                 s->path, s->version, why);
        say_reload(s->path, msg);
        return false;
    }
    aw_sandbox_free(sb);
    free(old);
    ls_free_modules(old_mods, old_n);
    aw_buf_free(&old_code);
    char was[sizeof s->version];
    memcpy(was, s->version, sizeof was);
    ls_hash_version(s);
    char msg[700];
    if (strcmp(was, s->version) == 0) {
        /* Back to the version that plays (say, a broken edit undone). */
        snprintf(msg, sizeof msg, "aiwolf: %.200s loads again: version %s, the one playing", s->path, s->version);
        int slot = reload_slot(s->path);
        if (strcmp(reload_said[slot].path, s->path) == 0 && strstr(reload_said[slot].said, "does not load"))
            say_reload(s->path, msg);
        return false;
    }
    snprintf(msg, sizeof msg, "aiwolf: reloaded %.200s (version %s, was %s)", s->path, s->version, was);
    say_reload(s->path, msg);
    return true;
}

/* Mid-game reload: the new version's functions replace the old ones in the
 * agent's table; every other field — the agent's own state kept in self —
 * stays. Runs as a protected call. */
static int do_swap(lua_State *L)
{
    luaseat *s = lua_touserdata(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->agent_ref);
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->swap_ref);
    int old = lua_gettop(L) - 1, fresh = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, fresh)) {
        if (lua_type(L, -1) == LUA_TFUNCTION) {
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_rawset(L, old);
        } else {
            lua_pop(L, 1);
        }
    }
    return 0;
}

void ls_swap_live(luaseat *s)
{
    aw_fault fault = {AW_FAULT_NONE, "", 0, 0};
    s->sb_clean = false; /* the next game starts the new version in a new sandbox */
    if (load_agent_table(s, s->sb, &s->swap_ref, false, &fault) < 0) {
        fprintf(stderr, "aiwolf: %s: the new version does not load in the running game: %s\n", s->path,
                aw_term(fault.msg).s);
        return;
    }
    s->shape_known = 0; /* the agent's table changes */
    if (aw_sandbox_run(s->sb, do_swap, s, &fault) < 0)
        fprintf(stderr, "aiwolf: %s: swapping in the new version failed: %s\n", s->path, aw_term(fault.msg).s);
    aw_sandbox_unref(s->sb, s->swap_ref);
    s->swap_ref = LUA_NOREF;
    ls_flush_output(s);
}
