/* sandbox_basic: what benign agents and the host rely on. The string and
 * table functions the sandbox reimplements, and its instrumented LPeg, give
 * the same answers as stock Lua and LPeg (tests/sandbox/differential.lua and
 * lpeg_differential.lua run in both); heavy but legal work
 * (string building, LPeg parsing, coroutines, big tables, pcall) runs
 * untouched; require serves LPeg, host preloads and module_dir files only;
 * print is bounded; math.random follows the seed; one sandbox's memory
 * fault leaves another its full cap; host-side reply checks never run
 * agent code; each call gets a fresh budget. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua-lpeg.h>
#include <lualib.h>

#include "sandbox.h"
#include "test.h"
#include "test_load.h"

static aw_sandbox *new_sb(int budget_ms, size_t cap, uint64_t seed, const char *module_dir)
{
    aw_sandbox_limits lim;
    aw_error err;
    aw_sandbox_limits_default(&lim);
    lim.budget_ms = budget_ms;
    if (cap)
        lim.memory_bytes = cap;
    lim.seed = seed;
    lim.module_dir = module_dir;
    lim.output_bytes = 256;
    aw_sandbox *sb = aw_sandbox_new(&lim, &err);
    CHECK_MSG(sb != NULL, "aw_sandbox_new: %s", err.msg);
    return sb;
}

/* Loads src; returns its first result as a malloc'd string (or NULL) and the fault. */
static char *eval(aw_sandbox *sb, const char *src, aw_fault *f)
{
    char *r = NULL;
    if (aw_sandbox_load(sb, src, strlen(src), "=test", f) == 0) {
        lua_State *L = aw_sandbox_state(sb);
        size_t n;
        const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &n) : NULL;
        r = s ? strndup(s, n) : strdup(lua_type(L, -1) == LUA_TNIL ? "nil" : luaL_typename(L, -1));
        lua_pop(L, 1);
    }
    return r;
}

static void expect_eval(aw_sandbox *sb, const char *src, const char *want)
{
    aw_fault f;
    char *got = eval(sb, src, &f);
    CHECK_MSG(got && !strcmp(got, want), "%s\n  got %s (%s: %s)\n  want %s", src, got ? got : "(fault)",
              aw_fault_kind_name(f.kind), f.msg, want);
    free(got);
}

static void test_differential(const char *file, int min_lines)
{
    size_t len;
    aw_error err;
    char *src = aw_read_file(file, &len, &err);
    CHECK_MSG(src != NULL, "%s", err.msg);
    if (!src)
        return;
    lua_State *stock = luaL_newstate();
    luaL_openlibs(stock);
    luaL_requiref(stock, "lpeg", luaopen_lpeg, 0);
    lua_pop(stock, 1);
    CHECK(luaL_loadbufferx(stock, src, len, "=differential", "t") == LUA_OK && lua_pcall(stock, 0, 1, 0) == LUA_OK);
    const char *want = lua_tostring(stock, -1);
    aw_sandbox *sb = new_sb(5000, 0, 0, NULL);
    aw_fault f;
    char *got = eval(sb, src, &f);
    CHECK_MSG(got != NULL, "differential in sandbox: %s", f.msg);
    if (got && want) {
        /* Compare line by line to report the first difference readably. */
        const char *a = got, *b = want;
        int line = 1, diffs = 0;
        while (*a || *b) {
            const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
            size_t la = ea ? (size_t)(ea - a) : strlen(a), lb = eb ? (size_t)(eb - b) : strlen(b);
            if ((la != lb || memcmp(a, b, la)) && diffs++ < 10)
                fprintf(stderr, "differential line %d:\n  sandbox %.*s\n  stock   %.*s\n", line, (int)la, a, (int)lb, b);
            a += la + (ea ? 1 : 0);
            b += lb + (eb ? 1 : 0);
            line++;
        }
        CHECK_INT(diffs, 0);
        CHECK_MSG(line > min_lines, "%s: %d lines", file, line);
    }
    free(got);
    aw_sandbox_free(sb);
    lua_close(stock);
    free(src);
}

static void test_benign_heavy(void)
{
    aw_sandbox *sb = new_sb(2000, 0, 0, NULL);
    aw_fault f;
    /* Each is legal and finishes far within a 2 s budget (well under 100 ms on
     * a normal build); none may fault. */
    static const char *const work[] = {
        "local t = {} for i = 1, 100000 do t[#t + 1] = tostring(i) end local s = table.concat(t, ',')"
        " assert(#s == 588894) return 'ok'",
        "local s = '' for i = 1, 2000 do s = s .. 'x' end return #s == 2000 and 'ok'",
        "local t = {} for i = 1, 200000 do t[i] = { id = i } end return #t == 200000 and 'ok'",
        "local lpeg = require 'lpeg' local P, R, S, C, Ct = lpeg.P, lpeg.R, lpeg.S, lpeg.C, lpeg.Ct"
        " local sp = S' '^0 local word = C(R('AZ', 'az', '09', '[]')^1)"
        " local g = Ct(sp * word * (S' '^1 * word)^0 * sp * -1)"
        " local n = 0 for i = 1, 2000 do n = n + #g:match('VOTE Agent[01] because SEER said so') end"
        " local json = P{ 'V', V = sp * (lpeg.V'O' + lpeg.V'A' + lpeg.V'N'), N = R'09'^1,"
        "   A = '[' * lpeg.V'V' * (',' * lpeg.V'V')^0 * sp * ']', O = '{' * sp * '}' }"
        " assert(json:match('[1, [2, 3], {}, [[4]]]'))"
        " return n == 12000 and 'ok'",
        "local co = coroutine.wrap(function() for i = 1, 50000 do coroutine.yield(i) end end)"
        " local s = 0 for i = 1, 50000 do s = s + co() end return s == 1250025000 and 'ok'",
        "local n = 0 for i = 1, 20000 do local ok, e = pcall(error, { code = i }) n = n + e.code end"
        " local ok, e = xpcall(function() error('boom') end, function(m) return 'handled: ' .. m end)"
        " assert(e:find('handled: .*boom')) return n == 200010000 and 'ok'",
        "local co = coroutine.create(function() local ok, v = pcall(coroutine.yield, 1) return v * 2 end)"
        " local _, a = coroutine.resume(co) local _, b = coroutine.resume(co, 21)"
        " return (a == 1 and b == 42 and coroutine.status(co) == 'dead') and 'ok'",
        "local w = coroutine.wrap(function() error('inner') end) local ok, e = pcall(w)"
        " return (not ok and e:find('inner')) and 'ok'",
        "local co = coroutine.create(function() local x <close> = setmetatable({}, { __close = function() _G.closed = true end })"
        " coroutine.yield() end) coroutine.resume(co) assert(coroutine.close(co) and closed)"
        " assert(not coroutine.resume(co)) return 'ok'",
        "local words = {} for w in string.rep('alpha beta gamma ', 20000):gmatch('%a+') do words[#words + 1] = w end"
        " local s = string.rep('x', 1e6):gsub('x', 'y') return (#words == 60000 and #s == 1e6) and 'ok'",
        "local t = {} for i = 1, 50000 do t[i] = (i * 7919) % 50021 end table.sort(t) return t[1] < t[2] and 'ok'",
        /* inconsistent comparators end (sorted or not, or with an error) */
        "local t = {} for i = 1, 3000 do t[i] = i % 17 end pcall(table.sort, t, function() return true end)"
        " pcall(table.sort, t, function(a, b) return math.random() < 0.5 end) return 'ok'",
        /* a reader function whose pieces are collected while the chunk name is in use */
        "local parts, i = { 'return ', '1 ', '+ ', '41' }, 0"
        " local f = load(function() i = i + 1 collectgarbage('count') local t = {} for k = 1, 2000 do t[k] = {} end"
        " return parts[i] end, string.rep('n', 50) .. tostring(os.time())) assert(f() == 42)"
        " local f = load('return 1 + ...') assert(f(41) == 42) local g = load('x = 1', 'c', 't', {}) g()"
        " assert(x == nil) return 'ok'",
    };
    for (size_t i = 0; i < sizeof work / sizeof *work; i++) {
        char *r = eval(sb, work[i], &f);
        CHECK_MSG(r && !strcmp(r, "ok"), "benign #%zu: %s (%s: %s, %.1f ms)", i, r ? r : "(fault)",
                  aw_fault_kind_name(f.kind), f.msg, (double)f.elapsed_ns / 1e6);
        free(r);
    }
    aw_sandbox_free(sb);
}

static int open_hostmod(lua_State *L)
{
    lua_newtable(L);
    lua_pushinteger(L, 7);
    lua_setfield(L, -2, "seven");
    return 1;
}

static void test_require(void)
{
    aw_error err;
    aw_sandbox *sb = new_sb(1000, 0, 0, "tests/sandbox/modules");
    CHECK_INT(aw_sandbox_preload(sb, "hostmod", open_hostmod, &err), 0);
    expect_eval(sb, "return tostring(require('hostmod').seven)", "7");
    expect_eval(sb, "return require('greet').hello('wolf') .. ' ' .. require('greet').name", "hello wolf greet");
    expect_eval(sb, "return tostring(require('sub.inner').answer)", "42");
    expect_eval(sb, "return tostring(require('greet') == require('greet'))", "true");
    expect_eval(sb, "package.preload.mine = function() return 'mine' end return require('mine')", "mine");
    expect_eval(sb, "return tostring(pcall(require, '..greet'))", "false");
    expect_eval(sb, "return tostring(pcall(require, 'sub/inner'))", "false");
    expect_eval(sb, "return tostring(pcall(require, 'nosuch'))", "false");
    expect_eval(sb, "return tostring(pcall(require, 'string') and require('string') == string)", "true");
    aw_sandbox_free(sb);
    /* Without a module folder, files are never read. */
    sb = new_sb(1000, 0, 0, NULL);
    expect_eval(sb, "return tostring(pcall(require, 'greet'))", "false");
    aw_sandbox_free(sb);
}

static void test_print_and_output(void)
{
    aw_sandbox *sb = new_sb(1000, 0, 0, NULL);
    aw_fault f;
    free(eval(sb, "print('a', 1, nil, true) print()", &f));
    size_t n;
    const char *o = aw_sandbox_output(sb, &n);
    CHECK_STR(o, "a\t1\tnil\ttrue\n\n");
    free(eval(sb, "for i = 1, 100 do print(string.rep('x', 50)) end", &f));
    o = aw_sandbox_output(sb, &n);
    CHECK_INT(n, 256);
    CHECK(aw_sandbox_output_dropped(sb) > 4000);
    aw_sandbox_clear_output(sb);
    aw_sandbox_output(sb, &n);
    CHECK_INT(n, 0);
    CHECK_INT(aw_sandbox_output_dropped(sb), 0);
    aw_sandbox_free(sb);
}

static void test_seed(void)
{
    const char *src = "local t = {} for i = 1, 5 do t[i] = math.random(1000000) end return table.concat(t, ',')";
    aw_sandbox *a = new_sb(1000, 0, 42, NULL), *b = new_sb(1000, 0, 42, NULL), *c = new_sb(1000, 0, 43, NULL);
    aw_fault f;
    char *ra = eval(a, src, &f), *rb = eval(b, src, &f), *rc = eval(c, src, &f);
    CHECK(ra && rb && rc);
    if (ra && rb && rc) {
        CHECK_STR(ra, rb);
        CHECK(strcmp(ra, rc) != 0);
    }
    /* math.randomseed() without arguments reseeds from the game's seed, not the clock. */
    char *r1 = eval(a, "math.randomseed() return tostring(math.random(1 << 40))", &f);
    char *r2 = eval(b, "math.randomseed() return tostring(math.random(1 << 40))", &f);
    CHECK(r1 && r2 && !strcmp(r1, r2));
    free(r1);
    free(r2);
    free(ra);
    free(rb);
    free(rc);
    aw_sandbox_free(a);
    aw_sandbox_free(b);
    aw_sandbox_free(c);
}

static void test_isolation(void)
{
    aw_sandbox *a = new_sb(1000, 0, 0, NULL), *b = new_sb(1000, 0, 0, NULL);
    aw_fault f;
    free(eval(a, "string.find = nil string.upper = function() return 'pwned' end"
                 " table.insert = nil _G.shared = 1 math.pi = 3", &f));
    expect_eval(a, "return ('x'):upper()", "pwned"); /* an agent may break itself */
    expect_eval(b, "return ('x'):upper() .. tostring(string.find ~= nil) .. tostring(shared) .. tostring(math.pi > 3.1)",
                "Xtruenil" "true");
    aw_sandbox_free(a);
    aw_sandbox_free(b);
}

static void test_memory(void)
{
    size_t cap = (size_t)8 << 20;
    aw_sandbox *a = new_sb(2000, cap, 0, NULL), *b = new_sb(2000, cap, 0, NULL);
    aw_fault f;
    CHECK(aw_sandbox_memory(a) < ((size_t)2 << 20)); /* an idle sandbox */
    char *r = eval(a, "_G.keep = {} for i = 1, 1e9 do keep[i] = i end", &f);
    CHECK(r == NULL && f.kind == AW_FAULT_MEMORY);
    free(r);
    CHECK(aw_sandbox_memory(a) <= cap && aw_sandbox_memory_peak(a) <= cap);
    /* b still has its whole cap: a 3 MiB string (built in a 3 MiB buffer). */
    expect_eval(b, "return tostring(#string.rep('x', 3 << 20))", "3145728");
    /* a recovers once it lets go. */
    expect_eval(a, "keep = nil return 'ok'", "ok");
    expect_eval(a, "return tostring(#string.rep('x', 3 << 20))", "3145728");
    aw_sandbox_free(a);
    aw_sandbox_free(b);
}

/* The Lua stack and call records are the agent's memory: a recursion that
 * would overflow Lua's million-slot stack (16 MiB) under an 8 MiB cap ends
 * in a memory error, never past the cap; with 64 MiB it reaches Lua's own
 * "stack overflow", and the peak shows the stack was counted. Protected
 * calls nest as in stock Lua on a shallow stack, but not on top of a deep
 * one (sandbox.c, SB_NEST_DEPTH). */
static void test_stack_memory(void)
{
    size_t small = (size_t)8 << 20, big = (size_t)64 << 20;
    aw_sandbox *a = new_sb(5000, small, 0, NULL), *b = new_sb(5000, big, 0, NULL);
    const char *src = "local function f() local a, b, c, d, e, g, h, i = 1 return 1 + f() end "
                      "local ok, e = pcall(f) return tostring(e)";
    expect_eval(a, src, "not enough memory");
    CHECK(aw_sandbox_memory_peak(a) <= small && aw_sandbox_memory_peak(a) > small / 2);
    expect_eval(b, src, "test:1: stack overflow");
    CHECK_MSG(aw_sandbox_memory_peak(b) > ((size_t)16 << 20) && aw_sandbox_memory_peak(b) <= big, "peak %zu",
              aw_sandbox_memory_peak(b));
    expect_eval(b, "local function n(k) if k == 0 then return 'ok' end return select(2, pcall(n, k - 1)) end "
                   "return n(150)",
                "ok");
    expect_eval(b, "local function n(k) if k == 0 then return select(2, pcall(error, 'inner')) end "
                   "local r = n(k - 1) return r end return select(2, pcall(n, 3000))",
                "stack overflow (a protected call nested in another, more than 2000 calls deep)");
    expect_eval(b, "local function n(k) if k == 0 then return select(2, pcall(error, 'inner')) end "
                   "local r = n(k - 1) return r end return select(2, pcall(n, 1000))",
                "inner");
    expect_eval(b, "local function n(k) if k == 0 then return select(2, pcall(error, 'inner')) end "
                   "local r = n(k - 1) return r end return n(3000)",
                "inner"); /* not nested: any depth */
    aw_sandbox_free(a);
    aw_sandbox_free(b);
}

/* Source that Lua's parser is slow on without being quadratic in a way
 * the scan refuses: `levels` nested functions with 190 locals each, then
 * `refs` references to a global, each looked up through every level (some
 * 3 s for 60 levels and 200 000 references on the development machine). */
static char *nested_names_source(int levels, int refs)
{
    aw_buf b;
    aw_buf_init(&b);
    for (int i = 0; i < levels; i++) {
        aw_buf_add(&b, "local ", 6);
        for (int j = 0; j < 190; j++) {
            char v[32];
            int n = snprintf(v, sizeof v, "%sl%d_%d", j ? "," : "", i, j);
            aw_buf_add(&b, v, (size_t)n);
        }
        aw_buf_add(&b, " return function() ", 19);
    }
    aw_buf_add(&b, "x=", 2);
    for (int i = 0; i < refs; i++)
        aw_buf_add(&b, "x+", 2);
    aw_buf_add(&b, "x ", 2);
    for (int i = 0; i < levels; i++)
        aw_buf_add(&b, "end ", 4);
    aw_buf_add(&b, "", 1);
    return b.data;
}

static char *repeat_source(const char *head, const char *unit, int n, const char *tail)
{
    aw_buf b;
    aw_buf_init(&b);
    aw_buf_add(&b, head, strlen(head));
    for (int i = 0; i < n; i++)
        aw_buf_add(&b, unit, strlen(unit));
    aw_buf_add(&b, tail, strlen(tail) + 1);
    return b.data;
}

static int write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f);
}

/* The parser's quadratic shapes are refused before parsing (all three
 * paths: the host's load, the agent's load, a module), and its slow linear
 * part is stopped at the budget by the piecewise reader, not by the last
 * resort (which would kill the agent). */
static void test_parse_limits(void)
{
    aw_sandbox *sb = new_sb(100, 0, 0, NULL);
    aw_fault f;
    char *gotos = repeat_source("do ", "goto l ", 32000, "::l:: end");
    int rc = aw_sandbox_load(sb, gotos, strlen(gotos), "=gotos", &f);
    CHECK_MSG(rc < 0 && f.kind == AW_FAULT_ERROR && strstr(f.msg, "gotos:1: function with too many gotos") &&
                  f.elapsed_ns < 50000000u,
              "gotos: %s %.1f ms", f.msg, (double)f.elapsed_ns / 1e6);
    char *ors = repeat_source("return ", "a or ", 80000, "a");
    rc = aw_sandbox_load(sb, ors, strlen(ors), "=ors", &f);
    CHECK_MSG(rc < 0 && f.kind == AW_FAULT_ERROR && strstr(f.msg, "too many 'and'/'or'"), "ors: %s", f.msg);
    char *elifs = repeat_source("if a then ", "elseif a then ", 40000, "end");
    rc = aw_sandbox_load(sb, elifs, strlen(elifs), "=elifs", &f);
    CHECK_MSG(rc < 0 && f.kind == AW_FAULT_ERROR && strstr(f.msg, "too many 'elseif'"), "elifs: %s", f.msg);
    /* Below the caps, the same shapes parse as in stock Lua. */
    expect_eval(sb, "local f = load('return ' .. ('a or '):rep(100) .. '7') return tostring(f())", "7");
    expect_eval(sb, "local s = 'local n = 0 while true do n = n + 1 ' .. ('if n > 50 then break end '):rep(60)"
                    " .. 'end return n' return tostring(load(s)())", "51");
    expect_eval(sb, "return select(2, load(('do ' .. ('goto l '):rep(32000) .. '::l:: end '):rep(4)))",
                "[string \"do goto l goto l goto l goto l goto l goto l goto l goto l g\"]:1: "
                "function with too many gotos, breaks and labels");
    /* The slow linear part: the host's load of the agent's source. */
    char *names = nested_names_source(60, 200000);
    rc = aw_sandbox_load(sb, names, strlen(names), "=names", &f);
    double ms = (double)f.elapsed_ns / 1e6;
    CHECK_MSG(rc < 0 && f.kind == AW_FAULT_TIMEOUT && !strstr(f.msg, "killed") && test_stopped_in_time(&f, 100),
              "names: %s %.1f ms", f.msg, ms);
    expect_eval(sb, "return 'alive'", "alive");
    aw_sandbox_free(sb);
    /* The same through a module of the agent's folder. */
    char dir[] = "/tmp/aw_parse_XXXXXX", path[64];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/slow.lua", dir);
    CHECK(write_file(path, names) == 0);
    snprintf(path, sizeof path, "%s/gotos.lua", dir);
    CHECK(write_file(path, gotos) == 0);
    sb = new_sb(100, 0, 0, dir);
    expect_eval(sb, "return select(2, pcall(require, 'gotos'))",
                "gotos.lua:1: function with too many gotos, breaks and labels");
    char *r = eval(sb, "require 'slow'", &f);
    ms = (double)f.elapsed_ns / 1e6;
    CHECK_MSG(r == NULL && f.kind == AW_FAULT_TIMEOUT && !strstr(f.msg, "killed") && test_stopped_in_time(&f, 100),
              "module: %s %.1f ms", f.msg, ms);
    free(r);
    aw_sandbox_free(sb);
    snprintf(path, sizeof path, "%s/slow.lua", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/gotos.lua", dir);
    unlink(path);
    rmdir(dir);
    free(gotos);
    free(ors);
    free(elifs);
    free(names);
}

static int reply_reader(lua_State *L)
{
    aw_fault *out = lua_touserdata(L, 1);
    const char *s;
    size_t n;
    lua_Integer v;
    lua_getglobal(L, "reply");
    lua_call(L, 0, 2);
    if (aw_sandbox_check_integer(L, -1, 1, 15, &v, out) < 0)
        return aw_sandbox_reply_error(L, "target: %s", out->msg);
    if (aw_sandbox_check_string(L, -2, 100, &s, &n, out) < 0)
        return aw_sandbox_reply_error(L, "talk: %s", out->msg);
    return 0;
}

static void test_replies(void)
{
    aw_sandbox *sb = new_sb(50, 0, 0, NULL);
    aw_fault f, inner;
    static const struct {
        const char *def;
        aw_fault_kind kind;
    } cases[] = {
        {"function reply() return 'VOTE Agent[03]', 3 end", AW_FAULT_NONE},
        {"function reply() return 'VOTE Agent[03]', 3.0 end", AW_FAULT_NONE},
        {"function reply() return 'VOTE', '3' end", AW_FAULT_REPLY},
        {"function reply() return 'VOTE', 16 end", AW_FAULT_REPLY},
        {"function reply() return 'two\\nlines', 3 end", AW_FAULT_REPLY},
        {"function reply() return string.rep('x', 101), 3 end", AW_FAULT_REPLY},
        {"local evil = setmetatable({}, { __tostring = function() while true do end end,"
         " __len = function() while true do end end, __index = function() while true do end end })"
         " function reply() return evil, 3 end", AW_FAULT_REPLY},
        {"function reply() return 12, 3 end", AW_FAULT_REPLY},
        {"function reply() error(setmetatable({}, { __tostring = function() while true do end end })) end",
         AW_FAULT_ERROR},
        {"function reply() while true do end end", AW_FAULT_TIMEOUT},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        free(eval(sb, cases[i].def, &f));
        aw_sandbox_run(sb, reply_reader, &inner, &f);
        CHECK_MSG(f.kind == cases[i].kind, "reply case %zu: got %s (%s)", i, aw_fault_kind_name(f.kind), f.msg);
        CHECK_MSG(test_stopped_in_time(&f, 50), "reply case %zu: %.1f ms of CPU", i, f.elapsed_ns / 1e6);
        CHECK_INT(lua_gettop(aw_sandbox_state(sb)), 0);
    }
    aw_sandbox_free(sb);
}

static void test_load_and_budget(void)
{
    aw_sandbox *sb = new_sb(200, 0, 0, NULL);
    aw_fault f;
    char *r = eval(sb, "return (", &f);
    CHECK(r == NULL && f.kind == AW_FAULT_ERROR && strstr(f.msg, "test:1:"));
    r = eval(sb, "\x1bLua\x54\x00", &f);
    CHECK(r == NULL && f.kind == AW_FAULT_ERROR);
    expect_eval(sb, "local x = 1", "nil");
    /* A time-out does not eat into the next call's budget. */
    r = eval(sb, "while true do end", &f);
    CHECK(r == NULL && f.kind == AW_FAULT_TIMEOUT);
    expect_eval(sb, "local t = os.clock() while os.clock() - t < 0.05 do end return 'ok'", "ok");
    /* A timed-out call's state is usable. */
    expect_eval(sb, "return tostring(1 + 1)", "2");
    aw_sandbox_free(sb);
}

/* A forked child (a contest worker) still stops loops by the budget (and
 * promptly where test_stopped_in_time can tell): the watchdog timer is per
 * process and is recreated there. */
static void test_fork(void)
{
    aw_sandbox *sb = new_sb(50, 0, 0, NULL);
    aw_fault f;
    free(eval(sb, "while true do end", &f)); /* creates this thread's timer in the parent */
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        char *r = eval(sb, "local s = string.rep('x', 12e6) .. 'a' local t = s .. 'b' while true do local c = s < t end", &f);
        _exit(r == NULL && f.kind == AW_FAULT_TIMEOUT && (f.elapsed_ns >= 50000000u || test_cut_by_load(&f, 50)) &&
                      test_stopped_in_time(&f, 50)
                  ? 0
                  : 1);
    }
    int st = 0;
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
    CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %d", st);
    aw_sandbox_free(sb);
}

/* What an agent can name: every global and every field of every library,
 * exactly (sandbox.c's allow list keeps these and no others). */
static void test_environment(void)
{
    aw_sandbox_limits lim;
    aw_sandbox_limits_default(&lim);
    aw_error err;
    aw_sandbox *sb = aw_sandbox_new(&lim, &err);
    CHECK(sb != NULL);
    if (!sb)
        return;
    expect_eval(sb,
                "local out = {}\n"
                "for k, v in pairs(_G) do\n"
                "  if type(v) == 'table' and v ~= _G then\n"
                "    for f in pairs(v) do out[#out + 1] = k .. '.' .. f end\n"
                "  else out[#out + 1] = k end\n"
                "end\n"
                "table.sort(out) return table.concat(out, ' ')",
                "_G _VERSION assert collectgarbage coroutine.close coroutine.create "
                "coroutine.isyieldable coroutine.resume coroutine.running coroutine.status "
                "coroutine.wrap coroutine.yield error getmetatable ipairs load math.abs math.acos "
                "math.asin math.atan math.atan2 math.ceil math.cos math.cosh math.deg math.exp "
                "math.floor math.fmod math.frexp math.huge math.ldexp math.log math.log10 math.max "
                "math.maxinteger math.min math.mininteger math.modf math.pi math.pow math.rad "
                "math.random math.randomseed math.sin math.sinh math.sqrt math.tan math.tanh "
                "math.tointeger math.type math.ult next os.clock os.date os.difftime os.time "
                "package.loaded package.preload pairs pcall print rawequal rawget rawlen rawset "
                "require select setmetatable string.byte string.char string.find string.format "
                "string.gmatch string.gsub string.len string.lower string.match string.pack "
                "string.packsize string.rep string.reverse string.sub string.unpack string.upper "
                "table.concat table.insert table.move table.pack table.remove table.sort table.unpack "
                "tonumber tostring type utf8.char utf8.charpattern utf8.codepoint utf8.codes utf8.len "
                "utf8.offset xpcall");
    aw_sandbox_free(sb);
}

int main(void)
{
    test_differential("tests/sandbox/differential.lua", 1000);
    test_differential("tests/sandbox/lpeg_differential.lua", 14);
    test_benign_heavy();
    test_require();
    test_print_and_output();
    test_seed();
    test_isolation();
    test_memory();
    test_stack_memory();
    test_replies();
    test_load_and_budget();
    test_parse_limits();
    test_fork();
    test_environment();
    return test_done();
}
