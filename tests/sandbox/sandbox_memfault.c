/* sandbox_memfault: a call that reaches its memory cap gets a memory fault,
 * even when the collection that follows the failed allocation takes it past
 * its time budget. The heap holds 200 000 live tables (built by the host,
 * outside any call, up to just under the cap); the call's first allocation
 * is past the cap; Lua then collects the whole heap (several ms of CPU)
 * before it raises the memory error, which takes longer than the call's 5 ms
 * budget, so the deadline has passed by the time the call ends. The fault's kind must be the limit reached first: the
 * memory cap (it used to be a time-out, depending on how fast the machine
 * collected; docs/contest.md "What a rerun gives"). */
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>

#include "sandbox.h"
#include "test.h"

#define CAP ((size_t)96 << 20)
#define TABLES 1500000

int main(void)
{
    aw_sandbox_limits lim;
    aw_error err;
    aw_sandbox_limits_default(&lim);
    lim.memory_bytes = CAP;
    lim.budget_ms = 5;
    aw_sandbox *sb = aw_sandbox_new(&lim, &err);
    CHECK_MSG(sb != NULL, "%s", err.msg);
    if (!sb)
        return test_done();
    lua_State *L = aw_sandbox_state(sb);
    /* Live tables, kept in the registry, up to 1 MiB under 7/8 of the cap
     * (past 7/8 the sandbox collects before the call). */
    lua_createtable(L, TABLES, 0);
    int n = 0;
    while (n < TABLES && aw_sandbox_memory(sb) + (1u << 20) < CAP / 8 * 7) {
        lua_createtable(L, 0, 0);
        lua_rawseti(L, -2, ++n);
    }
    int ref = luaL_ref(L, LUA_REGISTRYINDEX);
    /* No collection runs in the call until an allocation fails (so the
     * call spends its CPU time in the emergency collection, after the cap
     * was reached, not in a step of the incremental one before). */
    lua_gc(L, LUA_GCCOLLECT);
    lua_gc(L, LUA_GCSTOP);
    printf("%d live tables, %zu bytes of %zu\n", n, aw_sandbox_memory(sb), CAP);
    CHECK(n > 500000 && n < TABLES);
    CHECK(aw_sandbox_memory(sb) + (7u << 20) < CAP && aw_sandbox_memory(sb) + (14u << 20) > CAP);
    aw_fault f;
    /* 7 MiB fit; twice that does not: Lua then collects everything and
     * tries again (its emergency collection), which fails too. */
    const char *src = "local a = string.rep('x', 7 << 20) local b = a .. a return #b";
    int rc = aw_sandbox_load(sb, src, strlen(src), "=memfault", &f);
    printf("fault: %s (%s), %.2f ms CPU\n", aw_fault_kind_name(f.kind), f.msg, (double)f.elapsed_ns / 1e6);
    CHECK_MSG(rc < 0 && f.kind == AW_FAULT_MEMORY && strstr(f.msg, "memory cap"), "%s: %s",
              aw_fault_kind_name(f.kind), f.msg);
    /* The sandbox is fine afterwards: its next call runs. */
    const char *ok = "return 1";
    CHECK_INT(aw_sandbox_load(sb, ok, strlen(ok), "=ok", &f), 0);
    luaL_unref(L, LUA_REGISTRYINDEX, ref);
    aw_sandbox_free(sb);
    return test_done();
}
