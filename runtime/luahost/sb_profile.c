/* sb_profile: where an agent's Lua runs (aw_sandbox_limits.profile). The
 * count hook that the budget already uses samples the running function
 * every SB_HOOK_COUNT VM instructions; each sample adds the instructions
 * since the last one to that function's count. Host memory only: nothing
 * of it is visible to the agent. Part of the sandbox (sandbox.h is the
 * contract). */
#include "sandbox_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Distinct functions kept per profile; the samples of any more go to one
 * "other" entry (an agent that makes functions without end, with load in
 * a loop, cannot make the host's table grow without end). */
#define PROFILE_MAX 4096

typedef struct profile_entry {
    char *where; /* "file:line" of the function's definition */
    char *name;  /* the first name it was called by, or "" */
    uint64_t count;
    uint64_t hash;
} profile_entry;

struct aw_profile {
    profile_entry *e; /* open addressing, cap a power of two */
    size_t n, cap;
    uint64_t total, other;
    /* the library's instructions again, by the agent's line that called
     * into the library (made on the first such sample; not in total) */
    struct aw_profile *callers;
};

aw_profile *aw_profile_new(void)
{
    return aw_xcalloc(1, sizeof(aw_profile));
}

void aw_profile_free(aw_profile *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->cap; i++) {
        free(p->e[i].where);
        free(p->e[i].name);
    }
    free(p->e);
    aw_profile_free(p->callers);
    free(p);
}

static void grow(aw_profile *p)
{
    size_t cap = p->cap ? p->cap * 2 : 64;
    profile_entry *e = aw_xcalloc(cap, sizeof *e);
    for (size_t i = 0; i < p->cap; i++) {
        if (!p->e[i].where)
            continue;
        size_t j = p->e[i].hash & (cap - 1);
        while (e[j].where)
            j = (j + 1) & (cap - 1);
        e[j] = p->e[i];
    }
    free(p->e);
    p->e = e;
    p->cap = cap;
}

void aw_profile_add(aw_profile *p, const char *where, const char *name, uint64_t count)
{
    p->total += count;
    uint64_t h = aw_fnv64(AW_FNV64_INIT, where, strlen(where));
    if (p->cap) {
        for (size_t j = h & (p->cap - 1); p->e[j].where; j = (j + 1) & (p->cap - 1))
            if (p->e[j].hash == h && strcmp(p->e[j].where, where) == 0) {
                p->e[j].count += count;
                if (!p->e[j].name[0] && name && name[0]) {
                    free(p->e[j].name);
                    p->e[j].name = aw_xstrdup(name);
                }
                return;
            }
    }
    if (p->n >= PROFILE_MAX) {
        p->other += count;
        return;
    }
    if ((p->n + 1) * 2 > p->cap)
        grow(p);
    size_t j = h & (p->cap - 1);
    while (p->e[j].where)
        j = (j + 1) & (p->cap - 1);
    p->e[j].where = aw_xstrdup(where);
    p->e[j].name = aw_xstrdup(name ? name : "");
    p->e[j].count = count;
    p->e[j].hash = h;
    p->n++;
}

uint64_t aw_profile_total(const aw_profile *p)
{
    return p->total;
}

void aw_profile_each(const aw_profile *p, aw_profile_fn fn, void *ud)
{
    for (size_t i = 0; i < p->cap; i++)
        if (p->e[i].where)
            fn(ud, p->e[i].where, p->e[i].name, p->e[i].count);
    if (p->other)
        fn(ud, "(functions past the first 4096)", "", p->other);
}

void aw_profile_add_caller(aw_profile *p, const char *line, const char *callee, uint64_t count)
{
    if (!p->callers)
        p->callers = aw_profile_new();
    aw_profile_add(p->callers, line, callee, count);
}

void aw_profile_each_caller(const aw_profile *p, aw_profile_fn fn, void *ud)
{
    if (p->callers)
        aw_profile_each(p->callers, fn, ud);
}

uint64_t aw_profile_callers_total(const aw_profile *p)
{
    return p->callers ? p->callers->total : 0;
}

void aw_profile_merge(aw_profile *into, const aw_profile *from)
{
    if (from->callers) {
        if (!into->callers)
            into->callers = aw_profile_new();
        aw_profile_merge(into->callers, from->callers);
    }
    for (size_t i = 0; i < from->cap; i++)
        if (from->e[i].where)
            aw_profile_add(into, from->e[i].where, from->e[i].name, from->e[i].count);
    into->total += from->other;
    into->other += from->other;
}

/* The project's library (require "aiwolf.agent", "aiwolf.protocol"): its
 * chunks are named after their place in the binary, lua/aiwolf/... */
static int in_library(const char *short_src)
{
    return strncmp(short_src, "lua/aiwolf/", 11) == 0;
}

/* A sample in the library: the same instructions again, charged to the
 * line of the agent's own code that called into the library (the nearest
 * frame up the stack outside it), with the library function it called
 * (the outermost library frame below that line). */
static void charge_caller(aw_sandbox *sb, lua_State *L, uint64_t count)
{
    lua_Debug ar;
    char callee[LUA_IDSIZE + 96] = "";
    for (int level = 0; lua_getstack(L, level, &ar); level++) {
        if (!lua_getinfo(L, "Sln", &ar))
            break;
        if (ar.what[0] == 'C')
            continue;
        if (in_library(ar.short_src)) {
            /* line 0: the module's main chunk (what require runs), as in
             * the table of functions */
            if (ar.linedefined <= 0)
                snprintf(callee, sizeof callee, "%s (main chunk)", ar.short_src);
            else if (ar.name && strcmp(ar.name, "?") != 0)
                snprintf(callee, sizeof callee, "%s (%s:%d)", ar.name, ar.short_src, ar.linedefined);
            else
                snprintf(callee, sizeof callee, "%s:%d", ar.short_src, ar.linedefined);
            continue;
        }
        char line[LUA_IDSIZE + 24];
        snprintf(line, sizeof line, "%s:%d", ar.short_src, ar.currentline);
        aw_profile_add_caller(sb->lim.profile, line, callee, count);
        return;
    }
    aw_profile_add_caller(sb->lim.profile, "(no line of the agent: the host called the method it inherits)", callee,
                          count);
}

/* From the count hook, inside a call: the running function gets the
 * instructions since the hook last fired. */
void sb_profile_sample(aw_sandbox *sb, lua_State *L)
{
    lua_Debug ar;
    if (!lua_getstack(L, 0, &ar) || !lua_getinfo(L, "Sn", &ar))
        return;
    /* The host's own Lua (a game's environment made as a renewal begins)
     * is not the agent's: its samples are left out. */
    if (strcmp(ar.source, SB_MAKER_NAME) == 0)
        return;
    char where[LUA_IDSIZE + 24];
    if (ar.linedefined > 0)
        snprintf(where, sizeof where, "%s:%d", ar.short_src, ar.linedefined);
    else
        snprintf(where, sizeof where, "%s (main chunk)", ar.short_src);
    /* "?": called in a way that names nothing (self[k](...), a metamethod) */
    const char *name = ar.name && strcmp(ar.name, "?") != 0 ? ar.name : NULL;
    aw_profile_add(sb->lim.profile, where, name, (uint64_t)lua_gethookcount(L));
    if (in_library(ar.short_src))
        charge_caller(sb, L, (uint64_t)lua_gethookcount(L));
}
