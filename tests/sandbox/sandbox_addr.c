/* sandbox_addr: what an agent sees of addresses depends only on what its own
 * sandbox did (docs/sandbox.md, "What an agent can read"):
 *  1. tostring, print and string.format's %s and %p show an object as the
 *     number the sandbox gave it when first shown, the same number for the
 *     object's life; __tostring and __name work as in Lua;
 *  2. two new sandboxes running the same script see the same tostring and
 *     %p results and the same pairs order over tables, functions and
 *     strings-free keys (tables keyed by tables and functions, which Lua
 *     hashes by address), whatever another sandbox and the host allocated
 *     and freed in between, and while the first one is still alive. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "sandbox.h"
#include "test.h"

static aw_sandbox *new_sb(void)
{
    aw_sandbox_limits lim;
    aw_error err;
    aw_sandbox_limits_default(&lim);
    lim.budget_ms = 5000;
    aw_sandbox *sb = aw_sandbox_new(&lim, &err);
    CHECK_MSG(sb != NULL, "aw_sandbox_new: %s", err.msg);
    if (!sb)
        exit(1);
    return sb;
}

/* Runs src in sb; returns its string result (malloc'd) or NULL. */
static char *eval_str(aw_sandbox *sb, const char *src)
{
    aw_fault f;
    char *r = NULL;
    if (aw_sandbox_load(sb, src, strlen(src), "=test", &f) == 0) {
        lua_State *L = aw_sandbox_state(sb);
        if (lua_type(L, -1) == LUA_TSTRING)
            r = strdup(lua_tostring(L, -1));
        CHECK_MSG(r != NULL, "%s: a %s", src, luaL_typename(L, -1));
        lua_pop(L, 1);
    } else {
        CHECK_MSG(0, "%s: %s: %s", src, aw_fault_kind_name(f.kind), f.msg);
    }
    return r;
}

/* The same thing in every sandbox: objects shown, and the order of pairs
 * over keys hashed by address (tables and functions, of small and large
 * sizes, some freed on the way). */
#define ORDER "table.concat(order, ',')"
static const char script[] =
    "local t, keys = {}, {}\n"
    "for i = 1, 300 do\n"
    "  local k\n"
    "  if i % 5 == 0 then k = function() return i end\n"
    "  elseif i % 7 == 0 then k = table.pack(string.byte(string.rep('x', 40), 1, 40))\n"
    "  else k = {i} end\n"
    "  keys[i] = k\n"
    "  if i % 3 ~= 0 then t[k] = i end\n"
    "end\n"
    "local order = {}\n"
    "for _, v in pairs(t) do order[#order + 1] = v end\n"
    "local a = {}\n"
    "print(a, keys[5])\n"
    "local named = setmetatable({}, {__name = 'Thing'})\n"
    "local own = setmetatable({}, {__tostring = function() return 'mine' end})\n"
    "return table.concat({tostring(a), tostring(a), string.format('%p|%5p|%-12p|%p|%s|%p', a, {}, print, 1, a, 'abc'),\n"
    "  tostring(named), tostring(own), tostring(coroutine.create(print)), tostring(keys[10]),\n"
    "  " ORDER "}, '\\n')\n";

/* Noise: tables, closures and long strings made, some freed, some kept. */
static const char noise[] =
    "keep = {}\n"
    "for i = 1, 5000 do\n"
    "  keep[i] = i % 7 == 0 and string.rep('y', 500 + i) or i % 3 == 0 and function() return i end or {i, i}\n"
    "end\n"
    "for i = 1, 5000, 4 do keep[i] = nil end\n"
    "return tostring({}) .. tostring({})\n";

/* Churn: a deterministic mix of large strings and tables, each checked
 * when it is replaced and at the end. */
static const char churn[] =
    "local keep, seed = {}, 7\n"
    "local function check(v)\n"
    "  if v.s then assert(#v.s == v.n and v.s:byte(1) == v.c and v.s:byte(-1) == v.c, 'string') end\n"
    "  if v.t then for i = 1, #v.t, 97 do assert(v.t[i] == i * v.c, 'table') end end\n"
    "end\n"
    "for round = 1, 1500 do\n"
    "  seed = (seed * 1103515245 + 12345) % 2147483648\n"
    "  local k = seed % 48 + 1\n"
    "  if keep[k] then check(keep[k]) end\n"
    "  local c = 65 + seed % 26\n"
    "  local n = seed % 7 == 0 and 600000 + seed % 1500000 or 520 + seed % 9000\n"
    "  if seed % 3 == 0 then\n"
    "    local t = {}\n"
    "    for i = 1, n // 64 do t[i] = i * c end\n"
    "    keep[k] = {t = t, c = c}\n"
    "  elseif seed % 5 == 0 then\n"
    "    keep[k] = nil\n"
    "  else\n"
    "    keep[k] = {s = string.rep(string.char(c), n), n = n, c = c}\n"
    "  end\n"
    "end\n"
    "for _, v in pairs(keep) do check(v) end\n"
    "return 'ok'\n";

int main(void)
{
    /* The first sandbox of a process compiles the maker of the agents'
     * environments (once per process, host code): it allocates more. */
    aw_sandbox_free(new_sb());
    aw_sandbox *a = new_sb();
    char *ra = eval_str(a, script);
    CHECK(ra != NULL);
    if (!ra)
        return test_done();
    /* 1. Numbers, not addresses, and Lua's forms otherwise. */
    const char *want = "table: 0x00000001\ntable: 0x00000001\n"
                       "0x00000001|0x00000003|0x00000004  |(null)|table: 0x00000001|0x00000005\n"
                       "Thing: 0x00000006\nmine\nthread: 0x00000007\nfunction: 0x00000008\n";
    CHECK_MSG(strncmp(ra, want, strlen(want)) == 0, "got\n%s", ra);
    size_t olen = 0;
    const char *out = aw_sandbox_output(a, &olen);
    CHECK_MSG(olen == strlen("table: 0x00000001\tfunction: 0x00000002\n") &&
                  memcmp(out, "table: 0x00000001\tfunction: 0x00000002\n", olen) == 0,
              "print wrote %.*s", (int)olen, out);

    /* 2. Another sandbox and the host allocate in between; a new sandbox
     * sees the same. One made before the noise, one after. */
    aw_sandbox *early = new_sb();
    aw_sandbox *b = new_sb();
    void *held[64];
    for (int i = 0; i < 64; i++)
        held[i] = malloc((size_t)(i * 97 % 1500) + 16);
    free(eval_str(b, noise));
    for (int i = 0; i < 64; i += 3)
        free(held[i]), held[i] = NULL;
    aw_sandbox *c = new_sb();
    char *rc = eval_str(c, script);
    char *re = eval_str(early, script);
    CHECK_MSG(rc && strcmp(ra, rc) == 0, "first\n%s\nafter noise\n%s", ra, rc ? rc : "(none)");
    CHECK_MSG(re && strcmp(ra, re) == 0, "first\n%s\nmade before the noise\n%s", ra, re ? re : "(none)");
    free(rc);
    free(re);
    /* And once the first sandboxes are gone. */
    aw_sandbox_free(a);
    aw_sandbox_free(b);
    free(eval_str(c, noise));
    aw_sandbox *d = new_sb();
    char *rd = eval_str(d, script);
    CHECK_MSG(rd && strcmp(ra, rd) == 0, "first\n%s\nafter the others were freed\n%s", ra, rd ? rd : "(none)");
    free(rd);
    /* 3. The allocator under churn (twice: the second run reuses what the
     * first freed). */
    for (int i = 0; i < 2; i++) {
        char *r = eval_str(d, churn);
        CHECK_MSG(r && strcmp(r, "ok") == 0, "churn: %s", r ? r : "(failed)");
        free(r);
    }
    aw_sandbox_free(c);
    aw_sandbox_free(d);
    aw_sandbox_free(early);
    for (int i = 0; i < 64; i++)
        free(held[i]);
    free(ra);
    return test_done();
}
