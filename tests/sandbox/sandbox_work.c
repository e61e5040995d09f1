/* sandbox_work: the deterministic work budget (limits.work_budget). The same
 * agent, stopped by its work budget in three fresh sandboxes, stops at the
 * same point (the same number of loop iterations done, the same units
 * counted), whatever the machine's load; the units a benign call uses are
 * the same every time; work that the count of instructions alone would miss
 * (long strings, patterns, sorting, LPeg) is priced, so a loop over
 * megabyte strings is stopped after a few iterations, not after the clock. */
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "sandbox.h"
#include "test.h"

static aw_sandbox *new_sb(uint64_t work)
{
    aw_sandbox_limits lim;
    aw_error err;
    aw_sandbox_limits_default(&lim);
    lim.budget_ms = 5000; /* the safety net only: far above what the work budget allows */
    lim.work_budget = work;
    lim.seed = 7;
    aw_sandbox *sb = aw_sandbox_new(&lim, &err);
    CHECK_MSG(sb != NULL, "%s", err.msg);
    return sb;
}

static int load(aw_sandbox *sb, const char *src, aw_fault *f, char *out, size_t outlen)
{
    int rc = aw_sandbox_load(sb, src, strlen(src), "=work", f);
    if (rc == 0) {
        lua_State *L = aw_sandbox_state(sb);
        snprintf(out, outlen, "%s", lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "-");
        lua_pop(L, 1);
    }
    return rc;
}

static const char agent[] =
    "local lpeg = require 'lpeg'\n"
    "local word = lpeg.C(lpeg.R('az')^1)\n"
    "n = 0\n"
    "local co = coroutine.wrap(function() while true do coroutine.yield(1) end end)\n"
    "while true do\n"
    "  n = n + 1\n"
    "  local s = ('w%d '):format(n):rep(20)\n"
    "  s = s:gsub('%d+', function(d) return d .. 'x' end)\n"
    "  local t = { n % 7, n % 3, n % 5, 1, 9 }\n"
    "  table.sort(t)\n"
    "  local ok = pcall(error, 'e')\n"
    "  local w = word:match('abc' .. n)\n"
    "  n = n + co() - 1\n"
    "end\n";

int main(void)
{
    char r[3][64], units[3][32];
    aw_fault f;
    for (int i = 0; i < 3; i++) {
        aw_sandbox *sb = new_sb(300000);
        char tmp[64];
        int rc = load(sb, agent, &f, tmp, sizeof tmp);
        CHECK_MSG(rc < 0 && f.kind == AW_FAULT_TIMEOUT && strstr(f.msg, "work budget"), "run %d: %s", i, f.msg);
        snprintf(units[i], sizeof units[i], "%llu", (unsigned long long)aw_sandbox_work(sb));
        double ms = (double)f.elapsed_ns / 1e6;
        CHECK(aw_sandbox_work(sb) >= 300000 && aw_sandbox_work(sb) < 400000);
        rc = load(sb, "return tostring(n)", &f, r[i], sizeof r[i]);
        CHECK_INT(rc, 0);
        printf("stopped after %s iterations, %s units, %.1f ms\n", r[i], units[i], ms);
        aw_sandbox_free(sb);
    }
    CHECK(atoi(r[0]) > 10);
    CHECK_STR(r[0], r[1]);
    CHECK_STR(r[0], r[2]);
    CHECK_STR(units[0], units[1]);
    CHECK_STR(units[0], units[2]);

    /* A benign call costs the same every time. */
    uint64_t w[2];
    for (int i = 0; i < 2; i++) {
        aw_sandbox *sb = new_sb(10000000);
        char out[64];
        CHECK_INT(load(sb, "local t = {} for i = 1, 5000 do t[i] = ('%05d'):format(i) end"
                           " local s = table.concat(t, ',') return tostring(#s:gsub('0', ''))", &f, out, sizeof out), 0);
        w[i] = aw_sandbox_work(sb);
        aw_sandbox_free(sb);
    }
    CHECK(w[0] == w[1] && w[0] > 5000);

    /* Long strings are priced: 16 concatenations of a megabyte use ~1M units. */
    aw_sandbox *sb = new_sb(1000000);
    char out[64];
    int rc = load(sb, "local a = string.rep('x', 1 << 20) n = 0 while true do n = n + 1 local b = a .. 'y' end", &f,
                  out, sizeof out);
    CHECK(rc < 0 && f.kind == AW_FAULT_TIMEOUT && strstr(f.msg, "work"));
    CHECK_INT(load(sb, "return tostring(n)", &f, out, sizeof out), 0);
    CHECK_MSG(atoi(out) >= 10 && atoi(out) <= 16, "concatenations before the stop: %s", out);
    /* So are patterns: backtracking stops by units, not by the clock. */
    rc = load(sb, "return string.find(string.rep('a', 150), '.-.-.-.-b')", &f, out, sizeof out);
    CHECK(rc < 0 && strstr(f.msg, "work"));
    aw_sandbox_free(sb);

    /* Parsing is priced by its quadratic part too: a 3000-term 'or' chain
     * costs some 1.1M units (its parse walks 4.5M jump-list links), so a
     * loop of such loads stops after the same few loads every time, by
     * units, where pricing the source bytes alone (2000 units a load) left
     * it to the clock. */
    char loads[3][32], lunits[3][32];
    for (int i = 0; i < 3; i++) {
        sb = new_sb(5000000);
        rc = load(sb, "local src = 'return ' .. ('a or '):rep(3000) .. 'a' n = 0"
                      " while true do assert(load(src)) n = n + 1 end", &f, out, sizeof out);
        CHECK_MSG(rc < 0 && f.kind == AW_FAULT_TIMEOUT && strstr(f.msg, "work budget"), "parse loop: %s", f.msg);
        snprintf(lunits[i], sizeof lunits[i], "%llu", (unsigned long long)aw_sandbox_work(sb));
        CHECK_INT(load(sb, "return tostring(n)", &f, loads[i], sizeof loads[i]), 0);
        printf("parse loop stopped after %s loads, %s units\n", loads[i], lunits[i]);
        aw_sandbox_free(sb);
    }
    CHECK(atoi(loads[0]) >= 2 && atoi(loads[0]) <= 6);
    CHECK_STR(loads[0], loads[1]);
    CHECK_STR(loads[0], loads[2]);
    CHECK_STR(lunits[0], lunits[1]);
    CHECK_STR(lunits[0], lunits[2]);
    return test_done();
}
