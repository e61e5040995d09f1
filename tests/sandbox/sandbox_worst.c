/* Every stock C function the sandbox exposes, on its worst input at the
 * default limits (100 ms per call, 64 MiB): each call must end — done, or
 * stopped — within twice the budget of CPU time (here with 30 ms to spare;
 * a time-out only where the calling thread notices its deadline itself,
 * test_load.h; under the sanitizers, which run several times slower, the sizes
 * are a quarter and the bound is loose: there it checks only that nothing
 * crashes or hangs). Prints the measured time of each case: the figures in
 * docs/sandbox.md come from here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox.h"
#include "test.h"
#include "test_load.h"

typedef struct {
    const char *name;
    const char *setup; /* builds the input (globals), under its own budget */
    const char *call;  /* the one call that is timed */
} worst;

/* N is 900 000 (the Lua stack holds a million values), S is 20 000 000
 * bytes (an input, its result and a buffer fit in 64 MiB); a quarter of
 * each under the sanitizers. */
static const worst cases[] = {
    {"string.format %q, S/2 bytes", "s = ('a\\n'):rep(S // 4)", "return #string.format('%q', s)"},
    {"string.format, N/2 conversions", "t = {} for i = 1, N // 2 do t[i] = i end f = ('%d'):rep(N // 2)",
     "return #string.format(f, table.unpack(t))"},
    {"string.upper, S bytes", "s = ('a'):rep(S)", "return #s:upper()"},
    {"string.lower, S bytes", "s = ('A'):rep(S)", "return #s:lower()"},
    {"string.reverse, S bytes", "s = ('ab'):rep(S // 2)", "return #s:reverse()"},
    {"string.sub, S bytes", "s = ('a'):rep(S)", "return #s:sub(2)"},
    {"string.rep, 2S bytes", "", "return #('x'):rep(2 * S)"},
    {"string.byte, stack full", "s = ('a'):rep(S)", "return select('#', s:byte(1, 990000))"},
    {"string.char, N arguments", "t = {} for i = 1, N do t[i] = 65 end", "return #string.char(table.unpack(t))"},
    {"string.find plain, S bytes", "s = ('a'):rep(S) p = ('a'):rep(1000) .. 'b'", "return s:find(p, 1, true)"},
    {"string.find pattern, S bytes", "s = ('a'):rep(S)", "return s:find('.-b')"},
    {"string.gsub, S bytes", "s = ('a'):rep(S)", "return #(s:gsub('a', 'b'))"},
    {"string.pack", "", "return #string.pack('i16i16c1000', 1, 2, ('x'):rep(1000))"},
    {"utf8.len, S bytes", "s = ('\\u{3042}'):rep(S // 3)", "return utf8.len(s)"},
    {"utf8.char, N arguments", "t = {} for i = 1, N do t[i] = 0x3042 end", "return #utf8.char(table.unpack(t))"},
    {"utf8.codepoint, stack full", "s = ('a'):rep(S)", "return select('#', utf8.codepoint(s, 1, 990000))"},
    {"tonumber, S digits", "s = ('1'):rep(S)", "return tonumber(s)"},
    {"arithmetic on S digits", "s = ('1'):rep(S)", "return s + 1"},
    {"comparison of two S/2-byte strings", "a = ('a'):rep(S // 2) b = ('a'):rep(S // 2 - 1) .. 'b'", "return a < b"},
    {"concatenation, S bytes", "s = ('a'):rep(S)", "return #(s .. s)"},
    {"tostring, select, type", "t = {} for i = 1, N do t[i] = i end",
     "return select('#', table.unpack(t)), tostring(1e308), type(t)"},
    {"table.unpack, __index in C", "t = setmetatable({}, {__index = os.clock})", "return select('#', table.unpack(t, 1, 990000))"},
    {"table.concat, N items", "t = {} for i = 1, N do t[i] = 'abcdefgh' end", "return #table.concat(t, ',')"},
    {"table.sort, N items", "t = {} for i = 1, N do t[i] = (i * 7919) % N end", "table.sort(t) return t[1]"},
    {"table.insert at 1, N items", "t = {} for i = 1, N do t[i] = i end", "for i = 1, 1000 do table.insert(t, 1, i) end"},
    {"table.move, N items", "t = {} for i = 1, N do t[i] = i end", "return #table.move(t, 1, N, 2)"},
    {"os.date, 1 KiB format", "f = ('%c %Y'):rep(170)", "for i = 1, 100 do os.date(f) end"},
    {"os.time with a table", "d = {year = 2020, month = 1, day = 1}", "for i = 1, 20000 do os.time(d) end"},
    {"load, 1 MiB", "src = ('local a = 1 + 2 * 3\\n'):rep(50000)", "return load(src) ~= nil"},
    {"print, 1 MiB", "s = ('a'):rep(1 << 20)", "print(s)"},
    {"lpeg.match, S bytes", "lpeg = require 'lpeg' s = ('a'):rep(S) p = (lpeg.P'a')^0 * lpeg.P'b'",
     "return lpeg.match(p, s)"},
};

int main(void)
{
    int sanitized = getenv("AIWOLF_SANITIZED") != NULL;
    long n = sanitized ? 225000 : 900000, sz = sanitized ? 5000000 : 20000000;
    double bound_ms = sanitized ? 2000 : 230; /* twice the budget, and 30 ms for a loaded machine */
    int stopped = 0, done = 0;
    printf("%-36s %10s  %s\n", "case", "ms", "result");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const worst *w = &cases[i];
        aw_sandbox_limits lim;
        aw_sandbox_limits_default(&lim); /* 100 ms, 64 MiB */
        aw_error err;
        char src[512];
        snprintf(src, sizeof src, "N = %ld S = %ld %s", n, sz, w->setup);
        aw_fault f;
        aw_sandbox *sb = NULL;
        int rc = -1;
        /* The setup only builds the input (a 900,000-item table takes a
         * good part of the budget): on a loaded machine it may run out of
         * it, which is not what this test is about, so it gets three tries
         * in a fresh sandbox each. */
        for (int attempt = 0; attempt < 3; attempt++) {
            if (sb)
                aw_sandbox_free(sb);
            sb = aw_sandbox_new(&lim, &err);
            if (!sb)
                break;
            rc = aw_sandbox_load(sb, src, strlen(src), "=setup", &f);
            if (rc == 0 || f.kind != AW_FAULT_TIMEOUT)
                break;
        }
        CHECK(sb != NULL);
        if (!sb)
            continue;
        CHECK_MSG(rc == 0, "%s: the setup failed: %s", w->name, f.msg);
        if (rc == 0) {
            lua_pop(aw_sandbox_state(sb), 1);
            rc = aw_sandbox_load(sb, w->call, strlen(w->call), "=call", &f);
            double ms = (double)f.elapsed_ns / 1e6;
            printf("%-36s %10.1f  %s\n", w->name, ms, rc == 0 ? "done" : aw_fault_kind_name(f.kind));
            /* a time-out's CPU past the deadline, with the watchdog thread,
             * is the machine's pace (test_load.h): bench/sandbox_bench's */
            CHECK_MSG(ms < bound_ms || (f.kind == AW_FAULT_TIMEOUT && test_watchdog_thread()), "%s: %.1f ms (%s)",
                      w->name, ms, rc == 0 ? "done" : f.msg);
            CHECK_MSG(rc == 0 || f.kind != AW_FAULT_TIMEOUT || !strstr(f.msg, "killed"),
                      "%s: stopped only by the last resort: %s", w->name, f.msg);
            if (rc == 0)
                done++;
            else
                stopped++;
        }
        aw_sandbox_free(sb);
    }
    printf("%d cases done, %d stopped (time-out or memory cap)\n", done, stopped);
    return test_done();
}
