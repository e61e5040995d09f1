/* sandbox_bench: what the sandbox costs. Runs one Lua microbenchmark (calls,
 * arithmetic, table and string work) in a stock lua_State (luaL_newstate,
 * no hook, libc allocator) and in a sandbox (count hook, accounting
 * allocator, watchdog, our string/table functions), and reports the
 * overhead; then the memory of an idle sandbox (with and without LPeg
 * loaded), the time to create one, and the fixed cost of one protected call;
 * then how soon the watchdog stops an endless loop past its budget, in CPU
 * time, against the bound docs/sandbox.md promises (2x the budget + 200 ms):
 * a figure of how the machine schedules the watchdog, so measured here and
 * not required by the tests (tests/sandbox/sandbox_watch.c).
 *   build/bench/sandbox_bench [rounds]
 *   build/bench/sandbox_bench --calls N [--unguarded]   N empty calls and
 *     nothing else: under callgrind, (count at N2 - count at N1) / (N2 -
 *     N1) is the wrapper's instructions per call (bench/README.md);
 *     --unguarded: of a plain lua_pcall (no budget, no watchdog), Lua's
 *     own part
 * Uses sandbox, Lua. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "sandbox.h"

/* Two workloads: plain VM work (calls, arithmetic, tables, concatenation:
 * what the hook and the allocator cost) and library work (patterns, sort,
 * table functions: what our own implementations cost against stock C). */
static const char vm_src[] =
    "local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end\n"
    "local x = fib(27)\n"
    "local t = {}\n"
    "for i = 1, 300000 do t[i] = { i, i * 2 } end\n"
    "local s = 0\n"
    "for i, v in ipairs(t) do s = s + v[2] end\n"
    "local str = ''\n"
    "for i = 1, 3000 do str = str .. 'x' end\n"
    "return x + s + #str\n";

static const char lib_src[] =
    "local parts = {}\n"
    "for i = 1, 20000 do parts[#parts + 1] = ('%d:%s'):format(i, 'x') end\n"
    "local str = table.concat(parts, ',')\n"
    "local n = 0\n"
    "for w in str:gmatch('%d+') do n = n + 1 end\n"
    "local u = str:gsub('x', 'yy'):upper():find('20000:YY', 1, true)\n"
    "local m = 0 for i = 1, 20000 do if ('VOTE Agent[' .. i .. ']'):match('^(%u+)%s+Agent%[(%d+)%]$') then m = m + 1 end end\n"
    "local t = {} for i = 1, 100000 do t[i] = (i * 7919) % 100003 end\n"
    "table.sort(t, function(a, b) return a > b end)\n"
    "for i = 1, 100 do table.insert(t, 1, i) end\n"
    "return n + m + (u or 0)\n";

static const char *bench_src = vm_src;

static double run_stock(void)
{
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    uint64_t t0 = aw_now_ns();
    if (luaL_loadstring(L, bench_src) != LUA_OK || lua_pcall(L, 0, 1, 0) != LUA_OK) {
        fprintf(stderr, "stock: %s\n", lua_tostring(L, -1));
        exit(1);
    }
    uint64_t t1 = aw_now_ns();
    lua_close(L);
    return (double)(t1 - t0) / 1e6;
}

static double run_sandbox(void)
{
    aw_sandbox_limits lim;
    aw_error err;
    aw_fault f;
    aw_sandbox_limits_default(&lim);
    lim.budget_ms = 10000;
    aw_sandbox *sb = aw_sandbox_new(&lim, &err);
    if (!sb || aw_sandbox_load(sb, bench_src, strlen(bench_src), "=bench", &f) != 0) {
        fprintf(stderr, "sandbox: %s\n", sb ? f.msg : err.msg);
        exit(1);
    }
    aw_sandbox_free(sb);
    return (double)f.elapsed_ns / 1e6;
}

static int noop(lua_State *L)
{
    (void)L;
    return 0;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* N empty calls into one sandbox, after one that starts the watchdog. */
static int just_calls(long n, bool unguarded)
{
    aw_error err;
    aw_fault f;
    aw_sandbox_limits lim;
    aw_sandbox_limits_default(&lim);
    lim.unguarded = unguarded ? 1 : 0;
    aw_sandbox *sb = aw_sandbox_new(&lim, &err);
    if (!sb) {
        fprintf(stderr, "sandbox: %s\n", err.msg);
        return 1;
    }
    aw_sandbox_run(sb, noop, NULL, &f);
    for (long i = 0; i < n; i++)
        aw_sandbox_run(sb, noop, NULL, &f);
    aw_sandbox_free(sb);
    printf("%ld empty calls\n", n);
    return 0;
}

/* Endless loops under budgets of 5, 20 and 100 ms: the CPU time each was
 * charged past its budget (median, worst), and how many ended outside the
 * promised bound. 1 when any did. */
static int stop_latency(int rounds)
{
    static const int budgets[] = {5, 20, 100};
    const char *src = "while true do end";
    double *over = calloc((size_t)rounds, sizeof *over);
    int bad = 0;
    for (size_t k = 0; k < sizeof budgets / sizeof budgets[0]; k++) {
        aw_sandbox_limits lim;
        aw_error err;
        aw_sandbox_limits_default(&lim);
        lim.budget_ms = budgets[k];
        aw_sandbox *sb = aw_sandbox_new(&lim, &err);
        if (!sb) {
            fprintf(stderr, "sandbox: %s\n", err.msg);
            exit(1);
        }
        int outside = 0;
        for (int i = 0; i < rounds; i++) {
            aw_fault f;
            aw_sandbox_load(sb, src, strlen(src), "=loop", &f);
            double ms = (double)f.elapsed_ns / 1e6;
            over[i] = ms - budgets[k];
            outside += f.kind != AW_FAULT_TIMEOUT || ms < budgets[k] || ms >= 2.0 * budgets[k] + 200;
        }
        qsort(over, (size_t)rounds, sizeof *over, cmpd);
        printf("stop: budget %3d ms, %d loops: CPU past the budget median %.2f ms, worst %.2f ms; %d outside "
               "[budget, 2x budget + 200 ms)\n",
               budgets[k], rounds, over[rounds / 2], over[rounds - 1], outside);
        bad |= outside > 0;
        aw_sandbox_free(sb);
    }
    free(over);
    return bad;
}

int main(int argc, char **argv)
{
    if ((argc == 3 || (argc == 4 && strcmp(argv[3], "--unguarded") == 0)) && strcmp(argv[1], "--calls") == 0)
        return just_calls(atol(argv[2]), argc == 4);
    int rounds = argc > 1 ? atoi(argv[1]) : 15;
    if (rounds < 1 || rounds > 1000)
        rounds = 15;
    double *a = calloc((size_t)rounds, sizeof *a), *b = calloc((size_t)rounds, sizeof *b);
    static const char *const names[] = {"VM (calls, tables, concat)", "library (patterns, sort, insert)"};
    static const char *const srcs[] = {vm_src, lib_src};
    for (int w = 0; w < 2; w++) {
        bench_src = srcs[w];
        for (int i = 0; i < rounds; i++) { /* interleaved, so drift hits both */
            a[i] = run_stock();
            b[i] = run_sandbox();
        }
        qsort(a, (size_t)rounds, sizeof *a, cmpd);
        qsort(b, (size_t)rounds, sizeof *b, cmpd);
        double ma = a[rounds / 2], mb = b[rounds / 2];
        printf("%-34s median of %d: stock %7.2f ms, sandbox %7.2f ms, overhead %+.1f%%\n", names[w], rounds, ma, mb,
               (mb / ma - 1) * 100);
    }

    aw_error err;
    aw_fault f;
    uint64_t t0 = aw_now_ns();
    enum { N = 200 };
    static aw_sandbox *sbs[N];
    for (int i = 0; i < N; i++)
        sbs[i] = aw_sandbox_new(NULL, &err);
    uint64_t t1 = aw_now_ns();
    printf("idle sandbox: %zu bytes of Lua heap; created in %.1f us each\n", aw_sandbox_memory(sbs[0]),
           (double)(t1 - t0) / 1e3 / N);
    const char *req = "require 'lpeg'";
    aw_sandbox_load(sbs[0], req, strlen(req), "=req", &f);
    lua_pop(aw_sandbox_state(sbs[0]), 1);
    printf("idle sandbox with LPeg loaded: %zu bytes\n", aw_sandbox_memory(sbs[0]));
    t0 = aw_now_ns();
    enum { CALLS = 20000 };
    for (int i = 0; i < CALLS; i++)
        aw_sandbox_run(sbs[1], noop, NULL, &f);
    t1 = aw_now_ns();
    printf("empty aw_sandbox_run: %.2f us per call (the watchdog's part included)\n", (double)(t1 - t0) / 1e3 / CALLS);
    /* Once a game has read os.clock, each call reads the thread's CPU clock
     * as it starts and ends (docs/sandbox.md, "What an agent can read"). */
    const char *clk = "return os.clock()";
    aw_sandbox_load(sbs[2], clk, strlen(clk), "=clock", &f);
    lua_pop(aw_sandbox_state(sbs[2]), 1);
    t0 = aw_now_ns();
    for (int i = 0; i < CALLS; i++)
        aw_sandbox_run(sbs[2], noop, NULL, &f);
    t1 = aw_now_ns();
    printf("empty aw_sandbox_run after os.clock: %.2f us per call\n", (double)(t1 - t0) / 1e3 / CALLS);
    for (int i = 0; i < N; i++)
        aw_sandbox_free(sbs[i]);
    free(a);
    free(b);
    return stop_latency(rounds);
}
